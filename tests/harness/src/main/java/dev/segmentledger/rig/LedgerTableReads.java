package dev.segmentledger.rig;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.sql.Timestamp;
import java.time.Duration;
import java.util.Map;
import java.util.TreeMap;

/**
 * The rows PostgreSQL's own statistics say were read from the ledger's tables of one schema:
 * {@code seq_tup_read + idx_tup_fetch} of {@code pg_stat_user_tables}, summed over the schema's
 * tables whose name starts with {@code segment_ledger_} (the migration history excluded).
 *
 * <p><b>Settled counters.</b> A backend does not publish its counters at once: from PostgreSQL 15
 * on, it flushes them to shared memory at most once a second while busy and within about ten
 * seconds once idle (before 15, it sends them to the statistics collector, which writes them out
 * every half second); {@code pg_stat_force_next_flush()} only concerns the backend that calls it.
 * A backend flushes everything it holds when it exits, before it leaves {@code pg_stat_activity}.
 * So {@link #settled()} closes the ledger's connections and waits for their backends to exit:
 * it notes the server's time, asks the pool to close its connections ({@code closeConnections}: for
 * HikariCP {@code softEvictConnections()}, which closes idle connections now and busy ones when they
 * are returned; the pool opens fresh ones), waits until no backend of the pool's
 * {@code application_name} started before that time remains (polling {@code pg_stat_activity}:
 * the exit of another process gives no event to wait on), discards the statistics snapshot
 * ({@code pg_stat_clear_snapshot()}) and reads the counters. Everything the ledger read before the
 * call is then counted; what its fresh connections read meanwhile is counted by the next call. The
 * pool must therefore give its connections an {@code application_name} no other client uses (the
 * JDBC driver's {@code ApplicationName} property).
 *
 * <p>Holds one connection of its own (not from the ledger's pool; reading the statistics views
 * reads no table of the schema). Not thread-safe; close it.
 */
public final class LedgerTableReads implements AutoCloseable {
  private static final String READS = "SELECT relname, coalesce(seq_tup_read, 0) + coalesce(idx_tup_fetch, 0)"
      + " FROM pg_stat_user_tables WHERE schemaname = ? AND relname LIKE 'segment\\_ledger\\_%'"
      + " AND relname NOT LIKE '%history%'";

  private final Connection monitor;
  private final String schema;
  private final String applicationName;
  private final Runnable closeConnections;
  private final Duration timeout;

  /**
   * @param monitor a connection to the same server, used only by this object (closed by {@link #close})
   * @param schema the ledger's schema
   * @param applicationName the {@code application_name} of every connection of the ledger's pool
   * @param closeConnections closes the pool's connections (idle ones now, busy ones when returned)
   * @param timeout how long {@link #settled()} waits for the old backends to exit
   */
  public LedgerTableReads(Connection monitor, String schema, String applicationName, Runnable closeConnections,
      Duration timeout) {
    this.monitor = monitor;
    this.schema = schema;
    this.applicationName = applicationName;
    this.closeConnections = closeConnections;
    this.timeout = timeout;
  }

  /** The rows read so far from each ledger table, once every backend of the pool flushed its counters. */
  public Map<String, Long> settled() throws SQLException, InterruptedException {
    Timestamp before;
    try (Statement s = monitor.createStatement(); ResultSet rs = s.executeQuery("SELECT clock_timestamp()")) {
      rs.next();
      before = rs.getTimestamp(1);
    }
    closeConnections.run();
    long deadline = System.nanoTime() + timeout.toNanos();
    try (PreparedStatement old = monitor.prepareStatement("SELECT count(*) FROM pg_stat_activity"
        + " WHERE application_name = ? AND backend_start <= ?")) {
      old.setString(1, applicationName);
      old.setTimestamp(2, before);
      while (true) {
        try (ResultSet rs = old.executeQuery()) {
          rs.next();
          if (rs.getLong(1) == 0) {
            break;
          }
        }
        if (System.nanoTime() > deadline) {
          throw new IllegalStateException("backends of " + applicationName + " still running after " + timeout
              + ": is a connection of the pool held by a long call?");
        }
        Thread.sleep(5); // polling another process's exit
      }
    }
    try (Statement s = monitor.createStatement()) {
      s.execute("SELECT pg_stat_clear_snapshot()");
    }
    Map<String, Long> reads = new TreeMap<>();
    try (PreparedStatement s = monitor.prepareStatement(READS)) {
      s.setString(1, schema);
      try (ResultSet rs = s.executeQuery()) {
        while (rs.next()) {
          reads.put(rs.getString(1), rs.getLong(2));
        }
      }
    }
    return reads;
  }

  /** The sum of {@link #settled()} over the tables. */
  public long settledTotal() throws SQLException, InterruptedException {
    return settled().values().stream().mapToLong(Long::longValue).sum();
  }

  @Override
  public void close() throws SQLException {
    monitor.close();
  }
}
