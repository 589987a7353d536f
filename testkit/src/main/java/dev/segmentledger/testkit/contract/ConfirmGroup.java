package dev.segmentledger.testkit.contract;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.segmentledger.core.Axis;
import dev.segmentledger.core.ItemId;
import dev.segmentledger.core.ItemState;
import dev.segmentledger.core.LedgerItem;
import dev.segmentledger.core.spi.Confirmation;
import dev.segmentledger.core.spi.NewItem;
import dev.segmentledger.core.spi.RegisterResult;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.concurrent.Callable;
import org.junit.jupiter.api.Test;

/**
 * The {@link StateStoreContract} group on confirmation: the compare-and-set {@code confirm},
 * concurrent confirms, {@code confirmAll} batches, the init gate and produced files. Run as the
 * contract's {@code @Nested} class {@code Confirmation}, on the store of the enclosing contract
 * test.
 */
abstract class ConfirmGroup extends ContractGroup {

  ConfirmGroup(StateStoreContract contract) {
    super(contract);
  }

  // ---- confirm ------------------------------------------------------------------------------

  @Test
  void confirmSetsStateChecksumAndTimeOnce() {
    LedgerItem row = register(ItemId.original("b1", "720p", 0), 10);
    Instant at = T0.plusMillis(1500);

    assertTrue(store.confirm(new Confirmation(row.rowId(), row.id(),
        ItemState.PENDING, 10, "crc32c:AAAAAA==", at)));
    LedgerItem confirmed = store.findByRowId(row.rowId()).orElseThrow();
    assertEquals(ItemState.CONFIRMED, confirmed.state());
    assertEquals("crc32c:AAAAAA==", confirmed.checksum());
    assertEquals(at, confirmed.confirmedAt());
    assertEquals(row.sizeBytes(), confirmed.sizeBytes());

    assertFalse(store.confirm(new Confirmation(row.rowId(), row.id(),
        ItemState.PENDING, 10, "other", at.plusSeconds(1))), "second confirm");
    assertEquals(confirmed, store.findByRowId(row.rowId()).orElseThrow());
  }

  @Test
  void confirmWithWrongExpectedStateChangesNothing() {
    LedgerItem row = register(ItemId.original("b1", "720p", 0), 10);

    assertFalse(store.confirm(new Confirmation(row.rowId(), row.id(), ItemState.WAITING, 10, "c", T0)));
    assertEquals(row, store.findByRowId(row.rowId()).orElseThrow());
  }

  @Test
  void confirmWithWrongSizeChangesNothing() {
    LedgerItem row = register(ItemId.original("b1", "720p", 0), 10);

    assertFalse(store.confirm(new Confirmation(row.rowId(), row.id(), ItemState.PENDING, 11, "c", T0)));
    assertEquals(row, store.findByRowId(row.rowId()).orElseThrow());
  }

  @Test
  void confirmOfAWaitingRowExpectingWaitingSucceeds() {
    ItemId id = ItemId.playback("b1", "720p", 0);
    LedgerItem row = store.register(new NewItem(id, "/p.m4s", null, 10, ItemState.WAITING, null, null, T0, null, null, null, null, null, null)).item();

    assertTrue(store.confirm(new Confirmation(row.rowId(), row.id(), ItemState.WAITING, 10, null, T0)));
    assertEquals(ItemState.CONFIRMED, store.find(id).orElseThrow().state());
  }

  @Test
  void confirmOfAnUnknownRowReturnsFalse() {
    assertFalse(store.confirm(new Confirmation(424242, ItemId.original("b1", "720p", 0), ItemState.PENDING, 10, "c", T0)));
  }

  @Test
  void aConfirmNamingAnotherBroadcastConfirmsNothing() {
    LedgerItem row = register(ItemId.original("b1", "720p", 0), 10);
    assertFalse(store.confirm(new Confirmation(row.rowId(), ItemId.original("b2", "720p", 0), ItemState.PENDING, 10, "c", T0)),
        "confirm");
    assertArrayEquals(new boolean[] {false, false}, store.confirmAll(List.of(
        new Confirmation(row.rowId(), ItemId.original("b2", "720p", 0), ItemState.PENDING, 10, "c", T0),
        new Confirmation(row.rowId(), ItemId.original("b3", "720p", 0), ItemState.PENDING, 10, "c", T0))),
        "confirmAll");
    assertEquals(ItemState.PENDING, store.findByRowId(row.rowId()).orElseThrow().state());
    assertTrue(store.confirm(Confirmation.of(row, "c", T0)), "with its own broadcast");
  }

  @Test
  void aConfirmNamingAnotherAxisConfirmsNothingSoAnInitIsNeverConfirmedUnawares() {
    LedgerItem init = register(ItemId.init("b1", "720p"), 5);
    LedgerItem original = register(ItemId.original("b1", "720p", 0), 10);
    ItemId asOriginal = ItemId.original("b1", "720p", 0);

    assertFalse(store.confirm(new Confirmation(init.rowId(), asOriginal, ItemState.PENDING, 5, "c", T0)), "alone");
    assertArrayEquals(new boolean[] {false, true}, store.confirmAll(List.of(
        new Confirmation(init.rowId(), asOriginal, ItemState.PENDING, 5, "c", T0),
        Confirmation.of(original, "c", T0))), "in a batch");
    assertEquals(ItemState.PENDING, store.findByRowId(init.rowId()).orElseThrow().state());
    assertTrue(store.confirm(Confirmation.of(init, "c", T0)), "under its own axis");
  }

  @Test
  void ofConcurrentConfirmsOfOneRowExactlyOneWins() throws Exception {
    LedgerItem row = register(ItemId.original("b1", "720p", 0), 10);
    List<Callable<Boolean>> confirmers = new ArrayList<>();
    for (int i = 0; i < CONCURRENT_CONFIRMERS; i++) {
      String checksum = "c" + i;
      confirmers.add(() -> store.confirm(new Confirmation(row.rowId(), row.id(),
          ItemState.PENDING, 10, checksum, T0)));
    }

    assertEquals(1, wins(race(confirmers)));
    assertEquals(ItemState.CONFIRMED, store.findByRowId(row.rowId()).orElseThrow().state());
  }

  @Test
  void confirmAllReportsEachRowAndChangesOnlyThoseWhoseExpectationsHold() {
    LedgerItem good = register(ItemId.original("b1", "720p", 0), 10);
    LedgerItem wrongSize = register(ItemId.original("b1", "720p", 1), 10);
    LedgerItem alreadyConfirmed = register(ItemId.original("b1", "720p", 2), 10);
    LedgerItem alsoGood = register(ItemId.original("b2", "720p", 0), 20);
    assertTrue(store.confirm(new Confirmation(alreadyConfirmed.rowId(), alreadyConfirmed.id(),
        ItemState.PENDING, 10, "first", T0)));
    Instant at = T0.plusSeconds(5);

    boolean[] results = store.confirmAll(List.of(
        new Confirmation(good.rowId(), good.id(), ItemState.PENDING, 10, "c0", at),
        new Confirmation(wrongSize.rowId(), wrongSize.id(), ItemState.PENDING, 11, "c1", at),
        new Confirmation(alreadyConfirmed.rowId(), alreadyConfirmed.id(),
            ItemState.PENDING, 10, "second", at),
        new Confirmation(999_999, ItemId.original("b1", "720p", 9), ItemState.PENDING, 10, "c3", at),
        new Confirmation(alsoGood.rowId(), alsoGood.id(), ItemState.PENDING, 20, null, at)));

    assertEquals("[true, false, false, false, true]", java.util.Arrays.toString(results));
    LedgerItem confirmed = store.findByRowId(good.rowId()).orElseThrow();
    assertEquals(ItemState.CONFIRMED, confirmed.state());
    assertEquals("c0", confirmed.checksum());
    assertEquals(at, confirmed.confirmedAt());
    assertNull(store.findByRowId(alsoGood.rowId()).orElseThrow().checksum());
    assertEquals(ItemState.PENDING, store.findByRowId(wrongSize.rowId()).orElseThrow().state());
    assertEquals("first", store.findByRowId(alreadyConfirmed.rowId()).orElseThrow().checksum());
    assertEquals(0, store.confirmAll(List.of()).length);
  }

  @Test
  void confirmAllReportsARowListedTwiceOnce() {
    LedgerItem row = register(ItemId.original("b1", "720p", 0), 10);
    Confirmation confirmation = new Confirmation(row.rowId(), row.id(), ItemState.PENDING, 10, "c", T0);

    boolean[] results = store.confirmAll(List.of(confirmation, confirmation));

    assertEquals(1, (results[0] ? 1 : 0) + (results[1] ? 1 : 0));
  }

  @Test
  void anInitConfirmedInABatchReleasesItsWaitingPlayback() {
    LedgerItem init = store.register(NewItem.derived(ItemId.init("b1", "720p"), "/i", "/o", T0)).item();
    LedgerItem waiting = store.register(NewItem.derived(ItemId.playback("b1", "720p", 0), "/p", "/o", T0)).item();
    LedgerItem original = register(ItemId.original("b1", "720p", 0), 10);
    store.recordProduced(init.rowId(), ItemState.PENDING, LedgerItem.UNKNOWN_SIZE, "/i", 5, Duration.ZERO);

    boolean[] results = store.confirmAll(List.of(new Confirmation(original.rowId(), original.id(),
        ItemState.PENDING, 10, "o", T0),
        new Confirmation(init.rowId(), init.id(), ItemState.PENDING, 5, "i", T0)));

    assertTrue(results[0] && results[1]);
    assertEquals(ItemState.PENDING, store.findByRowId(waiting.rowId()).orElseThrow().state());
  }

  @Test
  void ofConcurrentBatchesConfirmingTheSameRowsEachRowIsConfirmedOnce() throws Exception {
    List<LedgerItem> rows = new ArrayList<>();
    for (int i = 0; i < 50; i++) {
      rows.add(register(ItemId.original("b1", "720p", i), 10));
    }
    List<Callable<boolean[]>> batches = new ArrayList<>();
    for (int t = 0; t < 4; t++) {
      List<LedgerItem> order = new ArrayList<>(rows);
      Collections.rotate(order, t * 13);
      batches.add(() -> store.confirmAll(order.stream()
          .map(r -> new Confirmation(r.rowId(), r.id(), ItemState.PENDING, 10, "c", T0)).toList()));
    }

    int wins = 0;
    for (boolean[] batch : race(batches)) {
      for (boolean won : batch) {
        wins += won ? 1 : 0;
      }
    }
    assertEquals(50, wins, "every row confirmed by exactly one batch");
    assertEquals(50, store.count(Axis.ORIGINAL, ItemState.CONFIRMED));
  }

  @Test
  void derivedRowsRegisteredAgainAfterProductionAreNotAConflict() {
    ItemId init = ItemId.init("b1", "720p");
    LedgerItem row = store.register(NewItem.derived(init, "/rec/pb/init.mp4", "/rec/0.ts", T0)).item();
    assertTrue(store.recordProduced(row.rowId(), ItemState.PENDING, LedgerItem.UNKNOWN_SIZE, "/rec/pb/init.mp4", 700,
        Duration.ZERO));

    RegisterResult again = store.register(NewItem.derived(init, "/rec/pb/init.mp4", "/rec/1.ts", T0));
    assertFalse(again.created());
    assertEquals(700, again.item().sizeBytes());
  }

  @Test
  void confirmingTheInitReleasesWaitingPlaybackOfItsRenditionOnly() {
    LedgerItem init = store.register(NewItem.derived(ItemId.init("b1", "720p"), "/i", "/o", T0)).item();
    LedgerItem waiting = store.register(NewItem.derived(ItemId.playback("b1", "720p", 0), "/p", "/o", T0)).item();
    LedgerItem otherRendition =
        store.register(NewItem.derived(ItemId.playback("b1", "1080p", 0), "/p2", "/o", T0)).item();
    store.recordProduced(init.rowId(), ItemState.PENDING, LedgerItem.UNKNOWN_SIZE, "/i", 5, Duration.ZERO);

    assertTrue(store.confirm(new Confirmation(init.rowId(), init.id(), ItemState.PENDING, 5, "c", T0)));
    assertEquals(ItemState.PENDING, store.findByRowId(waiting.rowId()).orElseThrow().state());
    assertEquals(ItemState.WAITING, store.findByRowId(otherRendition.rowId()).orElseThrow().state());
    assertEquals(List.of(waiting.rowId()), rowIdsOf(store.findDue(Axis.PLAYBACK, 0, T0, 10).rows()));
  }

  @Test
  void playbackRegisteredAfterItsInitIsConfirmedDoesNotWait() {
    LedgerItem init = store.register(NewItem.derived(ItemId.init("b1", "720p"), "/i", "/o", T0)).item();
    store.recordProduced(init.rowId(), ItemState.PENDING, LedgerItem.UNKNOWN_SIZE, "/i", 5, Duration.ZERO);
    store.confirm(new Confirmation(init.rowId(), init.id(), ItemState.PENDING, 5, "c", T0));

    LedgerItem playback =
        store.register(NewItem.derived(ItemId.playback("b1", "720p", 9), "/p", "/o", T0)).item();
    assertEquals(ItemState.PENDING, playback.state());
  }

  @Test
  void recordProducedIsACompareAndSetOnStateAndSize() {
    LedgerItem row = store.register(NewItem.derived(ItemId.init("b1", "720p"), "/i", "/o", T0)).item();

    assertFalse(store.recordProduced(row.rowId(), ItemState.PENDING, 3, "/x", 5, Duration.ZERO), "wrong size");
    assertFalse(store.recordProduced(row.rowId(), ItemState.WAITING, LedgerItem.UNKNOWN_SIZE, "/x", 5,
        Duration.ZERO), "wrong state");
    assertTrue(store.recordProduced(row.rowId(), ItemState.PENDING, LedgerItem.UNKNOWN_SIZE, "/made", 5,
        Duration.ofMillis(4_000)));
    LedgerItem produced = store.findByRowId(row.rowId()).orElseThrow();
    assertEquals("/made", produced.sourcePath());
    assertEquals(5, produced.sizeBytes());
    assertEquals(Duration.ofMillis(4_000), produced.mediaDuration());
  }
}
