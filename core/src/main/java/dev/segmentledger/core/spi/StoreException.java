package dev.segmentledger.core.spi;

/**
 * A failure of a {@link StateStore}: its database could not be reached, or a transaction failed
 * and the store's own retries could not complete it (a connection lost, a statement cancelled, a
 * deadlock victim on every attempt). A store throws it instead of its driver's exceptions, with
 * them as the cause, and the ledger passes it on to its caller: it is what
 * {@link dev.segmentledger.core.Ledger#register} throws when the row could not be written.
 *
 * <p>A failed transaction normally wrote nothing. If the connection was lost while committing,
 * whether it committed is unknown; registration is idempotent, so registering the same files
 * again is always safe.
 */
public class StoreException extends RuntimeException {
  public StoreException(String message, Throwable cause) {
    super(message, cause);
  }
}
