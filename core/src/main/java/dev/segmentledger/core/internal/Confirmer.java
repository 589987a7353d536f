package dev.segmentledger.core.internal;

import dev.segmentledger.core.Axis;
import dev.segmentledger.core.ItemState;
import dev.segmentledger.core.LedgerItem;
import dev.segmentledger.core.Reason;
import dev.segmentledger.core.StoredObjectInfo;
import dev.segmentledger.core.spi.Confirmation;
import dev.segmentledger.core.spi.StateStore;
import java.time.Clock;
import java.time.Instant;
import java.util.List;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Confirms stored items in batches: a {@link GroupCommit} of the compare-and-set confirms.
 *
 * <p>A worker whose PUT succeeded hands the item over with {@link #submit}. Whichever worker finds
 * no confirm running leads: it confirms everything handed over so far (up to {@value #MAX_BATCH}
 * per statement) in one {@link StateStore#confirmAll} call, and goes on while more is waiting; the
 * others return at once to their next upload. At a low rate every worker confirms its own item, as
 * soon as its PUT returns. There is no thread of its own: a manual ledger confirms in the caller.
 *
 * <p>Until its confirm has committed, an item is still in flight (its {@link InFlight} handle
 * holds the row's slot in the queue) and its row is still PENDING: a crash in between is the
 * "after PUT, before confirm" row of the crash table, and the retry sends the same bytes to the
 * same key. The hand-over queue is bounded; a worker that finds it full helps confirm, so the
 * confirms bound the uploads. If a batch fails, its items are confirmed one by one, and an item
 * whose confirm fails is recorded as {@link Reason#INTERNAL_ERROR} with backoff. Thread-safe.
 */
final class Confirmer {
  static final int MAX_BATCH = 512;
  private static final Logger log = LoggerFactory.getLogger(Confirmer.class);

  private final StateStore store;
  private final Clock clock;
  private final Events events;
  private final Failures failures;
  private final Runnable initConfirmed;
  private final GroupCommit<Stored> commits = new GroupCommit<>(4 * MAX_BATCH, MAX_BATCH, stored -> 1, this::confirm);

  /** @param initConfirmed run after a batch that confirmed an INIT (its playback rows were released) */
  Confirmer(StateStore store, Clock clock, Events events, Failures failures, Runnable initConfirmed) {
    this.store = store;
    this.clock = clock;
    this.events = events;
    this.failures = failures;
    this.initConfirmed = initConfirmed;
  }

  /** An item whose object is stored, waiting for its confirm; {@code work} is released once it is over. */
  private record Stored(LedgerItem item, StoredObjectInfo object, InFlight work) {}

  /**
   * Hands over a stored item, and confirms what is waiting if no other worker is doing so. Returns
   * once the item is confirmed, or handed to the worker confirming now. {@code work} is released
   * when its confirm is over, whatever its outcome.
   */
  void submit(LedgerItem item, StoredObjectInfo object, InFlight work) {
    commits.submit(new Stored(item, object, work));
  }

  /**
   * Confirms whatever is waiting, unless another worker does so already: at close, so that a worker
   * stopped while handing over leaves nothing behind.
   */
  void confirmWaiting() {
    commits.commitWaiting();
  }

  /**
   * Confirms a batch and settles each item; never throws for a store failure. Whatever happens,
   * every item's in-flight period ends here, so that no row is held back from the sweeper.
   */
  private void confirm(List<Stored> batch) {
    boolean initReleased = false;
    try {
      Instant now = clock.instant();
      List<Confirmation> confirmations = batch.stream()
          .map(s -> new Confirmation(s.item().rowId(), s.item().id(), ItemState.PENDING,
              s.item().sizeBytes(), s.object().checksum(), now))
          .toList();
      boolean[] failed = new boolean[batch.size()];
      boolean[] confirmed;
      try {
        confirmed = store.confirmAll(confirmations);
        if (confirmed.length != batch.size()) {
          throw new IllegalStateException(store.getClass().getName() + ".confirmAll returned " + confirmed.length
              + " results for " + batch.size() + " confirmations");
        }
      } catch (RuntimeException e) {
        log.warn("confirming a batch of {} failed; confirming them one by one", batch.size(), e);
        confirmed = oneByOne(batch, confirmations, failed);
      }
      for (int i = 0; i < batch.size(); i++) {
        LedgerItem item = batch.get(i).item();
        if (confirmed[i]) {
          events.onConfirmed(item);
          initReleased |= item.id().axis() == Axis.INIT;
        } else if (!failed[i]) {
          events.onConfirmLost(item);
        }
      }
    } finally {
      batch.forEach(stored -> stored.work().release());
    }
    if (initReleased) {
      initConfirmed.run();
    }
  }

  /** Confirms each item alone; an item whose confirm throws is recorded as failed and flagged in {@code failed}. */
  private boolean[] oneByOne(List<Stored> batch, List<Confirmation> confirmations, boolean[] failed) {
    boolean[] confirmed = new boolean[batch.size()];
    for (int i = 0; i < batch.size(); i++) {
      Confirmation c = confirmations.get(i);
      try {
        confirmed[i] = store.confirm(c);
      } catch (RuntimeException e) {
        log.warn("confirming {} failed; the row stays unconfirmed", batch.get(i).item().id(), e);
        failures.record(batch.get(i).item(), Reason.INTERNAL_ERROR, "confirm failed: " + e);
        failed[i] = true;
      }
    }
    return confirmed;
  }
}
