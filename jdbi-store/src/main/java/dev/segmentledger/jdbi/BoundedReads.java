package dev.segmentledger.jdbi;

import dev.segmentledger.core.QueryTimeoutException;
import java.sql.SQLException;
import java.time.Duration;
import java.util.Objects;
import org.jdbi.v3.core.Handle;
import org.jdbi.v3.core.HandleCallback;
import org.jdbi.v3.core.Jdbi;
import org.jdbi.v3.core.JdbiException;

/**
 * How the operator reads of a store run: unbounded, or under a statement timeout that ends with the
 * read ({@link JdbiStateStore#withReadTimeout}). A read that the server cancels for its bound
 * becomes a {@link QueryTimeoutException}. Stateless over its {@link Jdbi}; thread-safe.
 */
final class BoundedReads {
  /** SQLSTATE {@code query_canceled}: what a statement timeout ends a statement with. */
  private static final String QUERY_CANCELED = "57014";

  /** The savepoint a read inside a caller's transaction runs under. */
  private static final String SAVEPOINT = "segment_ledger_bounded_read";

  private final Jdbi jdbi;
  private final Duration timeout;

  /** Reads on {@code jdbi} cancelled after {@code timeout} ({@code null}: never). */
  BoundedReads(Jdbi jdbi, Duration timeout) {
    this.jdbi = Objects.requireNonNull(jdbi, "jdbi");
    this.timeout = timeout;
  }

  /**
   * Runs one read. Without a bound, on a handle as Jdbi gives it. With one: on a handle of its own, in
   * a transaction of its own that first sets {@code statement_timeout} for itself only ({@code SET
   * LOCAL}: the connection goes back to its pool as it came); on the handle of a transaction the
   * caller holds on this thread (Jdbi hands it over), under a savepoint that is rolled back after the
   * read, cancelled or not, which undoes the {@code SET LOCAL} and leaves the caller's transaction
   * as it was, usable (the read wrote nothing).
   */
  <R> R read(HandleCallback<R, RuntimeException> callback) {
    if (timeout == null) {
      return jdbi.withHandle(callback);
    }
    try {
      return jdbi.withHandle(handle -> handle.isInTransaction() ? underSavepoint(handle, callback)
          : handle.inTransaction(h -> {
            setTimeout(h);
            return callback.withHandle(h);
          }));
    } catch (JdbiException e) {
      SQLException sql = StoreFailures.firstSqlException(e);
      if (sql != null && QUERY_CANCELED.equals(sql.getSQLState())) {
        throw new QueryTimeoutException("the read took longer than its bound of " + timeout.toMillis()
            + " ms and was cancelled", e, timeout);
      }
      throw e;
    }
  }

  private <R> R underSavepoint(Handle handle, HandleCallback<R, RuntimeException> callback) {
    handle.execute("SAVEPOINT " + SAVEPOINT);
    try {
      setTimeout(handle);
      return callback.withHandle(handle);
    } finally {
      handle.execute("ROLLBACK TO SAVEPOINT " + SAVEPOINT);
      handle.execute("RELEASE SAVEPOINT " + SAVEPOINT);
    }
  }

  private void setTimeout(Handle handle) {
    handle.execute("SET LOCAL statement_timeout = " + Math.max(1, timeout.toMillis()));
  }
}
