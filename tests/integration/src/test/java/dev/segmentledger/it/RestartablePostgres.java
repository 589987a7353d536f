package dev.segmentledger.it;

import io.zonky.test.db.postgres.embedded.EmbeddedPostgres;
import java.io.IOException;
import java.net.ServerSocket;
import java.nio.file.Path;

/**
 * An embedded PostgreSQL of one test's own (not the shared server of {@code PostgresExtension}),
 * on a fixed port and a data directory that survive a {@linkplain #restart() restart}: the server
 * comes back at the same JDBC URL with the same data, as a production database does after a
 * failover or a restart. Not thread-safe: one test thread drives it.
 */
final class RestartablePostgres implements AutoCloseable {
  private final Path dataDirectory;
  private final int port;
  private EmbeddedPostgres server;

  private RestartablePostgres(Path dataDirectory, int port) throws IOException {
    this.dataDirectory = dataDirectory;
    this.port = port;
    this.server = boot();
  }

  /** Starts a server on a free port with its data under {@code dataDirectory}. */
  static RestartablePostgres start(Path dataDirectory) throws IOException {
    int port;
    try (ServerSocket socket = new ServerSocket(0)) {
      port = socket.getLocalPort();
    }
    return new RestartablePostgres(dataDirectory, port);
  }

  private EmbeddedPostgres boot() throws IOException {
    return EmbeddedPostgres.builder()
        .setPort(port)
        .setDataDirectory(dataDirectory)
        .setCleanDataDirectory(false)
        .start();
  }

  /** The JDBC URL of the {@code postgres} database; the same before and after a restart. */
  String jdbcUrl() {
    return "jdbc:postgresql://localhost:" + port + "/postgres?user=postgres";
  }

  /** Stops the server (fast shutdown: open connections are cut) and starts it again on the same data. */
  void restart() throws IOException {
    server.close();
    server = boot();
  }

  @Override
  public void close() throws IOException {
    server.close();
  }
}
