package dev.segmentledger.core;

/**
 * Thrown when a position (broadcast, axis, rendition, sequence) is registered again with a
 * different size, or a different {@linkplain MediaFormat format}, than the row already in the
 * ledger. The existing row is unchanged: a sequence number cannot silently change content.
 */
public class RegistrationConflictException extends IllegalStateException {
  private final transient LedgerItem existing;

  public RegistrationConflictException(LedgerItem existing, long attemptedSize) {
    super("item " + existing.id() + " is already registered with size " + existing.sizeBytes()
        + " bytes; refusing to register it again with size " + attemptedSize + " bytes");
    this.existing = existing;
  }

  /** The position of {@code existing} registered again as {@code attempted}, another format. */
  public RegistrationConflictException(LedgerItem existing, ItemId attempted) {
    super("item " + existing.id() + " is already registered as " + existing.id().format()
        + "; refusing to register it again as " + attempted.format());
    this.existing = existing;
  }

  /** The row already in the ledger. */
  public LedgerItem existing() {
    return existing;
  }
}
