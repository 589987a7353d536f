package dev.segmentledger.engine;

import static org.junit.jupiter.api.Assertions.assertEquals;

import dev.segmentledger.core.Axis;
import dev.segmentledger.core.ItemId;
import dev.segmentledger.core.ItemState;
import dev.segmentledger.core.Ledger;
import dev.segmentledger.core.spi.NewItem;
import dev.segmentledger.testkit.LedgerEvents;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Recovery of a backlog is not paced by the sweep interval: full pages are read back to back. */
class SweepPacingTest {
  private static final int ROWS = 1_000;

  @TempDir Path temp;

  @Test
  void aBacklogIsSweptPageAfterPageWithoutWaitingForTheInterval() throws Exception {
    LedgerFixture f = backlog();
    confirmWithOneTimedRound(f, 4_096);
  }

  @Test
  void aBacklogLargerThanTheQueueIsSweptAsSoonAsTheWorkersMakeRoom() throws Exception {
    LedgerFixture f = backlog();
    f.sink.setLatency(Duration.ofMillis(5)); // the queue is still full when a round ends
    confirmWithOneTimedRound(f, 256); // the defaults: two pages
  }

  /** A fixture whose store holds {@value #ROWS} pending originals. */
  private LedgerFixture backlog() {
    LedgerFixture f = new LedgerFixture(temp);
    for (int i = 0; i < ROWS; i++) {
      ItemId id = ItemId.original("b1", "720p", i);
      f.store.register(NewItem.pending(id, f.record(id).toString(), ("bytes of " + id).length(), Instant.now()));
    }
    return f;
  }

  /** Starts a ledger whose sweep interval only the first round waits for; every row must be confirmed in 30 s. */
  private static void confirmWithOneTimedRound(LedgerFixture f, int queueCapacity) throws Exception {
    LedgerEvents events = new LedgerEvents();
    try (Ledger ledger = f.builder()
        .clock(Clock.systemUTC())
        .sweepInterval(Duration.ofHours(1)) // only the first round is on the timer
        .queueCapacity(queueCapacity)
        .sweepBatchSize(128)
        .listener(events)
        .build()) {
      ledger.start();
      events.awaitUntil("the backlog of " + ROWS + " rows is confirmed",
          () -> f.store.count(Axis.ORIGINAL, ItemState.CONFIRMED) == ROWS, Duration.ofSeconds(30));
    }
    assertEquals(ROWS, f.sink.putCount());
  }
}
