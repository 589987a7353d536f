package dev.segmentledger.testkit.contract;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.segmentledger.core.Axis;
import dev.segmentledger.core.ItemId;
import dev.segmentledger.core.ItemState;
import dev.segmentledger.core.Lane;
import dev.segmentledger.core.LedgerItem;
import dev.segmentledger.core.Reason;
import dev.segmentledger.core.spi.BroadcastRecord;
import dev.segmentledger.core.spi.ClaimedRow;
import dev.segmentledger.core.spi.Confirmation;
import dev.segmentledger.core.spi.NewItem;
import dev.segmentledger.core.spi.RegisterResult;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * The {@link StateStoreContract} group on lane hints: the lane a row is registered in
 * ({@link NewItem#lane()}), returned by every read of the row (the sweep page and the claim
 * included) and kept by its transitions; a broadcast's hint ({@code prioritize}), stored on its
 * record and read back by {@code findBroadcast}, cleared by {@code null}. Run as the contract's
 * {@code @Nested} class {@code LaneHints}, on the store of the enclosing contract test.
 */
abstract class LaneHintsGroup extends ContractGroup {

  LaneHintsGroup(StateStoreContract contract) {
    super(contract);
  }

  private static NewItem original(long sequence, Lane lane) {
    ItemId id = ItemId.original("b1", "720p", sequence);
    return NewItem.pending(id, "/rec/" + sequence + ".ts", 10, T0).inLane(lane);
  }

  @Test
  void aRowKeepsTheLaneItWasRegisteredInInEveryRegistrationPathAndEveryRead() {
    LedgerItem one = store.register(original(0, Lane.BACKFILL)).item();
    List<NewItem> batch = new ArrayList<>();
    Lane[] lanes = {null, Lane.LIVE, Lane.ORIGINAL, Lane.BACKFILL};
    for (int i = 1; i <= 8; i++) { // past the size a database store inserts row by row
      batch.add(original(i, lanes[i % lanes.length]));
    }
    List<LedgerItem> created = store.registerAll(batch).stream().map(RegisterResult::item).toList();

    assertEquals(Lane.BACKFILL, one.lane());
    assertEquals(Lane.BACKFILL, store.find(one.id()).orElseThrow().lane());
    for (int i = 1; i <= 8; i++) {
      Lane expected = lanes[i % lanes.length];
      assertEquals(expected, created.get(i - 1).lane(), "as returned by registerAll");
      assertEquals(expected, store.findByRowId(created.get(i - 1).rowId()).orElseThrow().lane(), "as read");
    }
    List<LedgerItem> due = store.findDue(Axis.ORIGINAL, 0, T0, 100).rows();
    assertEquals(9, due.size());
    assertEquals(Lane.BACKFILL, due.get(0).lane(), "as the sweep page reads it");
    for (int i = 1; i <= 8; i++) {
      assertEquals(lanes[i % lanes.length], due.get(i).lane(), "as the sweep page reads it");
    }
    assertEquals(Lane.BACKFILL, store.register(original(0, Lane.LIVE)).item().lane(),
        "a registration again returns the existing row, lane and all");
    assertEquals(Lane.BACKFILL, store.findByBroadcast("b1").get(0).lane());
  }

  @Test
  void aRowsLaneIsReturnedByItsClaimAndKeptByEveryTransition() {
    LedgerItem row = store.register(original(1, Lane.LIVE)).item();

    ClaimedRow claimed = store.claimRow(row.rowId(), "node-a", LEASE_END, T0);
    assertTrue(claimed.claim().held());
    assertEquals(Lane.LIVE, claimed.row().lane(), "as the claim returns it");
    assertTrue(store.recordFailure(row.rowId(), ItemState.PENDING, "node-a", Reason.SINK_TRANSIENT, "503", T0));
    assertEquals(Lane.LIVE, store.find(row.id()).orElseThrow().lane());
    assertTrue(store.confirm(new Confirmation(row.rowId(), row.id(), ItemState.PENDING, 10, "c", T0)));
    assertEquals(Lane.LIVE, store.find(row.id()).orElseThrow().lane());
    assertTrue(store.reopen(row.rowId(), ItemState.CONFIRMED, Reason.OBJECT_MISSING, "gone", T0));
    assertEquals(Lane.LIVE, store.find(row.id()).orElseThrow().lane());
    assertNull(store.register(original(2, null)).item().lane(), "no hint, no lane");
  }

  @Test
  void aBroadcastsHintIsStoredOnItsRecordAndNullClearsIt() {
    register(ItemId.original("b1", "720p", 0), 10);
    assertNull(store.findBroadcast("b1").orElseThrow().lane(), "no hint until one is given");

    store.prioritize("b1", Lane.LIVE, T0.plusSeconds(1));
    assertEquals(Lane.LIVE, store.findBroadcast("b1").orElseThrow().lane());
    store.prioritize("b1", Lane.BACKFILL, T0.plusSeconds(2));
    assertEquals(Lane.BACKFILL, store.findBroadcast("b1").orElseThrow().lane(), "the last hint wins");
    store.prioritize("b1", null, T0.plusSeconds(3));
    BroadcastRecord cleared = store.findBroadcast("b1").orElseThrow();
    assertNull(cleared.lane(), "null clears it");
    assertEquals(T0, cleared.createdAt(), "the record is kept as it was");
    assertFalse(cleared.ended());
    register(ItemId.original("b1", "720p", 1), 10);
    assertNull(store.findBroadcast("b1").orElseThrow().lane());
  }

  @Test
  void aBroadcastMayBeHintedBeforeItsFirstRegistrationAndAfterItsEnd() {
    store.prioritize("early", Lane.LIVE, T0);
    BroadcastRecord early = store.findBroadcast("early").orElseThrow();
    assertEquals(Lane.LIVE, early.lane());
    assertEquals(T0, early.createdAt());
    assertFalse(early.ended(), "a hint creates a live broadcast");
    register(ItemId.original("early", "720p", 0), 10);
    assertEquals(Lane.LIVE, store.findBroadcast("early").orElseThrow().lane(), "a registration keeps the hint");

    assertTrue(store.endBroadcast("early", T0.plusSeconds(5)));
    assertEquals(Lane.LIVE, store.findBroadcast("early").orElseThrow().lane(), "the end keeps the hint");
    store.prioritize("early", Lane.ORIGINAL, T0.plusSeconds(6));
    BroadcastRecord ended = store.findBroadcast("early").orElseThrow();
    assertEquals(Lane.ORIGINAL, ended.lane());
    assertTrue(ended.ended(), "a hint never re-opens an ended broadcast");

    store.prioritize("unknown", null, T0);
    assertTrue(store.findBroadcast("unknown").isEmpty(), "clearing the hint of an unknown broadcast creates nothing");
  }
}
