package dev.segmentledger.jdbi;

import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import javax.sql.DataSource;

/**
 * Waits on what PostgreSQL says of its sessions ({@code pg_stat_activity}), so that a test waits
 * for the event itself (a session waiting on a lock, a commit sleeping in its trigger), never for a
 * time. Each look is a statement of its own in autocommit: a transaction would see the activity as
 * it was at its first look.
 */
final class ServerSessions {
  private ServerSessions() {}

  /**
   * Returns once some session matches {@code where} (a condition on {@code pg_stat_activity});
   * fails naming {@code what} after {@code timeout}.
   */
  static void await(DataSource database, String where, Duration timeout, String what) {
    long deadline = System.nanoTime() + timeout.toNanos();
    try (Connection connection = database.getConnection(); Statement statement = connection.createStatement()) {
      connection.setAutoCommit(true);
      while (true) {
        try (ResultSet rs = statement.executeQuery("SELECT count(*) FROM pg_stat_activity WHERE " + where)) {
          rs.next();
          if (rs.getInt(1) > 0) {
            return;
          }
        }
        if (System.nanoTime() > deadline) {
          throw new AssertionError("timed out after " + timeout.toSeconds() + " s waiting for " + what);
        }
        Thread.onSpinWait();
      }
    } catch (SQLException e) {
      throw new IllegalStateException("reading pg_stat_activity failed", e);
    }
  }
}
