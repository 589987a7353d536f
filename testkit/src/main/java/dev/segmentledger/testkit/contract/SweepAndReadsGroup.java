package dev.segmentledger.testkit.contract;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.segmentledger.core.Axis;
import dev.segmentledger.core.ItemId;
import dev.segmentledger.core.ItemState;
import dev.segmentledger.core.LedgerItem;
import dev.segmentledger.core.Reason;
import dev.segmentledger.core.spi.Confirmation;
import dev.segmentledger.core.spi.NewItem;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * The {@link StateStoreContract} group on the sweep page ({@code findDue}: order, keyset, limit,
 * backoff, state and axis filtering) and the read methods. Run as the contract's {@code @Nested}
 * class {@code SweepAndReads}, on the store of the enclosing contract test.
 */
abstract class SweepAndReadsGroup extends ContractGroup {

  SweepAndReadsGroup(StateStoreContract contract) {
    super(contract);
  }

  // ---- findDue ------------------------------------------------------------------------------

  @Test
  void findDueReturnsDueRowsInRowIdOrderAfterTheCursorUpToTheLimit() {
    List<Long> rowIds = new ArrayList<>();
    for (int i = 0; i < 10; i++) {
      rowIds.add(register(ItemId.original("b1", "720p", i), 10).rowId());
    }

    assertEquals(rowIds.subList(0, 4), rowIdsOf(store.findDue(Axis.ORIGINAL, 0, T0, 4).rows()));
    assertEquals(rowIds.subList(4, 8), rowIdsOf(store.findDue(Axis.ORIGINAL, rowIds.get(3), T0, 4).rows()));
    assertEquals(rowIds.subList(8, 10), rowIdsOf(store.findDue(Axis.ORIGINAL, rowIds.get(7), T0, 4).rows()));
    assertTrue(store.findDue(Axis.ORIGINAL, rowIds.get(9), T0, 4).rows().isEmpty());
  }

  @Test
  void findDueExcludesRowsInBackoffWithoutSpendingSlotsOnThem() {
    List<Long> ghosts = new ArrayList<>();
    for (int i = 0; i < 5; i++) {
      LedgerItem ghost = register(ItemId.original("b1", "720p", i), 10);
      assertTrue(store.recordFailure(ghost.rowId(), ItemState.PENDING, "node-a", Reason.SINK_TRANSIENT, "503",
          T0.plusSeconds(60)));
      ghosts.add(ghost.rowId());
    }
    List<Long> fresh = new ArrayList<>();
    for (int i = 5; i < 8; i++) {
      fresh.add(register(ItemId.original("b1", "720p", i), 10).rowId());
    }

    assertEquals(fresh, rowIdsOf(store.findDue(Axis.ORIGINAL, 0, T0, 3).rows()), "ghosts take no slot");
    assertEquals(fresh, rowIdsOf(store.findDue(Axis.ORIGINAL, 0, T0.plusSeconds(59), 3).rows()));

    List<Long> all = new ArrayList<>(ghosts);
    all.addAll(fresh);
    assertEquals(all, rowIdsOf(store.findDue(Axis.ORIGINAL, 0, T0.plusSeconds(60), 100).rows()),
        "due again exactly at nextAttemptAt");
  }

  @Test
  void findDueReturnsOnlyPendingRows() {
    LedgerItem pending = register(ItemId.original("b1", "720p", 0), 10);
    LedgerItem confirmed = register(ItemId.original("b1", "720p", 1), 10);
    LedgerItem rejected = register(ItemId.original("b1", "720p", 2), 10);
    LedgerItem excluded = register(ItemId.original("b1", "720p", 3), 10);
    store.register(new NewItem(ItemId.original("b1", "720p", 4), "/w.ts", null, 10, ItemState.WAITING, null, null, T0, null, null, null, null, null, null));
    assertTrue(store.confirm(new Confirmation(confirmed.rowId(), confirmed.id(),
        ItemState.PENDING, 10, "c", T0)));
    assertTrue(store.markTerminal(rejected.rowId(), ItemState.PENDING, "node-a", ItemState.REJECTED, Reason.MISSING_FILE,
        "gone", T0));
    assertTrue(store.markTerminal(excluded.rowId(), ItemState.PENDING, "node-a", ItemState.EXCLUDED, Reason.PAST_CUTOFF,
        "old", T0));

    assertEquals(List.of(pending.rowId()), rowIdsOf(store.findDue(Axis.ORIGINAL, 0, T0, 100).rows()));
  }

  @Test
  void findDueKeepsEachAxisSeparate() {
    LedgerItem original = register(ItemId.original("b1", "720p", 0), 10);
    LedgerItem playback = register(ItemId.playback("b1", "720p", 0), 10);
    LedgerItem init = register(ItemId.init("b1", "720p"), 10);
    assertTrue(store.confirm(new Confirmation(original.rowId(), original.id(),
        ItemState.PENDING, 10, "c", T0)));

    assertTrue(store.findDue(Axis.ORIGINAL, 0, T0, 100).rows().isEmpty(), "a confirmed original hides nothing");
    assertEquals(List.of(playback.rowId()), rowIdsOf(store.findDue(Axis.PLAYBACK, 0, T0, 100).rows()));
    assertEquals(List.of(init.rowId()), rowIdsOf(store.findDue(Axis.INIT, 0, T0, 100).rows()));
  }

  @Test
  void findDueSpansBroadcasts() {
    LedgerItem b1 = register(ItemId.original("b1", "720p", 0), 10);
    LedgerItem b2 = register(ItemId.original("b2", "720p", 0), 10);

    assertEquals(List.of(b1.rowId(), b2.rowId()), rowIdsOf(store.findDue(Axis.ORIGINAL, 0, T0, 100).rows()));
  }

  @Test
  void findDueReturnsTheSameRowsAsFindByRowId() {
    LedgerItem row = register(ItemId.init("b1", "720p"), 10);

    assertEquals(List.of(row), store.findDue(Axis.INIT, 0, T0, 1).rows());
  }

  // ---- reads --------------------------------------------------------------------------------

  @Test
  void findLooksUpTheNaturalIdentity() {
    LedgerItem row = register(ItemId.playback("b1", "720p", 5), 10);

    assertEquals(row, store.find(ItemId.playback("b1", "720p", 5)).orElseThrow());
    assertTrue(store.find(ItemId.original("b1", "720p", 5)).isEmpty());
    assertTrue(store.find(ItemId.playback("b1", "1080p", 5)).isEmpty());
    assertTrue(store.findByRowId(row.rowId() + 1000).isEmpty());
  }

  @Test
  void findByBroadcastReturnsEveryAxisOfThatBroadcastInRowIdOrder() {
    LedgerItem a = register(ItemId.original("b1", "720p", 1), 10);
    register(ItemId.original("b2", "720p", 1), 10);
    LedgerItem b = register(ItemId.init("b1", "720p"), 10);
    LedgerItem c = register(ItemId.playback("b1", "720p", 1), 10);
    store.markTerminal(c.rowId(), ItemState.PENDING, "node-a", ItemState.REJECTED, Reason.REPACKAGE_FAILED, "x", T0);

    assertEquals(List.of(a.rowId(), b.rowId(), c.rowId()), rowIdsOf(store.findByBroadcast("b1")));
    assertTrue(store.findByBroadcast("b3").isEmpty());
  }

  @Test
  void countCountsOneAxisInOneState() {
    LedgerItem o1 = register(ItemId.original("b1", "720p", 1), 10);
    register(ItemId.original("b1", "720p", 2), 10);
    register(ItemId.original("b2", "720p", 1), 10);
    register(ItemId.playback("b1", "720p", 1), 10);
    store.confirm(new Confirmation(o1.rowId(), o1.id(), ItemState.PENDING, 10, "c", T0));

    assertEquals(2, store.count(Axis.ORIGINAL, ItemState.PENDING));
    assertEquals(1, store.count(Axis.ORIGINAL, ItemState.CONFIRMED));
    assertEquals(1, store.count(Axis.PLAYBACK, ItemState.PENDING));
    assertEquals(0, store.count(Axis.PLAYBACK, ItemState.CONFIRMED));
    assertEquals(0, store.count(Axis.INIT, ItemState.PENDING));
  }

  @Test
  void aFreshStoreIsEmpty() {
    for (Axis axis : Axis.values()) {
      assertTrue(store.findDue(axis, 0, T0.plusSeconds(3600), 10).rows().isEmpty());
      for (ItemState state : ItemState.values()) {
        assertEquals(0, store.count(axis, state));
      }
    }
  }
}
