package dev.segmentledger.engine;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.segmentledger.core.ItemId;
import dev.segmentledger.core.ItemState;
import dev.segmentledger.core.LedgerItem;
import dev.segmentledger.core.ManualLedger;
import dev.segmentledger.core.Reason;
import dev.segmentledger.core.spi.NewItem;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * An attempt that ends without an outcome (its process died holding the row's lease) is counted
 * when the next attempt takes the row over. Before the fix such attempts left no trace
 * ({@code attempts = 0}), so an item whose processing killed the process was retried at once for
 * ever. Here the dead processes are other owners whose leases expire; the real kills are in the
 * integration tests' {@code CrashLoopTest}.
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

  /** A process takes the row and dies: its lease runs out and the clock passes it. */
  private void dies(String process) {
    Instant now = f.clock.instant();
    assertTrue(f.store.claim(row.rowId(), process, now.plus(LEASE), now).held(), process + " took the row");
    f.clock.advance(LEASE);
  }

  @Test
  void aSingleAbandonedAttemptIsCountedAndRetriedAtOnce() {
    dies("dead-1");
    ManualLedger ledger = f.builder().nodeId("survivor").buildManual();

    LedgerFixture.settle(ledger);

    LedgerItem now = f.store.find(id).orElseThrow();
    assertEquals(ItemState.CONFIRMED, now.state(), "a restart or an unrelated crash does not delay recovery");
    assertEquals(1, now.attempts(), "the abandoned attempt is counted");
    assertEquals(1, f.sink.putCount());
  }

  @Test
  void repeatedAbandonedAttemptsBackOff() {
    dies("dead-1");
    dies("dead-2");
    ManualLedger ledger = f.builder().nodeId("survivor").buildManual();

    LedgerFixture.settle(ledger);

    LedgerItem now = f.store.find(id).orElseThrow();
    assertEquals(ItemState.PENDING, now.state(), "not retried at once after the second death");
    assertEquals(Reason.ATTEMPT_ABANDONED, now.reason());
    assertEquals(2, now.attempts());
    assertEquals(f.clock.instant().plusSeconds(1), now.nextAttemptAt(), "the backoff after one failure (1 s)");
    assertEquals(0, f.sink.putCount());

    f.clock.advance(Duration.ofSeconds(1));
    LedgerFixture.settle(ledger);
    assertEquals(ItemState.CONFIRMED, f.store.find(id).orElseThrow().state());
    assertEquals(1, f.sink.putCount());
  }

  @Test
  void pastTheLimitTheRowIsRejectedAndCanBeReopened() {
    dies("dead-1");
    dies("dead-2");
    ManualLedger ledger = f.builder().nodeId("survivor").maxAbandonedAttempts(3).buildManual();
    dies("dead-3");

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
  void aRestartUnderTheSameNodeIdCountsTheAttemptItsEarlierLifeAbandoned() {
    dies("recorder-1");
    dies("recorder-1");
    Instant held = f.clock.instant();
    assertTrue(f.store.claim(row.rowId(), "recorder-1", held.plus(LEASE), held).held(), "a third life takes it");

    ManualLedger restarted = f.builder().nodeId("recorder-1").buildManual();
    f.store.releaseAllOf("recorder-1", f.clock.instant()); // what start() does first (a manual ledger has no start)
    LedgerFixture.settle(restarted);

    LedgerItem now = f.store.find(id).orElseThrow();
    assertEquals(3, now.attempts(), "three lives died holding the row");
    assertEquals(Reason.ATTEMPT_ABANDONED, now.reason());
    assertEquals(ItemState.PENDING, now.state(), "backing off");
    assertEquals(0, f.sink.putCount());
  }
}
