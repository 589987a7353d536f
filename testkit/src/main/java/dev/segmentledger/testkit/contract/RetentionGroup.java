package dev.segmentledger.testkit.contract;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.segmentledger.core.Axis;
import dev.segmentledger.core.BroadcastEndedException;
import dev.segmentledger.core.ItemId;
import dev.segmentledger.core.ItemState;
import dev.segmentledger.core.LedgerItem;
import dev.segmentledger.core.Reason;
import dev.segmentledger.core.spi.Confirmation;
import dev.segmentledger.core.spi.NewItem;
import dev.segmentledger.core.spi.Purged;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Callable;
import org.junit.jupiter.api.Test;

/**
 * The {@link StateStoreContract} group on retention ({@code purge}): what a purge removes (the
 * terminal rows of complete broadcasts that ended before the cutoff), what it never removes (an
 * unconfirmed row, a row of a live or of an ended but incomplete broadcast, a row re-opened while
 * its broadcast is purged), the broadcast record kept as a tombstone, the row budget, the order,
 * and concurrent purges. Run as the contract's {@code @Nested} class {@code Retention}.
 */
abstract class RetentionGroup extends ContractGroup {
  private static final Instant ENDED = T0.plusSeconds(10);
  private static final Instant CUTOFF = T0.plusSeconds(20);

  RetentionGroup(StateStoreContract contract) {
    super(contract);
  }

  /** Registers {@code n} ORIGINAL rows of {@code broadcastId} (sequences 0..n-1) and confirms them. */
  private List<LedgerItem> confirmedRows(String broadcastId, int n) {
    List<LedgerItem> rows = new ArrayList<>();
    for (int i = 0; i < n; i++) {
      LedgerItem row = register(ItemId.original(broadcastId, "720p", i), 10);
      assertTrue(store.confirm(new Confirmation(row.rowId(), row.id(),
          ItemState.PENDING, 10, "c" + i, T0)));
      rows.add(row);
    }
    return rows;
  }

  private void assertKept(List<LedgerItem> rows) {
    for (LedgerItem row : rows) {
      assertTrue(store.findByRowId(row.rowId()).isPresent(), () -> row.id() + " must be kept");
    }
  }

  @Test
  void removesEveryTerminalRowOfACompleteBroadcastThatEndedBeforeTheCutoff() {
    confirmedRows("b1", 2);
    LedgerItem rejected = register(ItemId.original("b1", "720p", 2), 10);
    assertTrue(store.markTerminal(rejected.rowId(), ItemState.PENDING, "node-a", ItemState.REJECTED,
        Reason.MISSING_FILE, "gone", T0));
    LedgerItem excluded = register(ItemId.original("b1", "720p", 3), 10);
    assertTrue(store.markTerminal(excluded.rowId(), ItemState.PENDING, "node-a", ItemState.EXCLUDED,
        Reason.PAST_CUTOFF, "old", T0));
    assertTrue(store.endBroadcast("b1", ENDED));

    Purged purged = store.purge(CUTOFF, 100);

    assertEquals(4, purged.rows());
    assertEquals(List.of("b1"), purged.broadcastsEmptied());
    assertEquals(List.of(), store.findByBroadcast("b1"));
    assertEquals(0, store.count(Axis.ORIGINAL, ItemState.CONFIRMED));
    assertTrue(store.purge(CUTOFF, 100).isEmpty(), "nothing left to purge");
  }

  @Test
  void theBroadcastRecordStaysAsATombstoneThatStillRefusesRegistrations() {
    confirmedRows("b1", 1);
    store.endBroadcast("b1", ENDED);
    store.purge(CUTOFF, 100);

    assertTrue(store.findBroadcast("b1").orElseThrow().ended(), "the record is kept, ended");
    assertThrows(BroadcastEndedException.class,
        () -> store.register(NewItem.pending(ItemId.original("b1", "720p", 0), "/rec/again", 10, CUTOFF)));
    assertEquals(List.of(), store.findByBroadcast("b1"));
  }

  @Test
  void aLiveBroadcastKeepsEveryRow() {
    List<LedgerItem> rows = confirmedRows("live", 3);

    assertTrue(store.purge(CUTOFF.plusSeconds(86_400), 100).isEmpty());
    assertKept(rows);
  }

  @Test
  void anEndedBroadcastWithAPendingRowKeepsEveryRow() {
    List<LedgerItem> rows = new ArrayList<>(confirmedRows("b1", 2));
    rows.add(register(ItemId.original("b1", "720p", 2), 10));
    store.endBroadcast("b1", ENDED);

    assertTrue(store.purge(CUTOFF, 100).isEmpty());
    assertKept(rows);
  }

  @Test
  void anEndedBroadcastWithAWaitingRowKeepsEveryRow() {
    List<LedgerItem> rows = new ArrayList<>(confirmedRows("b1", 1));
    rows.add(store.register(NewItem.derived(ItemId.playback("b1", "720p", 0), "/p", "/o", T0)).item());
    assertEquals(ItemState.WAITING, rows.get(1).state());
    store.endBroadcast("b1", ENDED);

    assertTrue(store.purge(CUTOFF, 100).isEmpty());
    assertKept(rows);
  }

  @Test
  void aBroadcastThatEndedAtOrAfterTheCutoffIsKept() {
    List<LedgerItem> rows = confirmedRows("b1", 2);
    store.endBroadcast("b1", CUTOFF);

    assertTrue(store.purge(CUTOFF, 100).isEmpty(), "ended exactly at the cutoff");
    assertKept(rows);
    assertEquals(2, store.purge(CUTOFF.plusMillis(1), 100).rows());
  }

  @Test
  void oneCallDeletesAtMostMaxRowsInIdentityOrder() {
    List<LedgerItem> rows = confirmedRows("b1", 5);
    store.endBroadcast("b1", ENDED);

    Purged first = store.purge(CUTOFF, 2);
    assertEquals(2, first.rows());
    assertEquals(List.of(), first.broadcastsEmptied(), "rows remain");
    assertFalse(store.findByRowId(rows.get(0).rowId()).isPresent());
    assertFalse(store.findByRowId(rows.get(1).rowId()).isPresent());
    assertKept(rows.subList(2, 5));

    assertEquals(2, store.purge(CUTOFF, 2).rows());
    Purged last = store.purge(CUTOFF, 2);
    assertEquals(1, last.rows());
    assertEquals(List.of("b1"), last.broadcastsEmptied());
    assertTrue(store.purge(CUTOFF, 2).isEmpty());
  }

  @Test
  void broadcastsArePurgedOldestEndFirstAndOneCallMaySpanSeveral() {
    List<LedgerItem> newer = confirmedRows("b-newer", 2);
    confirmedRows("b-older", 2);
    store.endBroadcast("b-newer", ENDED.plusSeconds(1));
    store.endBroadcast("b-older", ENDED);

    Purged purged = store.purge(CUTOFF, 3);
    assertEquals(3, purged.rows());
    assertEquals(List.of("b-older"), purged.broadcastsEmptied());
    assertEquals(List.of(), store.findByBroadcast("b-older"));
    assertEquals(1, store.findByBroadcast("b-newer").size());
    assertFalse(store.findByRowId(newer.get(0).rowId()).isPresent(), "identity order within b-newer");

    Purged rest = store.purge(CUTOFF, 3);
    assertEquals(1, rest.rows());
    assertEquals(List.of("b-newer"), rest.broadcastsEmptied());
  }

  @Test
  void aRowReopenedDuringThePurgeIsKeptAndBlocksItsBroadcastUntilTerminalAgain() {
    List<LedgerItem> rows = confirmedRows("b1", 4);
    store.endBroadcast("b1", ENDED);
    assertEquals(2, store.purge(CUTOFF, 2).rows());
    LedgerItem reopened = rows.get(3);
    assertTrue(store.reopen(reopened.rowId(), ItemState.CONFIRMED, Reason.OBJECT_MISSING, "repair", CUTOFF));

    assertTrue(store.purge(CUTOFF, 100).isEmpty(), "the broadcast has an unconfirmed row again");
    assertKept(rows.subList(2, 4));

    assertTrue(store.confirm(new Confirmation(reopened.rowId(), reopened.id(),
        ItemState.PENDING, 10, "c", CUTOFF)));
    Purged rest = store.purge(CUTOFF, 100);
    assertEquals(2, rest.rows());
    assertEquals(List.of("b1"), rest.broadcastsEmptied());
  }

  @Test
  void anEndedBroadcastWithoutRowsIsReportedEmptiedOnce() {
    store.endBroadcast("empty", ENDED);

    Purged purged = store.purge(CUTOFF, 10);
    assertEquals(0, purged.rows());
    assertEquals(List.of("empty"), purged.broadcastsEmptied());
    assertTrue(store.purge(CUTOFF, 10).isEmpty());
  }

  @Test
  void concurrentPurgesDeleteEachRowOnceAndEmptyEachBroadcastOnce() throws Exception {
    int broadcasts = 6;
    int perBroadcast = 7;
    for (int b = 0; b < broadcasts; b++) {
      confirmedRows("b" + b, perBroadcast);
      store.endBroadcast("b" + b, ENDED.plusMillis(b));
    }
    LedgerItem pending = register(ItemId.original("incomplete", "720p", 0), 10);
    store.endBroadcast("incomplete", ENDED);

    List<Callable<List<Purged>>> purgers = new ArrayList<>();
    for (int i = 0; i < 4; i++) {
      purgers.add(() -> {
        List<Purged> calls = new ArrayList<>();
        Purged purged;
        do {
          purged = store.purge(CUTOFF, 5);
          calls.add(purged);
        } while (!purged.isEmpty());
        return calls;
      });
    }
    long rows = 0;
    Map<String, Integer> emptied = new HashMap<>();
    for (List<Purged> calls : race(purgers)) {
      for (Purged purged : calls) {
        rows += purged.rows();
        purged.broadcastsEmptied().forEach(b -> emptied.merge(b, 1, Integer::sum));
      }
    }
    assertEquals((long) broadcasts * perBroadcast, rows, "each row deleted once");
    assertEquals(broadcasts, emptied.size());
    assertTrue(emptied.values().stream().allMatch(n -> n == 1), "each broadcast emptied once: " + emptied);
    assertEquals(ItemState.PENDING, store.findByRowId(pending.rowId()).orElseThrow().state());
    assertTrue(store.purge(CUTOFF, 5).isEmpty());
  }

  @Test
  void aNonPositiveBudgetIsRefused() {
    assertThrows(IllegalArgumentException.class, () -> store.purge(CUTOFF, 0));
  }
}
