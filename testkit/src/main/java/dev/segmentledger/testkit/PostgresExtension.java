package dev.segmentledger.testkit;

import java.security.SecureRandom;
import java.sql.Connection;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.HexFormat;
import javax.sql.DataSource;
import org.junit.jupiter.api.extension.AfterAllCallback;
import org.junit.jupiter.api.extension.BeforeAllCallback;
import org.junit.jupiter.api.extension.ExtensionContext;

/**
 * A JUnit 5 extension that gives a test class a real PostgreSQL database in a fresh, empty schema
 * of its own. Register it on a static field:
 *
 * <pre>{@code
 * @RegisterExtension
 * static final PostgresExtension PG = PostgresExtension.create();
 * }</pre>
 *
 * <p>The server is found once per JVM and shared by every test class, in this order:
 * <ol>
 *   <li>an explicit JDBC URL from the system property {@code segmentledger.test.jdbc-url} or the
 *       environment variable {@code SEGMENT_LEDGER_TEST_JDBC_URL} (user and password from
 *       {@code segmentledger.test.jdbc-user}/{@code SEGMENT_LEDGER_TEST_JDBC_USER} and
 *       {@code segmentledger.test.jdbc-password}/{@code SEGMENT_LEDGER_TEST_JDBC_PASSWORD});</li>
 *   <li>Testcontainers ({@code postgres:16-alpine}, or the image named by
 *       {@code segmentledger.test.postgres-image}) when Docker is available, unless
 *       {@code segmentledger.test.docker} is {@code false};</li>
 *   <li>embedded PostgreSQL 16 (io.zonky.test), stopped when the JVM exits.</li>
 * </ol>
 * Which one was used is logged once at INFO and available from {@link #source()}.
 *
 * <p>Before the class's first test a schema with a random name is created; {@link #dataSource()}
 * and {@link #jdbcUrl()} select it with {@code currentSchema}, so unqualified table names land in
 * it. It is dropped, with everything in it, after the class's last test. Tests within one class
 * share the schema.
 *
 * <p>It never skips: if no database can be provided, the test class fails with a message saying
 * how to provide one. Thread-safe: the accessors may be called from any thread once the class has
 * started; the data source opens a new, unpooled connection per call.
 */
public final class PostgresExtension implements BeforeAllCallback, AfterAllCallback {
  private static final SecureRandom RANDOM = new SecureRandom();

  private volatile PostgresServer server;
  private volatile String schema;
  private volatile String jdbcUrl;
  private volatile DataSource dataSource;

  private PostgresExtension() {}

  /** A new extension; register it on a static field with {@code @RegisterExtension}. */
  public static PostgresExtension create() {
    return new PostgresExtension();
  }

  @Override
  public void beforeAll(ExtensionContext context) throws SQLException {
    PostgresServer shared = PostgresServers.shared();
    String name = "sl_test_" + HexFormat.of().formatHex(RANDOM.generateSeed(6));
    execute(shared, "CREATE SCHEMA " + name);
    String url = shared.jdbcUrl() + (shared.jdbcUrl().contains("?") ? "&" : "?") + "currentSchema=" + name;
    this.dataSource = shared.dataSource(url);
    this.jdbcUrl = url;
    this.schema = name;
    this.server = shared;
  }

  @Override
  public void afterAll(ExtensionContext context) throws SQLException {
    PostgresServer shared = server;
    String name = schema;
    server = null;
    schema = null;
    jdbcUrl = null;
    dataSource = null;
    if (shared != null) {
      dropSchema(shared, name);
    }
  }

  /**
   * Drops the schema. A statement of the class's code that still runs (a ledger the test did not
   * close) can deadlock with the drop or hold a lock on it: the drop then waits at most 10 s per
   * try and is tried 5 times before the error is thrown.
   */
  private static void dropSchema(PostgresServer server, String name) throws SQLException {
    for (int attempt = 1; ; attempt++) {
      try {
        execute(server, "SET lock_timeout = '10s'; DROP SCHEMA IF EXISTS " + name + " CASCADE");
        return;
      } catch (SQLException e) {
        boolean contention = "40P01".equals(e.getSQLState()) || "55P03".equals(e.getSQLState());
        if (!contention || attempt == 5) {
          throw e;
        }
      }
    }
  }

  /** A data source for the class's schema (user and password included). */
  public DataSource dataSource() {
    requireStarted();
    return dataSource;
  }

  /**
   * The JDBC URL of the class's schema, with {@code currentSchema} set. For an explicit URL
   * without credentials in it, use {@link #user()} and {@link #password()} as well.
   */
  public String jdbcUrl() {
    requireStarted();
    return jdbcUrl;
  }

  /** The name of the class's schema. */
  public String schema() {
    requireStarted();
    return schema;
  }

  /** The user to connect with, or {@code null} if the URL carries it. */
  public String user() {
    return requireStarted().user();
  }

  /** The password to connect with, or {@code null} if none or the URL carries it. */
  public String password() {
    return requireStarted().password();
  }

  /** Where the server comes from: explicit URL, Testcontainers or embedded. */
  public String source() {
    return requireStarted().description();
  }

  private PostgresServer requireStarted() {
    PostgresServer current = server;
    if (current == null) {
      throw new IllegalStateException("PostgresExtension is not active: register it on a static field with"
          + " @RegisterExtension and use it from within the test class's lifecycle");
    }
    return current;
  }

  private static void execute(PostgresServer server, String sql) throws SQLException {
    try (Connection connection = server.connect(); Statement statement = connection.createStatement()) {
      statement.execute(sql);
    }
  }
}
