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

  @Test
  void aBacklogNeverFillsTheRoomKeptForLiveWork() {
    WorkQueue queue = new WorkQueue(8, item -> item.rowId() < 100 ? dev.segmentledger.core.Lane.BACKFILL
        : dev.segmentledger.core.Lane.LIVE, java.time.Clock.systemUTC(), dev.segmentledger.core.Uplink.DEFAULT);
    for (int i = 0; i < 6; i++) {
      assertEquals(Offer.ACCEPTED, queue.offer(item(i), true, null));
    }
    assertEquals(Offer.SATURATED, queue.offer(item(6), true, null), "backfill fills 3/4 of the queue at most");
    assertEquals(Offer.ACCEPTED, queue.offer(item(100), false, null));
    assertEquals(Offer.ACCEPTED, queue.offer(item(101), false, null));
    assertEquals(Offer.SATURATED, queue.offer(item(102), false, null), "the queue is full");
    assertEquals(100, queue.poll().item().rowId(), "live work first");
  }

  @Test
  void backfillLeavesOneWorkerForLiveWork() {
    WorkQueue queue = new WorkQueue(16, item -> item.rowId() < 100 ? dev.segmentledger.core.Lane.BACKFILL
        : dev.segmentledger.core.Lane.LIVE, java.time.Clock.systemUTC(), dev.segmentledger.core.Uplink.DEFAULT, 3);
    for (int i = 0; i < 4; i++) {
      queue.offer(item(i), true, null);
    }
    InFlight first = queue.poll();
    InFlight second = queue.poll();
    assertEquals(null, queue.poll(), "two of three workers busy with backfill: the third waits for live work");
    queue.offer(item(100), false, null);
    assertEquals(100, queue.poll().item().rowId());
    first.release();
    assertEquals(2, queue.poll().item().rowId(), "a backfill upload ended: the next backfill may go");
    second.release();
  }

  @Test
  void withThreeWorkersOrMoreOriginalsAndBackfillTogetherLeaveOneWorkerForLiveWork() {
    WorkQueue queue = new WorkQueue(16, WorkQueueTest::laneByRowId, java.time.Clock.systemUTC(),
        dev.segmentledger.core.Uplink.DEFAULT, 3);
    queue.offer(item(0), true, null); // backfill
    queue.offer(item(50), false, null); // an original of a live broadcast
    queue.offer(item(51), false, null);
    InFlight first = queue.poll();
    InFlight second = queue.poll();
    assertEquals(null, queue.poll(), "two lower uploads busy: the third worker waits for live work");
    queue.offer(item(100), false, null);
    assertEquals(100, queue.poll().item().rowId());
    second.release();
    InFlight third = queue.poll();
    assertEquals(java.util.Set.of(0L, 50L, 51L), java.util.Set.of(first.item().rowId(), second.item().rowId(),
        third.item().rowId()), "a lower upload ended: the last lower work may go");
    first.release();
    third.release();
  }

  @Test
  void withTwoWorkersOriginalsMayTakeTheLastWorker() {
    WorkQueue queue = new WorkQueue(16, WorkQueueTest::laneByRowId, java.time.Clock.systemUTC(),
        dev.segmentledger.core.Uplink.DEFAULT, 2);
    queue.offer(item(50), false, null);
    queue.offer(item(51), false, null);
    assertEquals(50, queue.poll().item().rowId());
    assertEquals(51, queue.poll().item().rowId(), "two originals at once: one may wait on the other's judgement");
  }

  /** Below 50 backfill, below 100 originals of a live broadcast, live above. */
  private static dev.segmentledger.core.Lane laneByRowId(LedgerItem item) {
    return item.rowId() < 50 ? dev.segmentledger.core.Lane.BACKFILL
        : item.rowId() < 100 ? dev.segmentledger.core.Lane.ORIGINAL : dev.segmentledger.core.Lane.LIVE;
  }

  private static LedgerItem item(long rowId) {
    Instant t = Instant.EPOCH;
    return new LedgerItem(rowId, ItemId.original("b", "r", rowId), "/x", null, 1, ItemState.PENDING, 0, null, null, t, t, null, null, null, null, null, null, null);
  }
}
