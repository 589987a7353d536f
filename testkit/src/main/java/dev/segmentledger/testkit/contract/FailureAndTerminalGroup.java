package dev.segmentledger.testkit.contract;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.segmentledger.core.Axis;
import dev.segmentledger.core.ItemId;
import dev.segmentledger.core.ItemState;
import dev.segmentledger.core.LedgerItem;
import dev.segmentledger.core.Reason;
import dev.segmentledger.core.spi.Confirmation;
import java.time.Duration;
import java.time.Instant;
import org.junit.jupiter.api.Test;

/**
 * The {@link StateStoreContract} group on failures and terminal states: {@code recordFailure} and
 * {@code markTerminal}. Run as the contract's {@code @Nested} class {@code
 * FailuresAndTerminalStates}, on the store of the enclosing contract test.
 */
abstract class FailureAndTerminalGroup extends ContractGroup {

  FailureAndTerminalGroup(StateStoreContract contract) {
    super(contract);
  }

  // ---- recordFailure ------------------------------------------------------------------------

  @Test
  void recordFailureCountsTheAttemptAndSchedulesTheNext() {
    LedgerItem row = register(ItemId.original("b1", "720p", 0), 10);
    Instant retryAt = T0.plus(Duration.ofSeconds(30));

    assertTrue(store.recordFailure(row.rowId(), ItemState.PENDING, "node-a", Reason.SINK_TRANSIENT, "503 Slow Down", retryAt));
    assertTrue(store.recordFailure(row.rowId(), ItemState.PENDING, "node-a", Reason.UNREADABLE, "EACCES", retryAt.plusSeconds(30)));

    LedgerItem failed = store.findByRowId(row.rowId()).orElseThrow();
    assertEquals(ItemState.PENDING, failed.state(), "a failure never makes a row terminal by itself");
    assertEquals(2, failed.attempts());
    assertEquals(Reason.UNREADABLE, failed.reason());
    assertEquals("EACCES", failed.lastError());
    assertEquals(retryAt.plusSeconds(30), failed.nextAttemptAt());
    assertEquals(row.registeredAt(), failed.registeredAt());
  }

  @Test
  void recordFailureOnARowInAnotherStateChangesNothing() {
    LedgerItem row = register(ItemId.original("b1", "720p", 0), 10);
    assertTrue(store.confirm(new Confirmation(row.rowId(), row.id(), ItemState.PENDING, 10, "c", T0)));
    LedgerItem confirmed = store.findByRowId(row.rowId()).orElseThrow();

    assertFalse(store.recordFailure(row.rowId(), ItemState.PENDING, "node-a", Reason.SINK_TRANSIENT, "late", T0.plusSeconds(9)));
    assertFalse(store.recordFailure(row.rowId(), ItemState.WAITING, "node-a", Reason.SINK_TRANSIENT, "late", T0.plusSeconds(9)));
    assertFalse(store.recordFailure(424242, ItemState.PENDING, "node-a", Reason.SINK_TRANSIENT, "none", T0));
    assertEquals(confirmed, store.findByRowId(row.rowId()).orElseThrow());
  }

  @Test
  void failuresAreCountedPerCappedReasonUntilAReopen() {
    LedgerItem row = register(ItemId.original("b1", "720p", 0), 10);
    assertEquals(0, store.failuresWith(row.rowId(), Reason.INTERNAL_ERROR));
    for (Reason reason : new Reason[] {Reason.SINK_TRANSIENT, Reason.INTERNAL_ERROR, Reason.SINK_TRANSIENT,
        Reason.REPACKAGE_FAILED, Reason.INTERNAL_ERROR}) {
      assertTrue(store.recordFailure(row.rowId(), ItemState.PENDING, "node-a", reason, "failed", T0));
    }
    assertEquals(5, store.findByRowId(row.rowId()).orElseThrow().attempts());
    assertEquals(2, store.failuresWith(row.rowId(), Reason.INTERNAL_ERROR), "the internal errors only");
    assertEquals(1, store.failuresWith(row.rowId(), Reason.REPACKAGE_FAILED));

    assertTrue(store.markTerminal(row.rowId(), ItemState.PENDING, "node-a", ItemState.REJECTED,
        Reason.INTERNAL_ERROR, "3 of 3", T0));
    assertEquals(3, store.failuresWith(row.rowId(), Reason.INTERNAL_ERROR), "the terminal failure counts too");
    assertTrue(store.reopen(row.rowId(), ItemState.REJECTED, Reason.REOPENED, "fixed", T0));
    assertEquals(0, store.failuresWith(row.rowId(), Reason.INTERNAL_ERROR), "a re-open starts the count over");
    assertEquals(0, store.failuresWith(row.rowId(), Reason.REPACKAGE_FAILED));
    assertEquals(0, store.failuresWith(424242, Reason.INTERNAL_ERROR), "no such row");
  }

  // ---- markTerminal -------------------------------------------------------------------------

  @Test
  void markTerminalRejectsOrExcludesWithItsReason() {
    LedgerItem rejected = register(ItemId.original("b1", "720p", 0), 10);
    LedgerItem excluded = register(ItemId.original("b1", "720p", 1), 10);

    assertTrue(store.markTerminal(rejected.rowId(), ItemState.PENDING, "node-a", ItemState.REJECTED, Reason.SINK_PERMANENT,
        "403 AccessDenied", T0.plusSeconds(1)));
    assertTrue(store.markTerminal(excluded.rowId(), ItemState.PENDING, "node-a", ItemState.EXCLUDED, Reason.PAST_CUTOFF,
        "older than 7d", T0.plusSeconds(1)));

    LedgerItem r = store.findByRowId(rejected.rowId()).orElseThrow();
    assertEquals(ItemState.REJECTED, r.state());
    assertEquals(Reason.SINK_PERMANENT, r.reason());
    assertEquals("403 AccessDenied", r.lastError());
    assertNull(r.confirmedAt());
    LedgerItem e = store.findByRowId(excluded.rowId()).orElseThrow();
    assertEquals(ItemState.EXCLUDED, e.state());
    assertEquals(Reason.PAST_CUTOFF, e.reason());
    assertEquals(1, store.count(Axis.ORIGINAL, ItemState.REJECTED));
    assertEquals(1, store.count(Axis.ORIGINAL, ItemState.EXCLUDED));
  }

  @Test
  void markTerminalOnARowInAnotherStateChangesNothing() {
    LedgerItem row = register(ItemId.original("b1", "720p", 0), 10);
    assertTrue(store.confirm(new Confirmation(row.rowId(), row.id(), ItemState.PENDING, 10, "c", T0)));
    LedgerItem confirmed = store.findByRowId(row.rowId()).orElseThrow();

    assertFalse(store.markTerminal(row.rowId(), ItemState.PENDING, "node-a", ItemState.REJECTED, Reason.MISSING_FILE, "x", T0));
    assertFalse(store.markTerminal(row.rowId(), ItemState.WAITING, "node-a", ItemState.EXCLUDED, Reason.PAST_CUTOFF, "x", T0));
    assertEquals(confirmed, store.findByRowId(row.rowId()).orElseThrow());
  }

  @Test
  void markTerminalRefusesANonTerminalOrConfirmedTarget() {
    LedgerItem row = register(ItemId.original("b1", "720p", 0), 10);

    assertThrows(IllegalArgumentException.class, () -> store.markTerminal(row.rowId(), ItemState.PENDING, "node-a",
        ItemState.CONFIRMED, Reason.INTERNAL_ERROR, "x", T0));
    assertThrows(IllegalArgumentException.class, () -> store.markTerminal(row.rowId(), ItemState.PENDING, "node-a",
        ItemState.WAITING, Reason.INTERNAL_ERROR, "x", T0));
    assertEquals(row, store.findByRowId(row.rowId()).orElseThrow());
  }
}
