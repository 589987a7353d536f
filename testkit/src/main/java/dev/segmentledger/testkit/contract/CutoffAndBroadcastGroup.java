package dev.segmentledger.testkit.contract;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.segmentledger.core.BroadcastEndedException;
import dev.segmentledger.core.ItemId;
import dev.segmentledger.core.ItemState;
import dev.segmentledger.core.LedgerItem;
import dev.segmentledger.core.Reason;
import dev.segmentledger.core.spi.Confirmation;
import dev.segmentledger.core.spi.NewItem;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * The {@link StateStoreContract} group on the cutoff ({@code excludeRegisteredBefore}) and the
 * broadcast lifecycle ({@code endBroadcast}). Run as the contract's {@code @Nested} class {@code
 * CutoffAndBroadcasts}, on the store of the enclosing contract test.
 */
abstract class CutoffAndBroadcastGroup extends ContractGroup {

  CutoffAndBroadcastGroup(StateStoreContract contract) {
    super(contract);
  }

  // ---- cutoff and broadcast lifecycle -------------------------------------------------------

  @Test
  void excludeRegisteredBeforeMarksOnlyOldUnconfirmedRows() {
    LedgerItem old = register(ItemId.original("b1", "720p", 0), 10);
    LedgerItem oldConfirmed = register(ItemId.original("b1", "720p", 1), 10);
    store.confirm(new Confirmation(oldConfirmed.rowId(), oldConfirmed.id(),
        ItemState.PENDING, 10, "c", T0));
    LedgerItem oldWaiting = store.register(NewItem.derived(ItemId.playback("b1", "720p", 0), "/p", "/o", T0)).item();
    LedgerItem recent = store.register(NewItem.pending(ItemId.original("b1", "720p", 2), "/r", 10,
        T0.plusSeconds(100))).item();

    assertEquals(2, store.excludeRegisteredBefore(T0.plusSeconds(50), T0.plusSeconds(200), 10));
    for (LedgerItem row : List.of(old, oldWaiting)) {
      LedgerItem excluded = store.findByRowId(row.rowId()).orElseThrow();
      assertEquals(ItemState.EXCLUDED, excluded.state());
      assertEquals(Reason.PAST_CUTOFF, excluded.reason());
    }
    assertEquals(ItemState.CONFIRMED, store.findByRowId(oldConfirmed.rowId()).orElseThrow().state());
    assertEquals(ItemState.PENDING, store.findByRowId(recent.rowId()).orElseThrow().state());
    assertEquals(0, store.excludeRegisteredBefore(T0.plusSeconds(50), T0.plusSeconds(200), 10));
  }

  @Test
  void anOldInitIsKeptWhileNewerPlaybackOfItsRenditionWaitsForIt() {
    LedgerItem init = store.register(NewItem.derived(ItemId.init("b1", "720p"), "/i", "/o", T0)).item();
    LedgerItem otherInit = store.register(NewItem.derived(ItemId.init("b1", "1080p"), "/i2", "/o", T0)).item();
    store.register(NewItem.derived(ItemId.playback("b1", "720p", 5), "/p", "/o", T0.plusSeconds(100)));

    store.excludeRegisteredBefore(T0.plusSeconds(50), T0.plusSeconds(200), 10);
    assertEquals(ItemState.PENDING, store.findByRowId(init.rowId()).orElseThrow().state(), "still needed");
    assertEquals(ItemState.EXCLUDED, store.findByRowId(otherInit.rowId()).orElseThrow().state(), "not needed");
  }

  @Test
  void excludeRegisteredBeforeLeavesARowBeingUploadedAlone() {
    LedgerItem leased = register(ItemId.original("b1", "720p", 0), 10);
    assertTrue(store.claim(leased.rowId(), "node-a", T0.plusSeconds(120), T0).held());

    assertEquals(0, store.excludeRegisteredBefore(T0.plusSeconds(50), T0.plusSeconds(60), 10));
    assertEquals(1, store.excludeRegisteredBefore(T0.plusSeconds(50), T0.plusSeconds(120), 10), "lease expired");
  }

  @Test
  void excludeRegisteredBeforeRespectsTheLimit() {
    for (int i = 0; i < 5; i++) {
      register(ItemId.original("b1", "720p", i), 10);
    }
    assertEquals(3, store.excludeRegisteredBefore(T0.plusSeconds(1), T0, 3));
    assertEquals(2, store.excludeRegisteredBefore(T0.plusSeconds(1), T0, 3));
  }

  @Test
  void anEndedBroadcastRefusesRegistrationsAtomically() {
    register(ItemId.original("b1", "720p", 0), 10);
    assertTrue(store.findBroadcast("b1").isPresent());
    assertFalse(store.findBroadcast("b1").orElseThrow().ended());

    assertTrue(store.endBroadcast("b1", T0.plusSeconds(5)));
    assertFalse(store.endBroadcast("b1", T0.plusSeconds(6)), "ending twice");
    assertEquals(T0.plusSeconds(5), store.findBroadcast("b1").orElseThrow().endedAt());
    assertThrows(BroadcastEndedException.class, () -> store.registerAll(List.of(
        NewItem.pending(ItemId.original("b2", "720p", 0), "/b2", 10, T0),
        NewItem.pending(ItemId.original("b1", "720p", 1), "/b1", 10, T0))));
    assertTrue(store.find(ItemId.original("b2", "720p", 0)).isEmpty(), "nothing of the batch is inserted");
    assertEquals(1, store.findByBroadcast("b1").size());
  }

  @Test
  void endingAnUnknownBroadcastCreatesItEnded() {
    assertTrue(store.findBroadcast("nobody").isEmpty());
    assertTrue(store.endBroadcast("nobody", T0));
    assertTrue(store.findBroadcast("nobody").orElseThrow().ended());
  }
}
