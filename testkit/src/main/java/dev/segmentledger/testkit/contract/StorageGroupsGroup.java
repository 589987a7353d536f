package dev.segmentledger.testkit.contract;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.segmentledger.core.Axis;
import dev.segmentledger.core.ItemId;
import dev.segmentledger.core.ItemState;
import dev.segmentledger.core.LedgerItem;
import dev.segmentledger.core.Reason;
import dev.segmentledger.core.spi.Confirmation;
import dev.segmentledger.core.spi.NewItem;
import dev.segmentledger.core.spi.PlaylistRecord;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * The {@link StateStoreContract} group on storage groups (hosts with local disks): the group a row
 * is registered with, the sweep page of a group, and the explicit hand-over and loss of a group.
 * Run as the contract's {@code @Nested} class {@code StorageGroups}, on the store of the enclosing
 * contract test.
 */
abstract class StorageGroupsGroup extends ContractGroup {

  StorageGroupsGroup(StateStoreContract contract) {
    super(contract);
  }

  private LedgerItem registerIn(String group, ItemId id) {
    return store.register(NewItem.pending(id, "/rec/" + id.sequence() + ".ts", 10, T0).inStorageGroup(group)).item();
  }

  private static ItemId original(long sequence) {
    return ItemId.original("b1", "720p", sequence);
  }

  @Test
  void aRowKeepsTheGroupItWasRegisteredWithInEveryRegistrationPath() {
    LedgerItem one = registerIn("host-a", original(0));
    List<NewItem> batch = new ArrayList<>();
    for (int i = 1; i <= 8; i++) { // past the size a database store inserts row by row
      batch.add(NewItem.pending(original(i), "/rec/" + i + ".ts", 10, T0).inStorageGroup(i % 2 == 0 ? "host-b" : null));
    }
    List<LedgerItem> created = store.registerAll(batch).stream().map(r -> r.item()).toList();

    assertEquals("host-a", one.storageGroup());
    assertEquals("host-a", store.find(original(0)).orElseThrow().storageGroup());
    for (int i = 1; i <= 8; i++) {
      String expected = i % 2 == 0 ? "host-b" : null;
      assertEquals(expected, created.get(i - 1).storageGroup(), "as returned by registerAll");
      assertEquals(expected, store.findByRowId(created.get(i - 1).rowId()).orElseThrow().storageGroup(), "as read");
    }
    assertEquals("host-a", store.register(NewItem.pending(original(0), "/other.ts", 10, T0).inStorageGroup("host-b"))
        .item().storageGroup(), "a registration again returns the existing row, group and all");
  }

  @Test
  void theSweepPageOfAGroupHoldsItsRowsAndRowsOfNoGroupOnlyInRowIdOrder() {
    List<Long> ofA = new ArrayList<>();
    List<Long> ofNone = new ArrayList<>();
    List<Long> ofAOrNone = new ArrayList<>();
    for (int i = 0; i < 30; i++) {
      String group = i % 3 == 0 ? "host-a" : i % 3 == 1 ? "host-b" : null;
      long rowId = registerIn(group, original(i)).rowId();
      if ("host-a".equals(group)) {
        ofA.add(rowId);
      }
      if (group == null) {
        ofNone.add(rowId);
      }
      if (!"host-b".equals(group)) {
        ofAOrNone.add(rowId);
      }
    }

    assertEquals(ofAOrNone, rowIdsOf(store.findDue(Axis.ORIGINAL, "host-a", 0, T0, 100).rows()));
    assertEquals(ofAOrNone.subList(0, 5), rowIdsOf(store.findDue(Axis.ORIGINAL, "host-a", 0, T0, 5).rows()),
        "the limit counts rows of both kinds, the lowest ids first");
    assertEquals(ofAOrNone.subList(5, 10),
        rowIdsOf(store.findDue(Axis.ORIGINAL, "host-a", ofAOrNone.get(4), T0, 5).rows()), "after the cursor");
    assertEquals(ofNone, rowIdsOf(store.findDue(Axis.ORIGINAL, null, 0, T0, 100).rows()),
        "a node without a group reads only rows of no group");
    assertEquals(ofNone, rowIdsOf(store.findDue(Axis.ORIGINAL, 0, T0, 100).rows()), "the four-argument page is that one");
    assertEquals(ofNone, rowIdsOf(store.findDue(Axis.ORIGINAL, "host-c", 0, T0, 100).rows()),
        "a group with no rows of its own still reads the rows of no group");
    assertEquals(List.of(), store.findDue(Axis.PLAYBACK, "host-a", 0, T0, 100).rows(), "one axis per page");
    assertTrue(ofA.size() == 10);
  }

  @Test
  void aLeaseOfADeadNodeKeepsItsRowOutOfItsGroupsPageUntilItExpiresAndNeverReachesAnotherGroup() {
    LedgerItem row = store.register(NewItem.pending(original(0), "/rec/0.ts", 10, T0).inStorageGroup("host-a")
        .leasedTo("node-a1", LEASE_END)).item();

    assertEquals(List.of(), store.findDue(Axis.ORIGINAL, "host-a", 0, T0, 10).rows(), "leased");
    assertEquals(List.of(row.rowId()), rowIdsOf(store.findDue(Axis.ORIGINAL, "host-a", 0, LEASE_END, 10).rows()),
        "due again for its group once the lease expired");
    assertEquals(List.of(), store.findDue(Axis.ORIGINAL, "host-b", 0, LEASE_END, 10).rows(), "never for another group");
    assertTrue(store.claim(row.rowId(), "node-a2", LEASE_END.plusSeconds(120), LEASE_END).held(),
        "another node of the group takes it over");
  }

  @Test
  void handOverMovesTheOpenRowsOfOneGroupOnlyAndKeepsEverythingElseOfThem() {
    LedgerItem pending = store.register(NewItem.pending(original(0), "/rec/0.ts", 10, T0).inStorageGroup("host-a")
        .leasedTo("node-a", LEASE_END)).item();
    LedgerItem waiting = store.register(new NewItem(ItemId.playback("b1", "720p", 0), "/p/0.m4s", "/rec/0.ts", -1, ItemState.WAITING, null, null, T0, null, null, null, null, null, null).inStorageGroup("host-a")).item();
    LedgerItem confirmed = registerIn("host-a", original(1));
    assertTrue(store.confirm(new Confirmation(confirmed.rowId(), confirmed.id(),
        ItemState.PENDING, 10, null, T0)));
    LedgerItem rejected = registerIn("host-a", original(2));
    assertTrue(store.markTerminal(rejected.rowId(), ItemState.PENDING, "node-a", ItemState.REJECTED,
        Reason.FILE_CHANGED, "x", T0));
    LedgerItem otherGroup = registerIn("host-b", original(3));
    LedgerItem noGroup = registerIn(null, original(4));

    assertEquals(1, store.handOver("host-a", "host-c", 1), "at most the limit");
    assertEquals(1, store.handOver("host-a", "host-c", 10));
    assertEquals(0, store.handOver("host-a", "host-c", 10), "nothing left");

    LedgerItem movedPending = store.findByRowId(pending.rowId()).orElseThrow();
    assertEquals("host-c", movedPending.storageGroup());
    assertEquals(ItemState.PENDING, movedPending.state());
    assertEquals(LEASE_END, movedPending.nextAttemptAt(), "the lease is kept");
    assertEquals("host-c", store.findByRowId(waiting.rowId()).orElseThrow().storageGroup());
    assertEquals(ItemState.WAITING, store.findByRowId(waiting.rowId()).orElseThrow().state());
    assertEquals("host-a", store.findByRowId(confirmed.rowId()).orElseThrow().storageGroup(), "terminal rows stay");
    assertEquals("host-a", store.findByRowId(rejected.rowId()).orElseThrow().storageGroup(), "terminal rows stay");
    assertEquals("host-b", store.findByRowId(otherGroup.rowId()).orElseThrow().storageGroup());
    assertEquals(List.of(pending.rowId(), noGroup.rowId()),
        rowIdsOf(store.findDue(Axis.ORIGINAL, "host-c", 0, LEASE_END, 10).rows()), "the new group sweeps it");

    assertEquals(1, store.handOver(null, "host-b", 10), "rows of no group can be given a group");
    assertEquals("host-b", store.findByRowId(noGroup.rowId()).orElseThrow().storageGroup());
    assertEquals(2, store.handOver("host-b", null, 10), "and a group's rows given to shared storage");
    assertNull(store.findByRowId(otherGroup.rowId()).orElseThrow().storageGroup());
  }

  @Test
  void markStorageLostRejectsTheOpenRowsOfTheGroupOnlyAndTheyCanBeReopened() {
    LedgerItem leased = store.register(NewItem.pending(original(0), "/rec/0.ts", 10, T0).inStorageGroup("host-a")
        .leasedTo("node-a", LEASE_END)).item();
    LedgerItem init = store.register(NewItem.pending(ItemId.init("b1", "720p"), "/p/init.mp4", 100, T0)
        .inStorageGroup("host-a")).item();
    LedgerItem waiting = store.register(new NewItem(ItemId.playback("b1", "720p", 0), "/p/0.m4s", "/rec/0.ts", -1, ItemState.WAITING, null, null, T0, null, null, null, null, null, null).inStorageGroup("host-a")).item();
    LedgerItem confirmed = registerIn("host-a", original(1));
    assertTrue(store.confirm(new Confirmation(confirmed.rowId(), confirmed.id(),
        ItemState.PENDING, 10, null, T0)));
    LedgerItem otherGroup = registerIn("host-b", original(2));
    LedgerItem noGroup = registerIn(null, original(3));
    long wantedBefore = wantedOfMediaPlaylist();

    Instant afterTheLease = LEASE_END.plusSeconds(1); // the lost host's lease ran out
    assertEquals(2, store.markStorageLost("host-a", "host-a is gone", afterTheLease, 2), "at most the limit");
    assertEquals(1, store.markStorageLost("host-a", "host-a is gone", afterTheLease, 10));
    assertEquals(0, store.markStorageLost("host-a", "host-a is gone", afterTheLease, 10));

    for (LedgerItem row : List.of(leased, init, waiting)) {
      LedgerItem lost = store.findByRowId(row.rowId()).orElseThrow();
      assertEquals(ItemState.REJECTED, lost.state(), row.id().toString());
      assertEquals(Reason.STORAGE_LOST, lost.reason());
      assertEquals("host-a is gone", lost.lastError());
      assertEquals("host-a", lost.storageGroup(), "the group is kept");
    }
    assertTrue(wantedOfMediaPlaylist() > wantedBefore, "a lost INIT or segment alters its playlist (a gap)");
    assertEquals(ItemState.CONFIRMED, store.findByRowId(confirmed.rowId()).orElseThrow().state());
    assertEquals(ItemState.PENDING, store.findByRowId(otherGroup.rowId()).orElseThrow().state());
    assertEquals(ItemState.PENDING, store.findByRowId(noGroup.rowId()).orElseThrow().state());

    Instant later = afterTheLease.plusSeconds(1);
    assertTrue(store.reopen(leased.rowId(), ItemState.REJECTED, Reason.REOPENED, "disk back", later),
        "re-opened like any rejected row");
    assertTrue(store.claim(leased.rowId(), "node-a2", later.plusSeconds(200), later).held(), "its old lease is gone");
    assertEquals("host-a", store.findByRowId(leased.rowId()).orElseThrow().storageGroup());
  }

  @Test
  void markStorageLostLeavesARowUnderALiveLeaseAloneUntilTheLeaseEnds() {
    // A store with a clock of its own judges the lease by it: the lease is taken on its time.
    Instant now = store.currentTime().orElse(T0);
    Instant leaseEnd = now.plusSeconds(120);
    LedgerItem leased = store.register(NewItem.pending(original(0), "/rec/0.ts", 10, T0).inStorageGroup("host-a")
        .leasedTo("node-a", leaseEnd)).item();
    LedgerItem idle = registerIn("host-a", original(1));

    assertEquals(1, store.markStorageLost("host-a", "host-a is gone", now.plusSeconds(1), 10),
        "a node still holds a lease on a row: its disk is not lost");
    assertEquals(0, store.markStorageLost("host-a", "host-a is gone", now.plusSeconds(1), 10), "and the loop ends");
    assertEquals(ItemState.PENDING, store.findByRowId(leased.rowId()).orElseThrow().state());
    assertEquals(ItemState.REJECTED, store.findByRowId(idle.rowId()).orElseThrow().state());
    assertTrue(store.renew(leased.rowId(), "node-a", leaseEnd, leaseEnd.plusSeconds(60)),
        "the lease holder goes on as before");
    assertEquals(0, store.markStorageLost("host-a", "host-a is gone", now.plusSeconds(2), 10), "renewed");

    Instant ended = now.minusSeconds(1); // the holder is gone: its lease ends before the store's now
    assertTrue(store.renew(leased.rowId(), "node-a", leaseEnd.plusSeconds(60), ended));
    assertEquals(1, store.markStorageLost("host-a", "host-a is gone", now.plusSeconds(2), 10),
        "once the lease has run out, the row is marked");
    assertEquals(ItemState.REJECTED, store.findByRowId(leased.rowId()).orElseThrow().state());
  }

  private long wantedOfMediaPlaylist() {
    return store.playlists().find("b1").stream()
        .filter(r -> "720p".equals(r.rendition()))
        .mapToLong(PlaylistRecord::wanted)
        .sum();
  }
}
