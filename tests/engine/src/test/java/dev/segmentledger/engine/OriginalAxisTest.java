package dev.segmentledger.engine;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.segmentledger.core.Axis;
import dev.segmentledger.core.ItemId;
import dev.segmentledger.core.ItemState;
import dev.segmentledger.core.LedgerItem;
import dev.segmentledger.core.ManualLedger;
import dev.segmentledger.core.Reason;
import dev.segmentledger.core.Registration;
import dev.segmentledger.core.RegistrationConflictException;
import dev.segmentledger.core.SweepReport;
import dev.segmentledger.core.spi.NewItem;
import dev.segmentledger.testkit.ConsistencyAssertions;
import dev.segmentledger.testkit.PutAttempt;
import dev.segmentledger.testkit.SinkFault;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The ORIGINAL axis end to end on the in-memory store: the crash table of docs/design.md. */
class OriginalAxisTest {
  @TempDir Path temp;
  private LedgerFixture f;

  @BeforeEach
  void setUp() {
    f = new LedgerFixture(temp);
  }

  @Test
  void aRegisteredFileIsStoredAtItsKeyAndConfirmed() {
    ManualLedger ledger = f.manual();
    ItemId id = ItemId.original("b1", "720p", 0);
    Registration registration = ledger.register(id, f.record(id));

    assertEquals(Registration.Offer.ACCEPTED, registration.offer());
    assertEquals(ItemState.PENDING, registration.item().state());
    assertEquals(1, ledger.drainQueue());
    assertEquals(ItemState.CONFIRMED, ledger.find(id).orElseThrow().state());
    assertEquals("bytes of " + id, new String(f.sink.bytes(id.objectKey()).orElseThrow()));
    var stats = ledger.stats().axis(Axis.ORIGINAL);
    assertEquals(1, stats.accepted());
    assertEquals(1, stats.stored());
    assertEquals(1, stats.confirmed());
    ConsistencyAssertions.assertConsistent(f.store, f.sink, "b1");
  }

  @Test
  void registeringTwiceIsOneRowAndAnotherSizeIsAConflict() {
    ManualLedger ledger = f.manual();
    ItemId id = ItemId.original("b1", "720p", 0);
    Path file = f.record(id);
    ledger.register(id, file);
    assertEquals(false, ledger.register(id, file).created());
    Path other = f.record("other.ts", "a different size");
    assertThrows(RegistrationConflictException.class, () -> ledger.register(id, other));
  }

  @Test
  void crashAfterRegistrationBeforePutIsRecoveredByANewInstance() {
    ManualLedger first = f.manual();
    ItemId id = ItemId.original("b1", "720p", 0);
    first.register(id, f.record(id));
    first.close(); // the process dies: its queue is gone, the row is not

    ManualLedger second = f.manual(); // another node id: the first instance's registration lease holds the row
    assertEquals(0, second.sweepRound().accepted(), "leased to the first instance from its registration");
    f.clock.advance(Duration.ofSeconds(10));
    SweepReport round = second.sweepRound();
    assertEquals(1, round.accepted());
    second.drainQueue();
    assertEquals(ItemState.CONFIRMED, second.find(id).orElseThrow().state());
    ConsistencyAssertions.assertConsistent(f.store, f.sink, "b1");
  }

  @Test
  void lostAcknowledgementIsRetriedOnTheSameKeyAndConfirmedWithoutASecondWrite() {
    ManualLedger ledger = f.manual();
    ItemId id = ItemId.original("b1", "720p", 0);
    f.sink.failNext(id.objectKey(), SinkFault.lostAcknowledgement());
    ledger.register(id, f.record(id));
    ledger.drainQueue();

    LedgerItem afterLoss = ledger.find(id).orElseThrow();
    assertEquals(ItemState.PENDING, afterLoss.state(), "stored but not confirmed");
    assertEquals(1, afterLoss.attempts());
    assertEquals(Reason.SINK_TRANSIENT, afterLoss.reason());
    assertEquals(0, ledger.sweepRound().accepted(), "in backoff: not swept yet");

    f.clock.advance(Duration.ofSeconds(1));
    assertEquals(1, ledger.sweepRound().accepted());
    ledger.drainQueue();
    assertEquals(ItemState.CONFIRMED, ledger.find(id).orElseThrow().state());
    assertEquals(PutAttempt.Outcome.SKIPPED_IDENTICAL, f.sink.attempts(id.objectKey()).get(1).outcome());
    assertEquals(1, f.sink.writeCount());
    ConsistencyAssertions.assertConsistent(f.store, f.sink, "b1");
  }

  @Test
  void aPermanentSinkRefusalIsTerminalWithItsReason() {
    ManualLedger ledger = f.manual();
    ItemId id = ItemId.original("b1", "720p", 0);
    f.sink.failNext(id.objectKey(), SinkFault.failPermanent());
    ledger.register(id, f.record(id));
    ledger.drainQueue();

    LedgerItem row = ledger.find(id).orElseThrow();
    assertEquals(ItemState.REJECTED, row.state());
    assertEquals(Reason.SINK_PERMANENT, row.reason());
    assertTrue(row.lastError().contains(id.objectKey()), row.lastError());
  }

  @Test
  void aPathOutsideTheRootIsRejectedAtRegistrationAndNeverPut() throws Exception {
    ManualLedger ledger = f.manual();
    Path outside = Files.writeString(temp.resolve("secret.ts"), "secret");
    ItemId id = ItemId.original("b1", "720p", 0);
    Registration registration = ledger.register(id, outside);

    assertTrue(registration.rejected());
    assertEquals(Reason.OUTSIDE_ROOT, registration.item().reason());
    assertEquals(Registration.Offer.NOT_OFFERED, registration.offer());
    LedgerFixture.settle(ledger);
    assertEquals(0, f.sink.putCount());
  }

  @Test
  void thousandRowsWithTheFirstFiveHundredAlwaysFailingDoNotStarveTheRest() {
    int rows = 1_000;
    int failing = 500;
    for (int i = 0; i < rows; i++) {
      ItemId id = ItemId.original("b1", "720p", i);
      f.store.register(NewItem.pending(id, f.record(id).toString(), ("bytes of " + id).length(), f.clock.instant()));
      if (i < failing) {
        f.sink.failTimes(id.objectKey(), 1_000, SinkFault.failRetryable());
      }
    }
    ManualLedger ledger = f.builder().queueCapacity(4_096).sweepBatchSize(128).circuitBreaker(1_000_000,
        Duration.ofSeconds(1)).buildManual();

    int round = 0;
    while (f.store.count(Axis.ORIGINAL, ItemState.CONFIRMED) < rows - failing) {
      assertTrue(round < 100, "later rows starved");
      ledger.sweepRound();
      ledger.drainQueue();
      round++;
    }
    System.out.printf("1,000 rows, first 500 always failing: all 500 later rows confirmed by round %d "
        + "(bound ceil(1000/128) = 8)%n", round);
    assertTrue(round <= 8, "round " + round);

    // The failing rows come back after their backoff, once per cycle; fresh rows behind them
    // are still accepted in the first round they are due.
    f.clock.advance(Duration.ofSeconds(1));
    ItemId fresh = ItemId.original("b1", "720p", rows);
    f.store.register(NewItem.pending(fresh, f.record(fresh).toString(), ("bytes of " + fresh).length(),
        f.clock.instant()));
    int extra = 0;
    while (f.store.find(fresh).orElseThrow().state() != ItemState.CONFIRMED) {
      assertTrue(extra < 10, "fresh row starved by failing rows");
      ledger.sweepRound();
      ledger.drainQueue();
      extra++;
    }
    assertEquals(failing, f.store.count(Axis.ORIGINAL, ItemState.PENDING), "failing rows are retried, never lost");
  }
}
