package dev.segmentledger.core;

/**
 * The state of one ledger row. {@link #PENDING} and {@link #WAITING} are unconfirmed; the
 * others are terminal and are never left again except by an explicit re-open.
 */
public enum ItemState {
  /** Registered and not yet confirmed: eligible for upload by the worker and the sweeper. */
  PENDING(false),
  /** Unconfirmed and blocked on a dependency (playback waiting for its rendition's init). */
  WAITING(false),
  /** Stored and confirmed by a compare-and-set update. */
  CONFIRMED(true),
  /** Never to be uploaded, for the recorded {@link Reason} (outside root, permanent sink error...). */
  REJECTED(true),
  /** Excluded from recovery because it is older than the configured cutoff. */
  EXCLUDED(true);

  private final boolean terminal;

  ItemState(boolean terminal) {
    this.terminal = terminal;
  }

  /** Whether the row has reached a final outcome. */
  public boolean isTerminal() {
    return terminal;
  }
}
