package dev.segmentledger.jdbi;

import java.sql.SQLException;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.function.Supplier;
import java.util.function.ToLongFunction;
import org.jdbi.v3.core.JdbiException;

/**
 * Runs a transaction again when PostgreSQL aborted it as a deadlock victim (SQLSTATE 40P01).
 * Batches that lock several rows (a registration, a batched confirm) can meet other batches in
 * another order; the database breaks the cycle by aborting one of them, which has then changed
 * nothing and can simply run again. Registrations insert in one global order, and batched confirms
 * and lease renewals update their rows in row-id order ({@link #inRowOrder}), so none of them meets
 * another that way; this is the safety net for what remains (a registration holding an INIT row
 * {@code FOR SHARE} while it waits for a batched confirm that wants that INIT). What still
 * fails after {@value #ATTEMPTS} attempts reaches the caller (as a
 * {@link dev.segmentledger.core.StoreException} from a registration). Stateless; thread-safe.
 */
final class Deadlocks {
  static final int ATTEMPTS = 3;
  private static final String DEADLOCK_DETECTED = "40P01";

  private Deadlocks() {}

  /**
   * The entries of a batch in ascending row id, the order in which its {@code UPDATE ... FROM
   * unnest(...)} then locks their rows: two batches over the same rows (a heartbeat's renewals and
   * a confirmer's confirms, each gathered in its own order) wait for each other in one order and so
   * never deadlock. A new list; the given one is left as it is.
   */
  static <T> List<T> inRowOrder(List<T> entries, ToLongFunction<T> rowId) {
    List<T> ordered = new ArrayList<>(entries);
    ordered.sort(Comparator.comparingLong(rowId));
    return ordered;
  }

  static <T> T retry(Supplier<T> transaction) {
    for (int attempt = 1; ; attempt++) {
      try {
        return transaction.get();
      } catch (JdbiException e) {
        if (attempt >= ATTEMPTS || !isDeadlock(e)) {
          throw e;
        }
      }
    }
  }

  static boolean isDeadlock(Throwable e) {
    for (Throwable cause = e; cause != null; cause = cause.getCause()) {
      if (cause instanceof SQLException sql && DEADLOCK_DETECTED.equals(sql.getSQLState())) {
        return true;
      }
    }
    return false;
  }
}
