package dev.segmentledger.it;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;
import dev.segmentledger.core.ItemId;
import dev.segmentledger.core.Ledger;
import dev.segmentledger.core.StoreException;
import dev.segmentledger.jdbi.JdbiStateStore;
import dev.segmentledger.testkit.FakeObjectSink;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.jdbi.v3.core.Jdbi;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The connection settings of the README's "When PostgreSQL fails over", on servers of the test's
 * own ({@link RestartablePostgres}): a multi-host URL with {@code targetServerType=primary} skips a
 * server that refuses writes (as a standby, or a node being promoted, does) and registers on the
 * writable one; with no writable server a registration fails within the pool's connection timeout,
 * saying nothing was written; and against a frozen primary (SIGSTOP: connections open, nothing
 * answers) the pool's validation and PgJDBC's socket timeout bound every registration, each failure
 * says nothing was written, and once the server runs again registering the same files writes each
 * once. The HA engine itself is exercised by the failover benchmark ({@code -Pfailover}).
 */
class FailoverSettingsTest {
  /** The README's URL parameters and pool settings (ReadmeSnippets.failoverPool). */
  static final String PARAMETERS = "targetServerType=primary&connectTimeout=2&socketTimeout=5&loginTimeout=10"
      + "&tcpKeepAlive=true";
  static final Duration CONNECTION_TIMEOUT = Duration.ofSeconds(3);
  static final Duration SOCKET_TIMEOUT = Duration.ofSeconds(5);
  /** How much later than its timeouts a failure may come on a loaded 2-core machine. */
  static final Duration SLACK = Duration.ofSeconds(10);

  @TempDir Path temp;

  @Test
  void aServerThatRefusesWritesIsSkippedAndWithoutAPrimaryNothingIsWritten() throws Exception {
    try (RestartablePostgres standby = RestartablePostgres.start(temp.resolve("standby"));
        RestartablePostgres primary = RestartablePostgres.start(temp.resolve("primary"))) {
      execute(standby.jdbcUrl(), "ALTER SYSTEM SET default_transaction_read_only = on", "SELECT pg_reload_conf()");
      String url = "jdbc:postgresql://localhost:" + port(standby) + ",localhost:" + port(primary) + "/postgres?user="
          + "postgres&" + PARAMETERS;
      try (HikariDataSource pool = pool(url); Ledger ledger = ledger(pool)) {
        ItemId first = ItemId.original("fo", "720p", 0);
        assertTrue(ledger.register(first, record(first)).created());
        assertEquals(1, count(primary.jdbcUrl()), "registered on the writable server, listed second");

        primary.close(); // no writable server left: the pool waits its connection timeout, then gives up
        ItemId second = ItemId.original("fo", "720p", 1);
        long t0 = System.nanoTime();
        StoreException e = assertThrows(StoreException.class, () -> ledger.register(second, record(second)));
        assertEquals(StoreException.Outcome.NOT_WRITTEN, e.writeOutcome(), e.getMessage());
        assertWithin(Duration.ofNanos(System.nanoTime() - t0), CONNECTION_TIMEOUT.plus(SOCKET_TIMEOUT).plus(SLACK));
      }
    }
  }

  @Test
  void aFrozenPrimaryBoundsEveryRegistrationAndTheRetriesWriteEachFileOnce() throws Exception {
    try (RestartablePostgres pg = RestartablePostgres.start(temp.resolve("pgdata"));
        HikariDataSource pool = pool(pg.jdbcUrl() + "&" + PARAMETERS); Ledger ledger = ledger(pool)) {
      ItemId before = ItemId.original("frozen", "720p", 0);
      ledger.register(before, record(before));
      pg.freeze();
      List<ItemId> failed = new ArrayList<>();
      try {
        // The first call may take the connection just used (no validation within 0.5 s): its statement
        // waits for the socket timeout. The next find it dead by validation, and wait for a new one.
        for (int i = 1; i <= 3; i++) {
          ItemId id = ItemId.original("frozen", "720p", i);
          long t0 = System.nanoTime();
          StoreException e = assertThrows(StoreException.class, () -> ledger.register(id, record(id)));
          Duration took = Duration.ofNanos(System.nanoTime() - t0);
          System.out.printf("frozen primary: register %d threw after %.1f s: %s%n", i, took.toMillis() / 1e3,
              e.getMessage());
          assertWithin(took, SOCKET_TIMEOUT.plus(CONNECTION_TIMEOUT).plus(SLACK));
          assertEquals(StoreException.Outcome.NOT_WRITTEN, e.writeOutcome(),
              "frozen before any commit was sent: " + e.getMessage());
          failed.add(id);
        }
      } finally {
        pg.thaw();
      }
      for (ItemId id : failed) { // the recorder's retry
        assertTrue(registerUntilDone(ledger, id).created(), "nothing had been written for " + id);
      }
      assertFalse(registerUntilDone(ledger, before).created(), "the row written before the freeze is there");
      assertEquals(4, count(pg.jdbcUrl()));
    }
  }

  private static dev.segmentledger.core.Registration registerUntilDone(Ledger ledger, ItemId id) throws Exception {
    Path file = Path.of(id.sequence() + ".ts");
    for (int attempt = 1; ; attempt++) {
      try {
        return ledger.register(id, file);
      } catch (StoreException e) {
        if (attempt == 20) {
          throw e;
        }
        Thread.sleep(250); // the pool replaces its connections to the thawed server
      }
    }
  }

  private HikariDataSource pool(String url) {
    HikariConfig config = new HikariConfig();
    config.setJdbcUrl(url);
    config.setMaximumPoolSize(2);
    config.setConnectionTimeout(CONNECTION_TIMEOUT.toMillis());
    config.setValidationTimeout(1_000);
    config.setKeepaliveTime(30_000);
    return new HikariDataSource(config);
  }

  private Ledger ledger(HikariDataSource pool) throws Exception {
    Path root = Files.createDirectories(temp.resolve("root")).toRealPath();
    return Ledger.builder().stateStore(JdbiStateStore.create(Jdbi.create(pool)).migrate())
        .objectSink(new FakeObjectSink()).allowedRoot(root).buildManual();
  }

  private Path record(ItemId id) throws Exception {
    Path root = Files.createDirectories(temp.resolve("root")).toRealPath();
    return Files.writeString(root.resolve(id.sequence() + ".ts"), "media of " + id);
  }

  private static int port(RestartablePostgres pg) {
    String url = pg.jdbcUrl();
    return Integer.parseInt(url.substring(url.indexOf("localhost:") + 10, url.indexOf('/', url.indexOf("localhost:"))));
  }

  private static long count(String jdbcUrl) throws Exception {
    try (Connection c = DriverManager.getConnection(jdbcUrl); Statement s = c.createStatement();
        var rs = s.executeQuery("SELECT count(*) FROM segment_ledger_item")) {
      rs.next();
      return rs.getLong(1);
    }
  }

  private static void execute(String jdbcUrl, String... statements) throws Exception {
    try (Connection c = DriverManager.getConnection(jdbcUrl); Statement s = c.createStatement()) {
      for (String sql : statements) {
        s.execute(sql);
      }
    }
  }

  private static void assertWithin(Duration took, Duration bound) {
    assertTrue(took.compareTo(bound) <= 0, "took " + took + ", more than " + bound);
  }
}
