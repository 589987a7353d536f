package dev.segmentledger.core;

/**
 * Thrown when an identity is registered again with a different size than the row already in
 * the ledger. The existing row is unchanged: a sequence number cannot silently change content.
 */
public class RegistrationConflictException extends IllegalStateException {
  private final transient LedgerItem existing;

  public RegistrationConflictException(LedgerItem existing, long attemptedSize) {
    super("item " + existing.id() + " is already registered with size " + existing.sizeBytes()
        + " bytes; refusing to register it again with size " + attemptedSize + " bytes");
    this.existing = existing;
  }

  /** The row already in the ledger. */
  public LedgerItem existing() {
    return existing;
  }
}
