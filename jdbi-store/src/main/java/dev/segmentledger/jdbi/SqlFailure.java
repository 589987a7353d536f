package dev.segmentledger.jdbi;

import java.sql.SQLException;
import org.jdbi.v3.core.JdbiException;

/**
 * A {@link SQLException} of a {@link PlainStatement}, unchecked and of Jdbi's exception type, so
 * that it is retried, described and wrapped exactly as a failure of a Jdbi statement
 * ({@link Deadlocks}, {@link StoreFailures}).
 */
final class SqlFailure extends JdbiException {
  private static final long serialVersionUID = 1L;

  SqlFailure(SQLException cause) {
    super(cause.getMessage(), cause);
  }
}
