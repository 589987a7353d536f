package dev.segmentledger.testkit.contract;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.segmentledger.core.ItemId;
import dev.segmentledger.core.ItemState;
import dev.segmentledger.core.LedgerItem;
import dev.segmentledger.core.Reason;
import dev.segmentledger.core.spi.Confirmation;
import dev.segmentledger.core.spi.NewItem;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * The {@link StateStoreContract} group on the recorder's disk: the confirmed rows whose produced
 * file the ledger may still have to delete ({@code findLocalFilesToRemove}), and the mark that
 * takes a row out of them ({@code markLocalFileDone}). Run as the contract's {@code @Nested} class
 * {@code LocalFiles}, on the store of the enclosing contract test.
 */
abstract class LocalFilesGroup extends ContractGroup {

  LocalFilesGroup(StateStoreContract contract) {
    super(contract);
  }

  /** An INIT row produced from an original, of {@code group}, confirmed with 10 bytes. */
  private LedgerItem confirmedInit(String rendition, String group) {
    ItemId id = ItemId.init("b1", rendition);
    LedgerItem row = store.register(NewItem.derived(id, "/rec/playback/" + id.objectKey(), "/rec/0.ts", T0)
        .inStorageGroup(group)).item();
    assertTrue(store.recordProduced(row.rowId(), ItemState.PENDING, row.sizeBytes(), row.sourcePath(), 10, null));
    assertTrue(store.confirm(new Confirmation(row.rowId(), id, ItemState.PENDING, 10, "c", T0.plusSeconds(1))));
    return store.findByRowId(row.rowId()).orElseThrow();
  }

  @Test
  void confirmedProducedRowsAreListedInRowIdOrderPastTheCursorUntilMarked() {
    LedgerItem a = confirmedInit("360p", null);
    LedgerItem b = confirmedInit("720p", null);
    LedgerItem c = confirmedInit("1080p", null);
    register(ItemId.original("b1", "720p", 0), 10); // an original: not the ledger's file
    LedgerItem original = register(ItemId.original("b1", "720p", 1), 10);
    assertTrue(store.confirm(new Confirmation(original.rowId(), original.id(), ItemState.PENDING, 10, "c", T0)));
    ItemId open = ItemId.init("b2", "720p");
    store.register(NewItem.derived(open, "/rec/playback/" + open.objectKey(), "/rec/0.ts", T0)); // not confirmed

    assertEquals(List.of(a.rowId(), b.rowId(), c.rowId()), rowIdsOf(store.findLocalFilesToRemove(null, 0, 10)));
    assertEquals(List.of(a.rowId(), b.rowId()), rowIdsOf(store.findLocalFilesToRemove(null, 0, 2)));
    assertEquals(List.of(c.rowId()), rowIdsOf(store.findLocalFilesToRemove(null, b.rowId(), 2)));
    LedgerItem listed = store.findLocalFilesToRemove(null, 0, 1).get(0);
    assertEquals(a.sourcePath(), listed.sourcePath());
    assertEquals(10, listed.sizeBytes());

    assertTrue(store.markLocalFileDone(b.rowId(), T0.plusSeconds(2)));
    assertFalse(store.markLocalFileDone(b.rowId(), T0.plusSeconds(3)), "marked once");
    assertEquals(List.of(a.rowId(), c.rowId()), rowIdsOf(store.findLocalFilesToRemove(null, 0, 10)));
  }

  @Test
  void onlyConfirmedRowsAreMarkedAndAReopenClearsTheMark() {
    LedgerItem row = confirmedInit("720p", null);
    ItemId open = ItemId.init("b2", "720p");
    LedgerItem pending = store.register(NewItem.derived(open, "/rec/playback/" + open.objectKey(), "/rec/0.ts", T0))
        .item();
    assertFalse(store.markLocalFileDone(pending.rowId(), T0), "an unconfirmed row's file is still to upload");
    assertFalse(store.markLocalFileDone(Long.MAX_VALUE, T0), "an unknown row");
    assertTrue(store.markLocalFileDone(row.rowId(), T0.plusSeconds(2)));
    assertTrue(store.findLocalFilesToRemove(null, 0, 10).isEmpty());

    assertTrue(store.reopen(row.rowId(), ItemState.CONFIRMED, Reason.OBJECT_MISSING, "gone", T0.plusSeconds(3)));
    assertTrue(store.findLocalFilesToRemove(null, 0, 10).isEmpty(), "re-opened: to upload again");
    assertTrue(store.confirm(new Confirmation(row.rowId(), row.id(), ItemState.PENDING, 10, "c", T0.plusSeconds(4))));
    assertEquals(List.of(row.rowId()), rowIdsOf(store.findLocalFilesToRemove(null, 0, 10)),
        "confirmed again: its file is to delete again");
  }

  @Test
  void aGroupReadsItsRowsAndRowsOfNoGroup() {
    LedgerItem ofA = confirmedInit("360p", "host-a");
    LedgerItem ofB = confirmedInit("720p", "host-b");
    LedgerItem ofNone = confirmedInit("1080p", null);

    assertEquals(List.of(ofA.rowId(), ofNone.rowId()), rowIdsOf(store.findLocalFilesToRemove("host-a", 0, 10)));
    assertEquals(List.of(ofB.rowId(), ofNone.rowId()), rowIdsOf(store.findLocalFilesToRemove("host-b", 0, 10)));
    assertEquals(List.of(ofNone.rowId()), rowIdsOf(store.findLocalFilesToRemove(null, 0, 10)));
  }

  /** An ORIGINAL of {@code group}, confirmed at {@code T0 + seconds}. */
  private LedgerItem confirmedOriginal(long sequence, String group, long seconds) {
    ItemId id = ItemId.original("b1", "720p", sequence);
    LedgerItem row = store.register(NewItem.pending(id, "/rec/" + sequence + ".ts", 10, T0).inStorageGroup(group))
        .item();
    assertTrue(store.confirm(new Confirmation(row.rowId(), id, ItemState.PENDING, 10, "c", T0.plusSeconds(seconds))));
    return store.findByRowId(row.rowId()).orElseThrow();
  }

  @Test
  void anotherUnconfirmedRowWithTheSameSourcePathIsFound() {
    LedgerItem confirmed = confirmedOriginal(0, null, 10);
    assertFalse(store.hasUnconfirmedRowWithSourcePath(confirmed.sourcePath(), confirmed.rowId()), "only itself");
    LedgerItem other = confirmedOriginal(1, null, 10);
    assertFalse(store.hasUnconfirmedRowWithSourcePath(other.sourcePath(), confirmed.rowId()), "confirmed");
    LedgerItem sharing = store.register(NewItem.pending(ItemId.original("b2", "720p", 0), confirmed.sourcePath(), 10,
        T0)).item();
    assertTrue(store.hasUnconfirmedRowWithSourcePath(confirmed.sourcePath(), confirmed.rowId()));
    assertFalse(store.hasUnconfirmedRowWithSourcePath(confirmed.sourcePath(), sharing.rowId()),
        "the other row is confirmed");
    assertFalse(store.hasUnconfirmedRowWithSourcePath("/rec/elsewhere.ts", confirmed.rowId()));
    assertTrue(store.confirm(new Confirmation(sharing.rowId(), sharing.id(), ItemState.PENDING, 10, "c", T0)));
    assertFalse(store.hasUnconfirmedRowWithSourcePath(confirmed.sourcePath(), confirmed.rowId()), "both confirmed");
    assertTrue(store.reopen(sharing.rowId(), ItemState.CONFIRMED, Reason.OBJECT_MISSING, "gone", T0.plusSeconds(1)));
    assertTrue(store.hasUnconfirmedRowWithSourcePath(confirmed.sourcePath(), confirmed.rowId()), "re-opened");
  }

  @Test
  void confirmedOriginalsOfAGroupAreListedInConfirmOrderUpToTheCutoffUntilMarked() {
    LedgerItem late = confirmedOriginal(0, null, 30);
    LedgerItem early = confirmedOriginal(1, null, 10);
    LedgerItem sameTime = confirmedOriginal(2, null, 10);
    LedgerItem tooRecent = confirmedOriginal(3, null, 100);
    LedgerItem ofA = confirmedOriginal(4, "host-a", 10);
    register(ItemId.original("b1", "720p", 5), 10); // not confirmed
    confirmedInit("720p", null); // not an original
    java.time.Instant cutoff = T0.plusSeconds(60);

    assertEquals(List.of(early.rowId(), sameTime.rowId(), late.rowId()),
        rowIdsOf(store.findOriginalsToRemove(null, cutoff, java.time.Instant.MIN, 0, 10)));
    assertEquals(List.of(early.rowId(), sameTime.rowId()),
        rowIdsOf(store.findOriginalsToRemove(null, cutoff, java.time.Instant.MIN, 0, 2)));
    assertEquals(List.of(late.rowId()),
        rowIdsOf(store.findOriginalsToRemove(null, cutoff, sameTime.confirmedAt(), sameTime.rowId(), 2)),
        "past the (confirmed time, row id) cursor");
    assertEquals(List.of(ofA.rowId()),
        rowIdsOf(store.findOriginalsToRemove("host-a", cutoff, java.time.Instant.MIN, 0, 10)),
        "a group's own rows only: the group that owns the disk");
    assertEquals(List.of(early.rowId(), sameTime.rowId(), late.rowId(), tooRecent.rowId()),
        rowIdsOf(store.findOriginalsToRemove(null, T0.plusSeconds(100), java.time.Instant.MIN, 0, 10)),
        "confirmed at the cutoff is included");

    assertTrue(store.markLocalFileDone(early.rowId(), T0.plusSeconds(70)));
    assertEquals(List.of(sameTime.rowId(), late.rowId()),
        rowIdsOf(store.findOriginalsToRemove(null, cutoff, java.time.Instant.MIN, 0, 10)));
  }
}
