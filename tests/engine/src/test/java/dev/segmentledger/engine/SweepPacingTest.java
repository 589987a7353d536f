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
  @TempDir Path temp;

  @Test
  void aBacklogIsSweptPageAfterPageWithoutWaitingForTheInterval() throws Exception {
    LedgerFixture f = new LedgerFixture(temp);
    int rows = 1_000;
    for (int i = 0; i < rows; i++) {
      ItemId id = ItemId.original("b1", "720p", i);
      f.store.register(NewItem.pending(id, f.record(id).toString(), ("bytes of " + id).length(), Instant.now()));
    }
    LedgerEvents events = new LedgerEvents();
    try (Ledger ledger = f.builder()
        .clock(Clock.systemUTC())
        .sweepInterval(Duration.ofHours(1)) // only the first round is on the timer
        .queueCapacity(4_096)
        .sweepBatchSize(128)
        .listener(events)
        .build()) {
      ledger.start();
      events.awaitUntil("the backlog of " + rows + " rows is confirmed",
          () -> f.store.count(Axis.ORIGINAL, ItemState.CONFIRMED) == rows, Duration.ofSeconds(30));
    }
    assertEquals(rows, f.sink.putCount());
  }

  @Test
  void aBacklogLargerThanTheQueueIsSweptAsSoonAsTheWorkersMakeRoom() throws Exception {
    LedgerFixture f = new LedgerFixture(temp);
    int rows = 1_000;
    for (int i = 0; i < rows; i++) {
      ItemId id = ItemId.original("b1", "720p", i);
      f.store.register(NewItem.pending(id, f.record(id).toString(), ("bytes of " + id).length(), Instant.now()));
    }
    f.sink.setLatency(Duration.ofMillis(5)); // the queue is still full when a round ends
    LedgerEvents events = new LedgerEvents();
    try (Ledger ledger = f.builder()
        .clock(Clock.systemUTC())
        .sweepInterval(Duration.ofHours(1)) // only the first round is on the timer
        .queueCapacity(256) // the defaults: two pages
        .sweepBatchSize(128)
        .listener(events)
        .build()) {
      ledger.start();
      events.awaitUntil("the backlog of " + rows + " rows is confirmed",
          () -> f.store.count(Axis.ORIGINAL, ItemState.CONFIRMED) == rows, Duration.ofSeconds(30));
    }
    assertEquals(rows, f.sink.putCount());
  }
}
