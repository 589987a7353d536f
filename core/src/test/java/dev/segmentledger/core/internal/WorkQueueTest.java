package dev.segmentledger.core.internal;

import static org.junit.jupiter.api.Assertions.assertEquals;

import dev.segmentledger.core.ItemId;
import dev.segmentledger.core.ItemState;
import dev.segmentledger.core.LedgerItem;
import dev.segmentledger.core.Registration.Offer;
import java.time.Instant;
import org.junit.jupiter.api.Test;

class WorkQueueTest {
  @Test
  void deduplicatesInFlightRowsAndCountsNothingLostWhenFull() {
    WorkQueue queue = new WorkQueue(2);
    assertEquals(Offer.ACCEPTED, queue.offer(item(1), false, null));
    assertEquals(Offer.DUPLICATE, queue.offer(item(1), true, null));
    assertEquals(Offer.ACCEPTED, queue.offer(item(2), false, null));
    assertEquals(Offer.SATURATED, queue.offer(item(3), false, null));
    assertEquals(2, queue.inFlight(), "a saturated offer is not left in flight");

    InFlight taken = queue.poll();
    assertEquals(1, taken.item().rowId());
    assertEquals(Offer.DUPLICATE, queue.offer(item(1), true, null), "still in flight while being processed");
    taken.release();
    assertEquals(Offer.ACCEPTED, queue.offer(item(1), true, null));
  }

  @Test
  void aLateReleaseOfAFinishedItemNeverFreesTheSlotOfItsRowsNextOffer() {
    WorkQueue queue = new WorkQueue(4);
    queue.offer(item(1), false, null);
    InFlight first = queue.poll();
    first.release();
    assertEquals(Offer.ACCEPTED, queue.offer(item(1), true, null));
    first.release(); // say, the worker after the confirmer already finished it
    assertEquals(1, queue.inFlight());
    assertEquals(Offer.DUPLICATE, queue.offer(item(1), true, null), "the second offer still holds the slot");
    queue.poll().release();
    assertEquals(0, queue.inFlight());
  }

  private static LedgerItem item(long rowId) {
    Instant t = Instant.EPOCH;
    return new LedgerItem(rowId, ItemId.original("b", "r", rowId), "/x", null, 1, ItemState.PENDING, 0, null, null, t, t, null, null, null, null, null, null, null);
  }
}
