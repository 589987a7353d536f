package dev.segmentledger.jdbi;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.segmentledger.core.Axis;
import dev.segmentledger.core.ItemId;
import dev.segmentledger.core.ItemState;
import dev.segmentledger.core.LedgerItem;
import dev.segmentledger.core.spi.Confirmation;
import dev.segmentledger.core.spi.NewItem;
import dev.segmentledger.core.spi.RegisterResult;
import dev.segmentledger.testkit.PostgresExtension;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.CyclicBarrier;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.jdbi.v3.core.Jdbi;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * Two nodes registering overlapping batches of broadcasts that already have rows, one in ascending
 * and the other in descending order, started together: PostgreSQL detects no deadlock, no
 * exception reaches either caller, and every identity has exactly one row, created by exactly one
 * of them.
 *
 * <p>Each node is a {@link JdbiStateStore} of its own on unpooled connections, as two processes
 * would be. The batches are what {@code Ledger.registerAll} writes with a repackager: per file its
 * ORIGINAL, its rendition's INIT (the same identity again for every file) and a WAITING PLAYBACK
 * row; the INITs of one rendition are confirmed, so that PLAYBACK rows of both kinds are written.
 * The deadlock count is the database's ({@code pg_stat_database.deadlocks}), read once the nodes'
 * sessions have ended and flushed their statistics. The nodes' sessions lower
 * {@code deadlock_timeout} when allowed to (a superuser), only so that a deadlock costs less time
 * to detect: without deadlocks, nothing waits for it.
 */
class RegisterAllDeadlockTest {
  @RegisterExtension
  static final PostgresExtension PG = PostgresExtension.create();

  private static final int TRIES = 100;
  private static final List<String> BROADCASTS = List.of("dl-a", "dl-b", "dl-c", "dl-d");
  private static final List<String> RENDITIONS = List.of("1080p", "720p");
  /** The rendition whose INIT is confirmed: its PLAYBACK rows are inserted PENDING. */
  private static final String CONFIRMED_RENDITION = "720p";
  private static final int SEQUENCES_PER_TRY = 80;
  /** Files per node per try: three rows each, 1,500 rows per batch. */
  private static final int FILES_PER_NODE = 500;
  private static final String APPLICATION_NAME = "segment-ledger-deadlock-test";
  private static final Instant T0 = Instant.parse("2026-01-01T00:00:00Z");

  @Test
  void overlappingBatchesInOppositeOrdersNeverDeadlock() throws Exception {
    JdbiStateStore setup = JdbiStateStore.create(Jdbi.create(PG.dataSource())).migrate();
    Set<ItemId> existing = registerEarlierRows(setup);
    boolean fastDetection = isSuperuser();
    JdbiStateStore ascendingNode = JdbiStateStore.create(nodeJdbi(fastDetection));
    JdbiStateStore descendingNode = JdbiStateStore.create(nodeJdbi(fastDetection));

    List<List<NewItem>> ascending = new ArrayList<>();
    List<List<NewItem>> descending = new ArrayList<>();
    List<Set<ItemId>> fresh = new ArrayList<>();
    for (int t = 0; t < TRIES; t++) {
      List<List<NewItem>> files = filesOfTry(t);
      List<NewItem> up = new ArrayList<>();
      files.subList(0, FILES_PER_NODE).forEach(up::addAll);
      List<List<NewItem>> down = new ArrayList<>(files.subList(files.size() - FILES_PER_NODE, files.size()));
      Collections.reverse(down);
      ascending.add(up);
      descending.add(down.stream().flatMap(List::stream).toList());
      Set<ItemId> ids = new HashSet<>();
      files.forEach(file -> file.forEach(row -> ids.add(row.id())));
      ids.removeAll(existing);
      existing.addAll(ids);
      fresh.add(ids);
    }

    long deadlocksBefore = settledDeadlocks();
    long started = System.nanoTime();
    CyclicBarrier together = new CyclicBarrier(2);
    ConcurrentLinkedQueue<Throwable> failures = new ConcurrentLinkedQueue<>();
    List<AtomicInteger> createdPerTry = new ArrayList<>();
    for (int t = 0; t < TRIES; t++) {
      createdPerTry.add(new AtomicInteger());
    }
    ExecutorService nodes = Executors.newFixedThreadPool(2);
    try {
      List<Future<?>> runs = List.of(
          nodes.submit(() -> run(ascendingNode, ascending, together, failures, createdPerTry)),
          nodes.submit(() -> run(descendingNode, descending, together, failures, createdPerTry)));
      for (Future<?> run : runs) {
        run.get(5, TimeUnit.MINUTES);
      }
    } finally {
      nodes.shutdownNow();
    }
    Duration took = Duration.ofNanos(System.nanoTime() - started);
    long deadlocks = settledDeadlocks() - deadlocksBefore;
    System.out.printf("RegisterAllDeadlockTest: %d tries of 2 x %d rows in %d ms, %d deadlocks, %d failed calls%s%n",
        TRIES, ascending.get(0).size(), took.toMillis(), deadlocks, failures.size(),
        fastDetection ? " (deadlock_timeout 100ms)" : "");

    assertEquals(List.of(), failures.stream().map(Throwable::toString).distinct().toList(),
        "no exception reaches a caller");
    assertEquals(0, deadlocks, "deadlocks detected by PostgreSQL (pg_stat_database.deadlocks)");
    for (int t = 0; t < TRIES; t++) {
      assertEquals(fresh.get(t).size(), createdPerTry.get(t).get(), "try " + t + ": each new identity created once");
    }
    List<LedgerItem> rows = new ArrayList<>();
    BROADCASTS.forEach(broadcast -> rows.addAll(setup.findByBroadcast(broadcast)));
    assertEquals(existing, new HashSet<>(rows.stream().map(LedgerItem::id).toList()), "every identity has a row");
    assertEquals(existing.size(), rows.size(), "every identity has exactly one row");
    for (LedgerItem row : rows) {
      if (row.id().axis() == Axis.PLAYBACK) {
        ItemState expected = row.id().rendition().equals(CONFIRMED_RENDITION) ? ItemState.PENDING : ItemState.WAITING;
        assertEquals(expected, row.state(), row.id().toString());
      }
    }
  }

  /**
   * One node: at each try, waits for the other, registers its batch and checks the results are in
   * its order. Records what reaches it instead of stopping, so that every try runs.
   */
  private static void run(JdbiStateStore node, List<List<NewItem>> batches, CyclicBarrier together,
      ConcurrentLinkedQueue<Throwable> failures, List<AtomicInteger> createdPerTry) {
    for (int t = 0; t < batches.size(); t++) {
      List<NewItem> batch = batches.get(t);
      try {
        together.await(1, TimeUnit.MINUTES);
        List<RegisterResult> results = node.registerAll(batch);
        assertEquals(batch.size(), results.size());
        for (int i = 0; i < batch.size(); i++) {
          assertEquals(batch.get(i).id(), results.get(i).item().id(), "result " + i + " in the caller's order");
        }
        createdPerTry.get(t).addAndGet((int) results.stream().filter(RegisterResult::created).count());
      } catch (Throwable e) {
        failures.add(e);
      }
    }
  }

  /**
   * The files of try {@code t}, in ascending (broadcast, rendition, sequence) order, each as the
   * rows a registration with a repackager writes.
   */
  private static List<List<NewItem>> filesOfTry(int t) {
    List<List<NewItem>> files = new ArrayList<>();
    for (String broadcast : BROADCASTS) {
      for (String rendition : RENDITIONS) {
        for (int s = 0; s < SEQUENCES_PER_TRY; s++) {
          files.add(rowsOfFile(broadcast, rendition, 1 + (long) t * SEQUENCES_PER_TRY + s));
        }
      }
    }
    return files;
  }

  private static List<NewItem> rowsOfFile(String broadcast, String rendition, long sequence) {
    String path = "/rec/" + broadcast + "/" + rendition + "/" + sequence + ".ts";
    return List.of(
        NewItem.pending(ItemId.original(broadcast, rendition, sequence), path, 1000 + sequence, T0),
        NewItem.derived(ItemId.init(broadcast, rendition), "/pb/" + broadcast + "/" + rendition + "/init.mp4", path,
            T0),
        NewItem.derived(ItemId.playback(broadcast, rendition, sequence),
            "/pb/" + broadcast + "/" + rendition + "/" + sequence + ".m4s", path, T0));
  }

  /** Segment 0 of every broadcast and rendition, with its INIT (confirmed for one rendition). */
  private static Set<ItemId> registerEarlierRows(JdbiStateStore store) {
    Set<ItemId> ids = new HashSet<>();
    for (String broadcast : BROADCASTS) {
      for (String rendition : RENDITIONS) {
        for (RegisterResult result : store.registerAll(rowsOfFile(broadcast, rendition, 0))) {
          ids.add(result.item().id());
          LedgerItem row = result.item();
          if (row.id().axis() == Axis.INIT && rendition.equals(CONFIRMED_RENDITION)) {
            assertTrue(store.recordProduced(row.rowId(), ItemState.PENDING, LedgerItem.UNKNOWN_SIZE, "/pb/init", 5,
                Duration.ZERO));
            assertTrue(store.confirm(new Confirmation(row.rowId(), row.id(),
                ItemState.PENDING, 5, "c", T0)));
          }
        }
      }
    }
    return ids;
  }

  /** A node's Jdbi: a new session per handle, named so that the test can wait for them to end. */
  private static Jdbi nodeJdbi(boolean fastDetection) {
    return Jdbi.create(() -> {
      Connection connection = PG.dataSource().getConnection();
      try (Statement statement = connection.createStatement()) {
        statement.execute("SET application_name = '" + APPLICATION_NAME + "'");
        if (fastDetection) {
          statement.execute("SET deadlock_timeout = '100ms'");
        }
      } catch (SQLException e) {
        connection.close();
        throw e;
      }
      return connection;
    });
  }

  private static boolean isSuperuser() throws SQLException {
    try (Connection connection = PG.dataSource().getConnection(); Statement statement = connection.createStatement();
        ResultSet rs = statement.executeQuery("SELECT current_setting('is_superuser') = 'on'")) {
      rs.next();
      return rs.getBoolean(1);
    }
  }

  /**
   * The database's deadlock count once every node session has ended: a session reports its
   * statistics when it ends at the latest, and PostgreSQL 15 and later make them visible at once
   * ({@code pg_stat_force_next_flush()} flushes this session's own; before 15 the count settles
   * within the collector's interval, so it is read until it holds still).
   */
  private static long settledDeadlocks() throws Exception {
    try (Connection connection = PG.dataSource().getConnection(); Statement statement = connection.createStatement()) {
      long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
      while (queryLong(statement, "SELECT count(*) FROM pg_stat_activity WHERE application_name = '"
          + APPLICATION_NAME + "'") > 0) {
        if (System.nanoTime() > deadline) {
          throw new AssertionError("the node sessions did not end within 30 s");
        }
        Thread.sleep(20);
      }
      boolean flushable = queryLong(statement,
          "SELECT count(*) FROM pg_proc WHERE proname = 'pg_stat_force_next_flush'") > 0;
      String read = "SELECT deadlocks FROM pg_stat_database WHERE datname = current_database()";
      if (flushable) {
        statement.execute("SELECT pg_stat_force_next_flush()");
        statement.execute("SELECT pg_stat_clear_snapshot()");
        return queryLong(statement, read);
      }
      long previous = -1;
      for (int stable = 0; stable < 5; ) {
        statement.execute("SELECT pg_stat_clear_snapshot()");
        long current = queryLong(statement, read);
        stable = current == previous ? stable + 1 : 0;
        previous = current;
        Thread.sleep(200);
      }
      return previous;
    }
  }

  private static long queryLong(Statement statement, String sql) throws SQLException {
    try (ResultSet rs = statement.executeQuery(sql)) {
      rs.next();
      return rs.getLong(1);
    }
  }
}
