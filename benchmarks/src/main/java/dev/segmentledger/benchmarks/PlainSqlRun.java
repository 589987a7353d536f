package dev.segmentledger.benchmarks;

import java.sql.Array;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.sql.Timestamp;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ArrayBlockingQueue;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.atomic.AtomicInteger;
import javax.sql.DataSource;

/**
 * The references the ledger's throughput is compared with: plain JDBC writing the items on the
 * ledger's own table (a fresh schema made by {@code JdbiStateStore.migrate()}, all its indexes),
 * with the same pool and threads as the ledger's run. {@code inserters} threads insert the rows
 * {@value #BATCH} at a time and hand the new ids to {@code updaters} threads, which mark them done.
 * No file is read, no sink called, no lease, no listener. Two ways ({@link Kind}):
 *
 * <ul>
 *   <li>{@link Kind#SET_BASED_CEILING}, the minimum SQL per item: one multi-row {@code INSERT} of the
 *       batch ({@code INSERT ... SELECT FROM unnest(arrays) RETURNING id}) and one {@code UPDATE} of the
 *       batch's rows by their whole key ({@code (id, broadcast_id)} from two arrays) and expected state,
 *       each its own transaction: two commits per {@value #BATCH} items. What the ledger's goals compare
 *       with. Its connections get the ledger's plan settings ({@link #KEYED_PLANS}) once per session
 *       instead of once per statement, so the ceiling's plan is the primary-key lookup whatever the
 *       fresh table's statistics. Without them, on this table without statistics, a custom plan of
 *       {@code WHERE broadcast_id = ? AND id = ANY(?) AND state = 'PENDING'} was a bitmap AND of the
 *       partial due index and the identity index, reading every dead entry of the run so far (14 to 76
 *       ms per batch of 100 at 100,000 rows, against 0.9 ms through the primary key), and a generic plan
 *       made on the still empty table scanned the identity index for the whole broadcast.
 *   <li>{@link Kind#PER_ROW_FLOOR}: a JDBC batch of single-row inserts (one transaction), and one
 *       conditional {@code UPDATE ... WHERE id = ? AND state = 'PENDING'} per row, batched by
 *       {@value #BATCH} in one transaction: a floor, a statement per row, kept for comparison with
 *       earlier runs.
 * </ul>
 */
final class PlainSqlRun {
  static final int BATCH = 100;

  /** How the rows are written. */
  enum Kind {
    SET_BASED_CEILING("ceiling"),
    PER_ROW_FLOOR("per_row_floor");

    private final String label;

    Kind(String label) {
      this.label = label;
    }

    /** The name of this reference in the results. */
    String label() {
      return label;
    }
  }

  static final String COLUMNS = "broadcast_id, axis, rendition, sequence, source_path, size_bytes, state,"
      + " registered_at, next_attempt_at";
  static final String INSERT_ROW = "INSERT INTO segment_ledger_item (" + COLUMNS + ") VALUES (?, 'ORIGINAL', '720p',"
      + " ?, ?, ?, 'PENDING', ?, ?)";
  static final String CONFIRM_ROW = "UPDATE segment_ledger_item SET state = 'CONFIRMED', confirmed_at = ?"
      + " WHERE id = ? AND state = 'PENDING'";
  static final String INSERT_BATCH = "INSERT INTO segment_ledger_item (" + COLUMNS + ") SELECT ?, 'ORIGINAL', '720p',"
      + " v.sequence, v.source_path, ?, 'PENDING', ?, ? FROM unnest(?::bigint[], ?::text[]) AS v(sequence, source_path)"
      + " RETURNING id";
  static final String CONFIRM_BATCH = "UPDATE segment_ledger_item t SET state = 'CONFIRMED', confirmed_at = ?"
      + " FROM unnest(?::bigint[], ?::varchar[]) AS v(id, broadcast_id)"
      + " WHERE t.id = v.id AND t.broadcast_id = v.broadcast_id AND t.state = ?";
  /** The ledger's plan settings (jdbi-store's {@code Sql.KEYED_PLANS}), once per connection of the ceiling. */
  static final String KEYED_PLANS = "SET plan_cache_mode = force_generic_plan; SET enable_seqscan = off;"
      + " SET enable_hashjoin = off; SET enable_mergejoin = off";

  private PlainSqlRun() {}

  /** Items per second from the first insert to the last committed update. */
  static double run(Kind kind, DataSource dataSource, String broadcastId, List<String> sourcePaths, long size,
      int inserters, int updaters) throws Exception {
    int items = sourcePaths.size();
    BlockingQueue<long[]> handOff = new ArrayBlockingQueue<>(Math.max(1, items / BATCH + updaters));
    AtomicInteger names = new AtomicInteger();
    ExecutorService pool = Executors.newFixedThreadPool(inserters + updaters,
        r -> new Thread(r, "bench-sql-" + names.incrementAndGet()));
    long start = System.nanoTime();
    try {
      List<Future<?>> insertsDone = new ArrayList<>();
      for (int t = 0; t < inserters; t++) {
        int first = t * BATCH;
        insertsDone.add(pool.submit(() -> {
          try (Connection c = connection(dataSource, kind)) {
            for (int from = first; from < items; from += inserters * BATCH) {
              int to = Math.min(from + BATCH, items);
              handOff.put(kind == Kind.SET_BASED_CEILING
                  ? insertSetBased(c, broadcastId, sourcePaths, from, to, size)
                  : insertPerRow(c, broadcastId, sourcePaths, from, to, size));
            }
          }
          return null;
        }));
      }
      List<Future<?>> updatesDone = new ArrayList<>();
      for (int t = 0; t < updaters; t++) {
        updatesDone.add(pool.submit(() -> {
          try (Connection c = connection(dataSource, kind)) {
            for (long[] ids = handOff.take(); ids.length > 0; ids = handOff.take()) {
              if (kind == Kind.SET_BASED_CEILING) {
                confirmSetBased(c, broadcastId, ids);
              } else {
                confirmPerRow(c, ids);
              }
            }
          }
          return null;
        }));
      }
      for (Future<?> f : insertsDone) {
        f.get();
      }
      for (int t = 0; t < updaters; t++) {
        handOff.put(new long[0]); // one end marker per updater
      }
      for (Future<?> f : updatesDone) {
        f.get();
      }
      return items * 1e9 / (System.nanoTime() - start);
    } finally {
      pool.shutdownNow();
    }
  }

  private static Connection connection(DataSource dataSource, Kind kind) throws SQLException {
    Connection c = dataSource.getConnection();
    if (kind == Kind.SET_BASED_CEILING) {
      try (Statement s = c.createStatement()) {
        s.execute(KEYED_PLANS); // the pool is closed with its schema after the run
      } catch (SQLException e) {
        c.close();
        throw e;
      }
    }
    return c;
  }

  /**
   * The plan PostgreSQL makes for the ceiling's confirm of a batch on the table as it is now, with the
   * ceiling's setting (the generic plan of a prepared statement), for the conditions.
   */
  static String confirmPlan(DataSource dataSource, String broadcastId) throws SQLException {
    try (Connection c = connection(dataSource, Kind.SET_BASED_CEILING); Statement s = c.createStatement()) {
      s.execute("PREPARE ceiling_confirm (timestamptz, bigint[], varchar[], text) AS " + numbered(CONFIRM_BATCH));
      List<String> lines = new ArrayList<>();
      try (ResultSet rs = s.executeQuery("EXPLAIN EXECUTE ceiling_confirm (now(), '{1,2,3}', '{" + broadcastId + ","
          + broadcastId + "," + broadcastId + "}', 'PENDING')")) {
        while (rs.next()) {
          lines.add(rs.getString(1).strip());
        }
      }
      s.execute("DEALLOCATE ceiling_confirm");
      return String.join(" / ", lines);
    }
  }

  /** {@code sql} with its {@code ?} placeholders numbered {@code $1, $2, ...}, for a server-side PREPARE. */
  private static String numbered(String sql) {
    StringBuilder out = new StringBuilder();
    int n = 0;
    for (char ch : sql.toCharArray()) {
      out.append(ch == '?' ? "$" + ++n : String.valueOf(ch));
    }
    return out.toString();
  }

  private static long[] insertSetBased(Connection c, String broadcastId, List<String> paths, int from, int to,
      long size) throws SQLException {
    long[] sequences = new long[to - from];
    for (int i = from; i < to; i++) {
      sequences[i - from] = i;
    }
    Timestamp now = Timestamp.from(Instant.now());
    Array pathArray = c.createArrayOf("text", paths.subList(from, to).toArray());
    try (PreparedStatement insert = c.prepareStatement(INSERT_BATCH)) {
      insert.setString(1, broadcastId);
      insert.setLong(2, size);
      insert.setTimestamp(3, now);
      insert.setTimestamp(4, now);
      insert.setObject(5, sequences);
      insert.setArray(6, pathArray);
      long[] ids = new long[to - from];
      try (ResultSet keys = insert.executeQuery()) { // autocommit: one transaction
        for (int k = 0; keys.next(); k++) {
          ids[k] = keys.getLong(1);
        }
      }
      return ids;
    } finally {
      pathArray.free();
    }
  }

  private static void confirmSetBased(Connection c, String broadcastId, long[] ids) throws SQLException {
    String[] broadcasts = new String[ids.length];
    java.util.Arrays.fill(broadcasts, broadcastId);
    Array broadcastArray = c.createArrayOf("varchar", broadcasts);
    try (PreparedStatement confirm = c.prepareStatement(CONFIRM_BATCH)) {
      confirm.setTimestamp(1, Timestamp.from(Instant.now()));
      confirm.setObject(2, ids);
      confirm.setArray(3, broadcastArray);
      confirm.setString(4, "PENDING");
      int updated = confirm.executeUpdate(); // autocommit: one transaction
      if (updated != ids.length) {
        throw new IllegalStateException("confirmed " + updated + " of " + ids.length + " rows");
      }
    } finally {
      broadcastArray.free();
    }
  }

  private static long[] insertPerRow(Connection c, String broadcastId, List<String> paths, int from, int to,
      long size) throws SQLException {
    c.setAutoCommit(false);
    try (PreparedStatement insert = c.prepareStatement(INSERT_ROW, new String[] {"id"})) {
      Timestamp now = Timestamp.from(Instant.now());
      for (int i = from; i < to; i++) {
        insert.setString(1, broadcastId);
        insert.setLong(2, i);
        insert.setString(3, paths.get(i));
        insert.setLong(4, size);
        insert.setTimestamp(5, now);
        insert.setTimestamp(6, now);
        insert.addBatch();
      }
      insert.executeBatch();
      long[] ids = new long[to - from];
      try (ResultSet keys = insert.getGeneratedKeys()) {
        for (int k = 0; keys.next(); k++) {
          ids[k] = keys.getLong(1);
        }
      }
      c.commit();
      return ids;
    } finally {
      c.setAutoCommit(true);
    }
  }

  private static void confirmPerRow(Connection c, long[] ids) throws SQLException {
    c.setAutoCommit(false);
    try (PreparedStatement confirm = c.prepareStatement(CONFIRM_ROW)) {
      Timestamp now = Timestamp.from(Instant.now());
      for (long id : ids) {
        confirm.setTimestamp(1, now);
        confirm.setLong(2, id);
        confirm.addBatch();
      }
      confirm.executeBatch();
      c.commit();
    } finally {
      c.setAutoCommit(true);
    }
  }
}
