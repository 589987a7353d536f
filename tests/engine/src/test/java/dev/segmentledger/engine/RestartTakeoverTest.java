package dev.segmentledger.engine;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.segmentledger.core.ItemId;
import dev.segmentledger.core.ItemState;
import dev.segmentledger.core.Ledger;
import dev.segmentledger.core.LedgerItem;
import dev.segmentledger.core.spi.NewItem;
import dev.segmentledger.testkit.LedgerEvents;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** A node restarting under its node id takes back the rows it held, without waiting for the lease. */
class RestartTakeoverTest {
  @TempDir Path temp;

  @Test
  void aRestartUnderTheSameNodeIdUploadsWhatTheDeadProcessHeldAtOnce() throws Exception {
    LedgerFixture f = new LedgerFixture(temp);
    ItemId id = ItemId.original("b1", "720p", 0);
    Instant now = Instant.now();
    LedgerItem row = f.store.register(NewItem.pending(id, f.record(id).toString(), ("bytes of " + id).length(), now))
        .item();
    // The process that died held this row under a lease of an hour.
    assertTrue(f.store.claim(row.rowId(), "recorder-1", now.plus(Duration.ofHours(1)), now).held());

    LedgerEvents events = new LedgerEvents();
    try (Ledger restarted = f.builder().clock(Clock.systemUTC()).nodeId("recorder-1")
        .sweepInterval(Duration.ofMillis(20)).listener(events).build()) {
      restarted.start();
      events.awaitUntil("the held row is confirmed",
          () -> f.store.find(id).orElseThrow().state() == ItemState.CONFIRMED, Duration.ofSeconds(10));
    }
    assertEquals(1, f.sink.putCount());
  }
}
