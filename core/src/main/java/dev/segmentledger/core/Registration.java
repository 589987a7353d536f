package dev.segmentledger.core;

/**
 * The outcome of {@link Ledger#register}: the row as written (or found, for a repeated
 * registration) and what happened to the in-memory offer.
 *
 * @param item the ledger row; for a rejected path, a {@link ItemState#REJECTED} row with its reason
 * @param created whether this call created the row ({@code false} for a repeated registration)
 * @param offer what the bounded queue did with the item
 */
public record Registration(LedgerItem item, boolean created, Offer offer) {

  /** What the bounded queue did with an offered item. None of these ever loses the row. */
  public enum Offer {
    /** Taken into the queue; a worker will upload it. */
    ACCEPTED,
    /** Already queued or in flight; not queued twice. */
    DUPLICATE,
    /** The queue was full; the row stays unconfirmed and the sweeper will pick it up. */
    SATURATED,
    /** Not offered: the row is terminal or waiting, or the ledger is not running. */
    NOT_OFFERED
  }

  /** Whether the row was refused at registration (for example a path outside the allowed root). */
  public boolean rejected() {
    return item.state() == ItemState.REJECTED;
  }
}
