package dev.segmentledger.jdbi;

import dev.segmentledger.core.StoreException;
import dev.segmentledger.core.StoreException.Outcome;
import java.sql.SQLException;
import org.jdbi.v3.core.ConnectionException;
import org.jdbi.v3.core.JdbiException;

/**
 * Decides what a failed call may have written, from where it failed and from PgJDBC's exceptions
 * and SQLSTATEs, and turns the failure into the SPI's {@link StoreException} with that
 * {@link Outcome}. Stateless; thread-safe.
 *
 * <p>Design note. Nothing is written unless a commit reaches the server: a transaction whose
 * connection breaks before its {@code COMMIT} is sent is rolled back by the server, whatever the
 * statements it ran. So a failure is {@link Outcome#NOT_WRITTEN} when
 *
 * <ul>
 *   <li>no connection was obtained (Jdbi's {@link ConnectionException}: the pool's connection
 *       timeout, no server answering, none of the hosts of a multi-host URL a primary);
 *   <li>it happened inside a transaction before its commit was sent ({@code commitSent} false);
 *   <li>the server answered the commit, or a statement that commits by itself, with an error (any
 *       SQLSTATE but those below): the transaction was rolled back.
 * </ul>
 *
 * It is {@link Outcome#UNKNOWN} when the commit (or a statement in autocommit) was sent and the
 * connection broke or the session was ended before the answer: SQLSTATE class {@code 08}
 * (connection exception; PgJDBC's I/O errors and socket timeouts are {@code 08006}), class
 * {@code 57P} ({@code 57P01} admin shutdown, {@code 57P02} crash shutdown, {@code 57P03} cannot
 * connect now: a fast shutdown or a failover ends a session that waits for its commit to be
 * replicated, after the commit was written locally), or no SQLSTATE at all. A server that commits
 * and then loses the connection is indistinguishable from one that did not, hence unknown.
 */
final class StoreFailures {
  private StoreFailures() {}

  /** The {@link StoreException} for {@code e}, a failure of {@code what}, with its outcome and cause. */
  static StoreException of(String what, JdbiException e, boolean commitSent) {
    Outcome outcome = outcome(e, commitSent);
    return new StoreException(what + " failed in PostgreSQL: " + describe(e) + " ("
        + explain(e, commitSent, outcome) + ")", e, outcome);
  }

  /** What {@code e} may have written; {@code commitSent}: the commit, or a statement in autocommit, was sent. */
  static Outcome outcome(Throwable e, boolean commitSent) {
    if (e instanceof ConnectionException || !commitSent) {
      return Outcome.NOT_WRITTEN;
    }
    return connectionLost(e) ? Outcome.UNKNOWN : Outcome.NOT_WRITTEN;
  }

  /** Whether {@code e} says the connection broke or the session ended, rather than an error answer. */
  static boolean connectionLost(Throwable e) {
    SQLException sql = firstSqlException(e);
    if (sql == null || sql.getSQLState() == null) {
      return true;
    }
    String state = sql.getSQLState();
    return state.startsWith("08") || state.startsWith("57P");
  }

  private static String explain(Throwable e, boolean commitSent, Outcome outcome) {
    if (outcome == Outcome.UNKNOWN) {
      return "outcome unknown: the connection was lost after the commit was sent; the rows exist if the server"
          + " committed them";
    }
    if (e instanceof ConnectionException) {
      return "nothing written: no connection to a writable server";
    }
    return commitSent ? "nothing written: the server refused the transaction"
        : "nothing written: the transaction failed before its commit was sent";
  }

  /**
   * What PostgreSQL said: the SQLSTATE and the first line of the message of the first
   * {@link SQLException} among the causes (Jdbi's own message also lists every bound argument,
   * whole arrays of them), else the exception's type.
   */
  private static String describe(Throwable e) {
    SQLException sql = firstSqlException(e);
    if (sql == null) {
      return e.getClass().getName();
    }
    String message = String.valueOf(sql.getMessage());
    int end = message.indexOf('\n');
    return "SQLSTATE " + sql.getSQLState() + " " + (end < 0 ? message : message.substring(0, end));
  }

  /** The first {@link SQLException} among {@code e} and its causes, or null. */
  static SQLException firstSqlException(Throwable e) {
    for (Throwable cause = e; cause != null; cause = cause.getCause()) {
      if (cause instanceof SQLException sql) {
        return sql;
      }
    }
    return null;
  }

  /**
   * Whether a transaction's commit was sent: {@link #sending()} is called as the last thing of the
   * transaction's callback, after which Jdbi commits. One per call; not thread-safe.
   */
  static final class Commit {
    private boolean sent;

    /** Marks the start of an attempt of the transaction (a deadlock victim runs again). */
    void starting() {
      sent = false;
    }

    /** Marks the end of the callback: returns {@code result}, and the commit comes next. */
    <T> T sending(T result) {
      sent = true;
      return result;
    }

    boolean sent() {
      return sent;
    }
  }
}
