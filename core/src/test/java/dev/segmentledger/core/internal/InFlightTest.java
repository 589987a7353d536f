package dev.segmentledger.core.internal;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.segmentledger.core.ItemId;
import dev.segmentledger.core.ItemState;
import dev.segmentledger.core.LedgerItem;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.RepeatedTest;
import org.junit.jupiter.api.Test;

class InFlightTest {
  private static final int RACERS = 8;

  @Test
  void releasingTwiceFreesTheSlotOnce() {
    AtomicInteger freed = new AtomicInteger();
    InFlight work = new InFlight(item(), false, null, w -> freed.incrementAndGet());
    work.release();
    work.close();
    work.release();
    assertEquals(1, freed.get());
    assertTrue(work.released());
  }

  @RepeatedTest(50)
  void racingFinishersFreeTheSlotExactlyOnce() throws InterruptedException {
    AtomicInteger freed = new AtomicInteger();
    InFlight work = new InFlight(item(), true, null, w -> freed.incrementAndGet());
    CountDownLatch ready = new CountDownLatch(RACERS);
    CountDownLatch go = new CountDownLatch(1);
    List<Thread> racers = new ArrayList<>();
    for (int i = 0; i < RACERS; i++) {
      Thread racer = new Thread(() -> {
        ready.countDown();
        try {
          go.await();
        } catch (InterruptedException e) {
          Thread.currentThread().interrupt();
          return;
        }
        work.release();
      });
      racers.add(racer);
      racer.start();
    }
    ready.await();
    go.countDown();
    for (Thread racer : racers) {
      racer.join();
    }
    assertEquals(1, freed.get());
  }

  private static LedgerItem item() {
    Instant t = Instant.EPOCH;
    return new LedgerItem(1, ItemId.original("b", "r", 1), "/x", null, 1, ItemState.PENDING, 0, null, null, t, t, null, null, null, null, null, null, null);
  }
}
