package dev.segmentledger.it;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.zaxxer.hikari.HikariDataSource;
import dev.segmentledger.core.Axis;
import dev.segmentledger.core.ItemId;
import dev.segmentledger.core.ItemState;
import dev.segmentledger.core.Ledger;
import dev.segmentledger.core.LedgerItem;
import dev.segmentledger.core.LedgerListener;
import dev.segmentledger.core.StoredObjectInfo;
import dev.segmentledger.jdbi.JdbiStateStore;
import dev.segmentledger.testkit.ConsistencyAssertions;
import dev.segmentledger.testkit.FakeObjectSink;
import dev.segmentledger.testkit.FakeRepackager;
import dev.segmentledger.testkit.LedgerEvents;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Consumer;
import org.jdbi.v3.core.Jdbi;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Database faults under a running ledger, on a PostgreSQL server of the test's own
 * ({@link RestartablePostgres}) reached through a connection pool, as in production: the server
 * restarted in the middle of a run, and every connection's backend terminated while the ledger
 * confirms. Workers pause while the store throws (failed attempts are logged, rows stay PENDING
 * and leased until the lease expires) and resume when it answers again. Checked: every item
 * confirmed, no row's confirm applied (a compare-and-set returning true) more than once, and the
 * ledger and the bucket agree.
 */
class DatabaseFaultsTest {
  private static final int ITEMS = 300;
  private static final String BROADCAST = "dbfaults";

  @TempDir Path temp;

  @Test
  void postgresRestartedMidRunNoRowLostNoConfirmTwice() throws Exception {
    try (RestartablePostgres pg = RestartablePostgres.start(temp.resolve("pgdata"))) {
      Run run = new Run(pg, null);
      run.events.awaitUntil(ITEMS / 4 + " confirmed before the restart", () -> run.confirms() >= ITEMS / 4,
          Duration.ofSeconds(60));
      int confirmedAtRestart = run.confirms();
      pg.restart();
      // Rows of every axis count: 2 per item (ORIGINAL, PLAYBACK) and one INIT. The confirms go on
      // while the server shuts down, so only those counted before the restart began are compared.
      assertTrue(confirmedAtRestart < 2 * ITEMS + 1, "restarted mid-run: " + confirmedAtRestart + " confirmed");
      run.finish("restart after " + confirmedAtRestart + " confirms");
    }
  }

  @Test
  void connectionsDroppedWhileConfirmingNoRowLostNoConfirmTwice() throws Exception {
    try (RestartablePostgres pg = RestartablePostgres.start(temp.resolve("pgdata"));
        Connection side = DriverManager.getConnection(pg.jdbcUrl())) {
      AtomicInteger stored = new AtomicInteger();
      AtomicInteger terminated = new AtomicInteger();
      // Every 60th PUT: cut every other backend, the pooled connection the coming confirm uses included.
      Run run = new Run(pg, item -> {
        if (stored.incrementAndGet() % 60 == 0) {
          terminated.addAndGet(terminateOtherBackends(side));
        }
      });
      run.finish("backends terminated at every 60th PUT, before its confirm");
      System.out.println("database faults: " + terminated + " backends terminated while confirming");
      assertTrue(terminated.get() > 0, "backends were terminated");
    }
  }

  private static int terminateOtherBackends(Connection side) {
    try (Statement statement = side.createStatement();
        ResultSet killed = statement.executeQuery("SELECT count(*) FILTER (WHERE pg_terminate_backend(pid))"
            + " FROM pg_stat_activity WHERE pid <> pg_backend_pid() AND datname = current_database()")) {
      killed.next();
      return killed.getInt(1);
    } catch (SQLException e) {
      throw new IllegalStateException(e);
    }
  }

  /** A started ledger over {@link #ITEMS} registered items, counting confirms per row. */
  private final class Run {
    final LedgerEvents events = new LedgerEvents();
    final Map<Long, AtomicInteger> confirmsPerRow = new ConcurrentHashMap<>();
    final FakeObjectSink sink = new FakeObjectSink().setLatency(Duration.ofMillis(5));
    final HikariDataSource pool;
    final JdbiStateStore store;
    final Ledger ledger;
    /** Registration is the recorder's call and throws while the database is unreachable: faults start after it. */
    volatile boolean registered;

    Run(RestartablePostgres pg, Consumer<LedgerItem> beforeConfirm) throws Exception {
      pool = Wiring.pool(pg.jdbcUrl(), null, null, 4);
      store = JdbiStateStore.create(Jdbi.create(pool)).migrate();
      Path root = Files.createDirectories(temp.resolve("root")).toRealPath();
      ledger = Wiring.ledger(store, sink, root, new FakeRepackager(), events)
          .listener(new LedgerListener() {
            @Override
            public void onStored(LedgerItem item, StoredObjectInfo object) {
              if (beforeConfirm != null && registered) {
                beforeConfirm.accept(item);
              }
            }

            @Override
            public void onConfirmed(LedgerItem item) {
              confirmsPerRow.computeIfAbsent(item.rowId(), id -> new AtomicInteger()).incrementAndGet();
            }
          })
          .build();
      // Registered before the ledger starts: every upload, and so every fault, comes after it,
      // however fast the uploads are.
      for (int i = 0; i < ITEMS; i++) {
        ItemId id = ItemId.original(BROADCAST, "720p", i);
        ledger.register(id, Wiring.record(root, id));
      }
      registered = true;
      ledger.start();
    }

    /** Confirmed rows in the store; -1 while the query fails (the test's connections are cut too). */
    long confirmedRows() {
      try {
        return store.findByBroadcast(BROADCAST).stream().filter(r -> r.state() == ItemState.CONFIRMED).count();
      } catch (RuntimeException e) {
        return -1;
      }
    }

    int confirms() {
      return confirmsPerRow.values().stream().mapToInt(AtomicInteger::get).sum();
    }

    /** Waits for every row to be confirmed, closes the ledger and checks the run. */
    void finish(String what) throws Exception {
      long rows = 2L * ITEMS + 1;
      try {
        events.awaitUntil("all " + rows + " rows confirmed after " + what,
            () -> confirmedRows() == rows, Duration.ofSeconds(90));
      } finally {
        ledger.close();
      }
      List<LedgerItem> all = store.findByBroadcast(BROADCAST);
      Map<Long, Integer> doubled = new ConcurrentHashMap<>();
      confirmsPerRow.forEach((row, n) -> {
        if (n.get() != 1) {
          doubled.put(row, n.get());
        }
      });
      int puts = sink.putCount();
      System.out.printf("database faults (%s): %d rows, %d confirmed, %d confirm events, %d rows confirmed twice,"
              + " %d PUTs%n", what, all.size(), all.stream().filter(r -> r.state() == ItemState.CONFIRMED).count(),
          confirms(), doubled.size(), puts);
      assertEquals(rows, all.size(), "rows");
      assertEquals(ITEMS, all.stream().filter(r -> r.id().axis() == Axis.ORIGINAL).count(), "originals");
      assertEquals(Map.of(), doubled, "a row's confirm applied more than once");
      // A confirm whose commit reached the server but whose answer was cut is applied without an
      // event (the worker sees an error, the next attempt finds the row CONFIRMED): never more than rows.
      assertTrue(confirmsPerRow.size() <= rows, "confirm events " + confirmsPerRow.size() + " > rows " + rows);
      ConsistencyAssertions.assertConsistent(store, sink, BROADCAST);
      pool.close();
    }
  }
}
