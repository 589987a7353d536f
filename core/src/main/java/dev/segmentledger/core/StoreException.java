package dev.segmentledger.core;

import java.util.Objects;

/**
 * A failure of a {@link dev.segmentledger.core.spi.StateStore}: its database could not be reached, or a call failed and the
 * store's own retries could not complete it (a connection lost, a statement cancelled, a deadlock
 * victim on every attempt, the server shut down or failed over). A store throws it instead of its
 * driver's exceptions, with them as the cause, and the ledger passes it on to its caller: it is
 * what {@link Ledger#register} throws when it cannot say that the row was
 * written.
 *
 * <p>Its {@link #writeOutcome()} says whether the failed call may have written anything:
 *
 * <ul>
 *   <li>{@link Outcome#NOT_WRITTEN}: nothing of the call was written. Nothing reached the
 *       database (no connection, or none to a writable server), or the database refused the
 *       transaction before it committed (an error answer, a connection lost before the commit was
 *       sent: an open transaction never commits by itself).
 *   <li>{@link Outcome#UNKNOWN}: the call may have been written. The commit (or a statement
 *       that commits by itself) was sent, and the answer was lost: the connection broke, the server
 *       was shut down while the transaction waited for its commit to be replicated, a socket
 *       timeout fired. After a failover the row of such a call exists on the new primary if the old
 *       one committed it and replicated it; otherwise it does not.
 * </ul>
 *
 * Either way, registering the same files again is safe: registration is idempotent (the same file
 * is the same row; a row that exists is returned with {@code created() == false}). A store that
 * cannot tell says {@link Outcome#UNKNOWN}. Immutable once thrown.
 *
 * <p>This is the name to catch. The SPI's {@code dev.segmentledger.core.StoreException} of
 * earlier versions is a deprecated subclass kept so that stores and callers compiled against it
 * still link.
 */
public class StoreException extends RuntimeException {
  private static final long serialVersionUID = 1L;

  /** Whether a failed call of a store may have written anything. */
  public enum Outcome {
    /** Nothing of the call was written: no row exists because of it. */
    NOT_WRITTEN,
    /** The call may have been written (its commit was sent, the answer lost); its rows may exist. */
    UNKNOWN
  }

  private final Outcome writeOutcome;

  /** A failure whose outcome is {@link Outcome#UNKNOWN}: the call may have been written. */
  public StoreException(String message, Throwable cause) {
    this(message, cause, Outcome.UNKNOWN);
  }

  /** A failure with the given outcome. */
  public StoreException(String message, Throwable cause, Outcome outcome) {
    super(message, cause);
    this.writeOutcome = Objects.requireNonNull(outcome, "outcome");
  }

  /**
   * Whether the failed call may have written anything. (Named so, not {@code outcome()}, because the
   * deprecated SPI subclass keeps its own {@code outcome()} for the callers compiled against it.)
   */
  public Outcome writeOutcome() {
    return writeOutcome;
  }

  /** {@code true} unless the store knows that nothing of the call was written. */
  public boolean mayHaveWritten() {
    return writeOutcome != Outcome.NOT_WRITTEN;
  }
}
