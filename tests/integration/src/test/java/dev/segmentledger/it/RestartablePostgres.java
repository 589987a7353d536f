package dev.segmentledger.it;

import io.zonky.test.db.postgres.embedded.EmbeddedPostgres;
import java.io.IOException;
import java.net.ServerSocket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

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
  private List<Long> frozen;

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

  /**
   * Freezes the server: SIGSTOP of the postmaster and every backend, so that connections stay open
   * and nothing answers, as for a primary whose host or network stopped without closing anything.
   * Undo with {@link #thaw()}.
   */
  void freeze() throws IOException, InterruptedException {
    long postmaster = Long.parseLong(Files.readAllLines(dataDirectory.resolve("postmaster.pid")).get(0).trim());
    frozen = new ArrayList<>(List.of(postmaster));
    signal("STOP", frozen); // first, so that it forks no backend the list below could miss
    List<Long> backends = new ArrayList<>();
    ProcessHandle.of(postmaster).orElseThrow().descendants().forEach(p -> backends.add(p.pid()));
    signal("STOP", backends);
    frozen.addAll(backends);
  }

  /** Lets a {@linkplain #freeze() frozen} server run again; nothing if it is not frozen. */
  void thaw() throws IOException, InterruptedException {
    if (frozen != null) {
      signal("CONT", frozen);
      frozen = null;
    }
  }

  private static void signal(String signal, List<Long> pids) throws IOException, InterruptedException {
    List<String> command = new ArrayList<>(List.of("kill", "-" + signal));
    pids.forEach(p -> command.add(String.valueOf(p)));
    Process kill = new ProcessBuilder(command).redirectErrorStream(true).start();
    String out = new String(kill.getInputStream().readAllBytes());
    if (kill.waitFor() != 0) {
      throw new IOException("kill -" + signal + " " + pids + ": " + out);
    }
  }

  /** Stops the server (fast shutdown: open connections are cut) and starts it again on the same data. */
  void restart() throws IOException {
    server.close();
    server = boot();
  }

  @Override
  public void close() throws IOException {
    try {
      thaw();
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
    server.close();
  }
}
