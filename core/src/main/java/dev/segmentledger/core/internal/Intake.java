package dev.segmentledger.core.internal;

import dev.segmentledger.core.ItemId;
import dev.segmentledger.core.LedgerItem;
import dev.segmentledger.core.Registration.Offer;
import java.time.Instant;

/**
 * The one way into the {@link WorkQueue}, for registration and the sweeper alike: offers an item
 * and reports the offer's outcome to the listeners ({@code onAccepted}, {@code onSaturated}; a
 * duplicate is not an event). Never blocks. It also keeps the playback rows registered here waiting
 * for their INIT ({@link InitWaiters}) and offers them once this node confirmed it. Thread-safe.
 */
final class Intake {
  private final WorkQueue queue;
  private final Events events;
  private final Signals signals;
  private final InitWaiters initWaiters = new InitWaiters();

  /** @param signals whom {@link #sweepSoon} asks */
  Intake(WorkQueue queue, Events events, Signals signals) {
    this.queue = queue;
    this.events = events;
    this.signals = signals;
  }

  /** How many more items the queue takes right now (a hint: another thread may take the room first). */
  int room() {
    return queue.remainingCapacity();
  }

  /**
   * Offers {@code item}; {@code fromSweep} items are re-read before upload, {@code leasedUntil} is
   * the end of the lease this instance took at the row's registration, or {@code null}.
   */
  Offer offer(LedgerItem item, boolean fromSweep, Instant leasedUntil) {
    Offer offer = queue.offer(item, fromSweep, leasedUntil);
    if (offer == Offer.ACCEPTED) {
      events.onAccepted(item);
    } else if (offer == Offer.SATURATED) {
      events.onSaturated(item);
    }
    return offer;
  }

  /** A PLAYBACK row registered here is WAITING for its rendition's INIT: offered once this node confirms it. */
  void waitingForInit(LedgerItem playback) {
    initWaiters.waiting(playback);
  }

  /**
   * This node confirmed the INIT {@code init}: the playback rows registered here waiting for it are
   * offered now, as swept rows (re-read and claimed only if PENDING and due).
   *
   * @return {@code true}, so that a caller can note that an INIT released rows
   */
  boolean initConfirmed(ItemId init) {
    for (LedgerItem playback : initWaiters.released(init)) {
      offer(playback, true, null);
    }
    return true;
  }

  /** Asks for a sweep soon: rows became due that this node may not know of (released by an INIT's confirm). */
  void sweepSoon() {
    signals.sweepSoon();
  }
}
