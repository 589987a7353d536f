package dev.segmentledger.engine;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.segmentledger.core.ItemId;
import dev.segmentledger.core.ItemState;
import dev.segmentledger.core.LedgerItem;
import dev.segmentledger.core.ManualLedger;
import dev.segmentledger.core.Reason;
import dev.segmentledger.core.StoredObjectInfo;
import dev.segmentledger.core.UnfinishedUpload;
import dev.segmentledger.core.spi.Claim;
import dev.segmentledger.core.spi.LeaseRenewal;
import dev.segmentledger.core.spi.ObjectSink;
import dev.segmentledger.core.spi.UploadContent;
import dev.segmentledger.testkit.ForwardingObjectSink;
import dev.segmentledger.core.spi.NewItem;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * An attempt that ends without an outcome (its process died holding the row's lease) is counted
 * when the next attempt takes the row over, and weighed by its evidence: a death beside other work
 * or after durable progress is never held against the row; a row with two deaths without progress
 * is a suspect and is uploaded alone; only deaths during such lone attempts without progress are
 * blamed, back off, and past the limit reject the row. Here the dead processes are other owners
 * whose leases expire, their heartbeats written by hand; the real kills are in the integration
 * tests ({@code CrashLoopTest}, {@code KillSoakTest}).
 */
class AbandonedAttemptsTest {
  private static final Duration LEASE = Duration.ofMinutes(2);

  @TempDir Path temp;
  private LedgerFixture f;
  private final ItemId id = ItemId.original("b1", "720p", 0);
  private LedgerItem row;

  @BeforeEach
  void setUp() {
    f = new LedgerFixture(temp);
    Path file = f.record(id);
    row = f.store.register(NewItem.pending(id, file.toString(), ("bytes of " + id).length(), f.clock.instant()))
        .item();
  }

  /** A process takes the row and dies beside other work: its lease runs out and the clock passes it. */
  private void dies(String process) {
    diesWith(process, 0, false);
  }

  /** A process takes the row alone (its heartbeat says so) and dies without progress. */
  private void diesAlone(String process) {
    diesWith(process, 0, true);
  }

  private void diesWith(String process, long storedBytes, boolean isolated) {
    Instant now = f.clock.instant();
    Instant until = now.plus(LEASE);
    assertTrue(f.store.claim(row.rowId(), process, until, now).held(), process + " took the row");
    assertTrue(f.store.renewAll(process, List.of(LeaseRenewal.ofAttempt(row.rowId(), "b1", until, until,
        storedBytes, isolated)))[0], "its heartbeat");
    f.clock.advance(LEASE);
  }

  /** A ledger whose process has been up for a lease duration, past its start-up (the fixture's lease is 2 min). */
  private ManualLedger settled(ManualLedger ledger) {
    f.clock.advance(LEASE);
    return ledger;
  }

  @Test
  void aSuspectWaitsUntilItsProcessIsPastStartUpSoAnExternalCrashLoopIsNeverBlamed() {
    dies("dead-1");
    dies("dead-2"); // a suspect now
    for (int life = 1; life <= 8; life++) {
      // A crash loop from outside: each life is killed within seconds of its start, whatever it runs.
      ManualLedger young = f.builder().nodeId("recorder").buildManual();
      f.clock.advance(Duration.ofSeconds(1));
      LedgerFixture.settle(young);
      LedgerItem now = f.store.find(id).orElseThrow();
      assertEquals(ItemState.PENDING, now.state(), "life " + life);
      assertEquals(2, now.attempts(), "life " + life + ": the suspect waited, its lease given back: nothing counted");
      assertEquals(0, f.sink.putCount(), "not run alone in a process that has not settled");
      f.clock.advance(Duration.ofSeconds(3)); // killed; restarted
    }
    ManualLedger healthy = f.builder().nodeId("recorder").buildManual();
    f.clock.advance(LEASE); // this life lives past its start-up
    LedgerFixture.settle(healthy);
    LedgerItem now = f.store.find(id).orElseThrow();
    assertEquals(ItemState.CONFIRMED, now.state(), now.reason() + " " + now.lastError());
    assertEquals(1, f.sink.putCount());
  }

  @Test
  void aSingleAbandonedAttemptIsCountedAndRetriedAtOnce() {
    dies("dead-1");
    ManualLedger ledger = settled(f.builder().nodeId("survivor").buildManual());

    LedgerFixture.settle(ledger);

    LedgerItem now = f.store.find(id).orElseThrow();
    assertEquals(ItemState.CONFIRMED, now.state(), "a restart or an unrelated crash does not delay recovery");
    assertEquals(1, now.attempts(), "the abandoned attempt is counted");
    assertEquals(1, f.sink.putCount());
  }

  @Test
  void deathsBesideOtherWorkMakeASuspectThatIsRetriedAtOnceAloneNotBlamed() {
    dies("dead-1");
    dies("dead-2");
    dies("dead-3");
    ManualLedger ledger = settled(f.builder().nodeId("survivor").maxAbandonedAttempts(1).buildManual());

    LedgerFixture.settle(ledger);

    LedgerItem now = f.store.find(id).orElseThrow();
    assertEquals(ItemState.CONFIRMED, now.state(), "nothing pointed at this row: its deaths had company");
    assertEquals(3, now.attempts());
    assertEquals(1, f.sink.putCount());
  }

  @Test
  void aDeathAfterDurableProgressIsNotHeldAgainstTheRow() {
    diesWith("dead-1", 8 << 20, true);
    diesWith("dead-2", 16 << 20, true);
    ManualLedger ledger = settled(f.builder().nodeId("survivor").maxAbandonedAttempts(1).buildManual());

    LedgerFixture.settle(ledger);

    assertEquals(ItemState.CONFIRMED, f.store.find(id).orElseThrow().state(), "each attempt stored more");
  }

  @Test
  void aBlamedDeathBacksOff() {
    dies("dead-1");
    dies("dead-2");
    diesAlone("dead-3");
    ManualLedger ledger = settled(f.builder().nodeId("survivor").buildManual());

    LedgerFixture.settle(ledger);

    LedgerItem now = f.store.find(id).orElseThrow();
    assertEquals(ItemState.PENDING, now.state(), "not retried at once after a blamed death");
    assertEquals(Reason.ATTEMPT_ABANDONED, now.reason());
    assertEquals(3, now.attempts());
    assertEquals(f.clock.instant().plusSeconds(1), now.nextAttemptAt(), "the backoff after one failure (1 s)");
    assertEquals(0, f.sink.putCount());

    f.clock.advance(Duration.ofSeconds(1));
    LedgerFixture.settle(ledger);
    assertEquals(ItemState.CONFIRMED, f.store.find(id).orElseThrow().state());
    assertEquals(1, f.sink.putCount());
  }

  @Test
  void pastTheLimitOfBlamedDeathsTheRowIsRejectedAndCanBeReopened() {
    diesAlone("dead-1");
    diesAlone("dead-2");
    ManualLedger ledger = settled(f.builder().nodeId("survivor").maxAbandonedAttempts(3).buildManual());
    diesAlone("dead-3");

    LedgerFixture.settle(ledger);

    LedgerItem now = f.store.find(id).orElseThrow();
    assertEquals(ItemState.REJECTED, now.state());
    assertEquals(Reason.REPEATEDLY_ABANDONED, now.reason(), now.lastError());
    assertEquals(0, f.sink.putCount(), "a poisonous item is not tried again");

    assertTrue(ledger.reopen(id));
    LedgerFixture.settle(ledger);
    assertEquals(ItemState.CONFIRMED, f.store.find(id).orElseThrow().state());
  }

  @Test
  void aPoisonWhoseIdenticalObjectIsStoredAlreadyIsConfirmedNotRejected() {
    f.sink.seed(id.objectKey(), ("bytes of " + id).getBytes(StandardCharsets.UTF_8)); // stored, then the process died
    diesAlone("dead-1");
    diesAlone("dead-2");
    ManualLedger ledger = settled(f.builder().nodeId("survivor").maxAbandonedAttempts(2).buildManual());

    LedgerFixture.settle(ledger);

    LedgerItem now = f.store.find(id).orElseThrow();
    assertEquals(ItemState.CONFIRMED, now.state(), "the bucket holds the registered bytes: nothing is lost");
    assertEquals(0, f.sink.putCount(), "confirmed from what is stored, without processing the item again");
  }

  @Test
  void thePoisonsLookupRunsAloneSoADeathThereIsBlamedAndThenTheRowIsRejectedWithoutAnother() {
    diesAlone("dead-1");
    diesAlone("dead-2");
    AtomicReference<Claim> takenOver = new AtomicReference<>();
    AtomicInteger lookups = new AtomicInteger();
    ObjectSink dyingLookup = new ForwardingObjectSink() {
      @Override
      protected ObjectSink delegate() {
        return f.sink;
      }

      @Override
      public Optional<StoredObjectInfo> findIdentical(String key, UploadContent content) {
        lookups.incrementAndGet();
        // The process dies here, hashing the file; another node takes the row once the lease ran out.
        Instant later = f.clock.instant().plus(Duration.ofHours(1));
        takenOver.set(f.store.claim(row.rowId(), "next-life", later.plus(LEASE), later));
        throw new IllegalStateException("died");
      }
    };
    ManualLedger ledger = settled(f.builder().nodeId("survivor").maxAbandonedAttempts(2).objectSink(dyingLookup)
        .buildManual());

    LedgerFixture.settle(ledger);
    assertEquals(1, lookups.get());
    assertEquals(3, takenOver.get().blamedAttempts(), "the death during the lone lookup is blamed: " + takenOver.get());

    f.clock.advance(Duration.ofHours(2)); // the next life's lease ran out too; a settled process takes the row
    ManualLedger next = settled(f.builder().nodeId("survivor-2").maxAbandonedAttempts(2).objectSink(dyingLookup)
        .buildManual());
    LedgerFixture.settle(next);
    LedgerItem now = f.store.find(id).orElseThrow();
    assertEquals(ItemState.REJECTED, now.state(), "rejected without looking again: the reject path cannot loop");
    assertEquals(Reason.REPEATEDLY_ABANDONED, now.reason());
    assertEquals(1, lookups.get());
  }

  @Test
  void aRowRejectedAsAPoisonAbortsItsOwnUnfinishedUploadsOnly() {
    UnfinishedUpload own = f.sink.leaveUnfinishedUpload(id.objectKey(), f.clock.instant());
    UnfinishedUpload other = f.sink.leaveUnfinishedUpload(id.objectKey() + ".other", f.clock.instant());
    diesAlone("dead-1");
    diesAlone("dead-2");
    ManualLedger ledger = settled(f.builder().nodeId("survivor").maxAbandonedAttempts(2).buildManual());

    LedgerFixture.settle(ledger);

    assertEquals(ItemState.REJECTED, f.store.find(id).orElseThrow().state());
    assertEquals(List.of(own), f.sink.abortedUploads(), "nothing will continue its upload");
    assertEquals(List.of(other), f.sink.listUnfinishedUploads(id.objectKey() + ".other"));
  }

  @Test
  void aPoisonWhoseStoredObjectDiffersIsRejected() {
    f.sink.seed(id.objectKey(), ("other bytes" + id).getBytes(StandardCharsets.UTF_8));
    diesAlone("dead-1");
    diesAlone("dead-2");
    ManualLedger ledger = settled(f.builder().nodeId("survivor").maxAbandonedAttempts(2).buildManual());

    LedgerFixture.settle(ledger);

    LedgerItem now = f.store.find(id).orElseThrow();
    assertEquals(ItemState.REJECTED, now.state());
    assertEquals(Reason.REPEATEDLY_ABANDONED, now.reason());
    assertEquals(0, f.sink.putCount());
  }

  @Test
  void aRestartUnderTheSameNodeIdCountsTheAttemptItsEarlierLifeAbandoned() {
    dies("recorder-1");
    diesAlone("recorder-1");
    Instant held = f.clock.instant();
    assertTrue(f.store.claim(row.rowId(), "recorder-1", held.plus(LEASE), held).held(), "a third life takes it");
    assertTrue(f.store.renewAll("recorder-1", List.of(LeaseRenewal.ofAttempt(row.rowId(), "b1", held.plus(LEASE),
        held.plus(LEASE), 0, true)))[0], "alone");

    ManualLedger restarted = settled(f.builder().nodeId("recorder-1").buildManual());
    f.store.releaseAllOf("recorder-1", f.clock.instant()); // what start() does first (a manual ledger has no start)
    LedgerFixture.settle(restarted);

    LedgerItem now = f.store.find(id).orElseThrow();
    assertEquals(3, now.attempts(), "three lives died holding the row");
    assertEquals(Reason.ATTEMPT_ABANDONED, now.reason());
    assertEquals(ItemState.PENDING, now.state(), "two blamed deaths: backing off");
    assertEquals(0, f.sink.putCount());
  }
}
