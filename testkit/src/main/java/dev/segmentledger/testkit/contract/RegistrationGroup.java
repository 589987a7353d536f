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
import dev.segmentledger.core.RegistrationConflictException;
import dev.segmentledger.core.spi.Confirmation;
import dev.segmentledger.core.spi.NewItem;
import dev.segmentledger.core.spi.RegisterResult;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Random;
import org.junit.jupiter.api.Test;

/**
 * The {@link StateStoreContract} group on registration: idempotent {@code register}, conflicts,
 * terminal and waiting registrations, atomic {@code registerAll} batches and rows leased at
 * registration. Run as the contract's {@code @Nested} class {@code Registration}, on the store of
 * the enclosing contract test.
 */
abstract class RegistrationGroup extends ContractGroup {

  RegistrationGroup(StateStoreContract contract) {
    super(contract);
  }

  // ---- register -----------------------------------------------------------------------------

  @Test
  void aRowKeepsTheTraceContextOfItsRegistrationForItsUpload() {
    ItemId id = ItemId.original("b1", "720p", 0);
    String context = "traceparent=00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01";
    LedgerItem row = store.register(NewItem.pending(id, "/rec/" + id.objectKey(), 10, T0).withTraceContext(context))
        .item();

    assertEquals(context, row.traceContext());
    assertEquals(context, store.find(id).orElseThrow().traceContext());
    assertEquals(context, store.findDue(Axis.ORIGINAL, 0, T0, 10).rows().get(0).traceContext(), "as the sweep reads it");
    assertEquals(context, store.claimRow(row.rowId(), "node-a", T0.plusSeconds(60), T0).row().traceContext(),
        "as the claim returns it");
  }

  @Test
  void registerCreatesPendingRowWithAllFields() {
    ItemId id = ItemId.original("b1", "720p", 7);
    RegisterResult result = store.register(NewItem.pending(id, "/rec/b1/7.ts", 1234, T0));

    assertTrue(result.created());
    LedgerItem row = result.item();
    assertTrue(row.rowId() > 0, "row ids are positive so that cursor 0 starts a sweep cycle");
    assertEquals(id, row.id());
    assertEquals("/rec/b1/7.ts", row.sourcePath());
    assertEquals(1234, row.sizeBytes());
    assertEquals(ItemState.PENDING, row.state());
    assertEquals(0, row.attempts());
    assertNull(row.reason());
    assertNull(row.lastError());
    assertEquals(T0, row.registeredAt());
    assertEquals(T0, row.nextAttemptAt(), "a new row is due at once");
    assertNull(row.confirmedAt());
    assertNull(row.checksum());
    assertEquals(row, store.findByRowId(row.rowId()).orElseThrow());
  }

  @Test
  void rowIdsGrowWithInsertionOrder() {
    long previous = 0;
    for (int i = 0; i < 5; i++) {
      long rowId = register(ItemId.original("b1", "720p", 10 - i), 10).rowId();
      assertTrue(rowId > previous, "row id " + rowId + " after " + previous);
      previous = rowId;
    }
  }

  @Test
  void registeringTheSameIdentityAndSizeAgainReturnsTheExistingRow() {
    ItemId id = ItemId.original("b1", "720p", 1);
    LedgerItem first = register(id, 100);
    store.markTerminal(first.rowId(), ItemState.PENDING, "node-a", ItemState.EXCLUDED, Reason.PAST_CUTOFF, "old", T0);
    LedgerItem existing = store.findByRowId(first.rowId()).orElseThrow();

    RegisterResult again = store.register(NewItem.pending(id, "/elsewhere.ts", 100, T0.plusSeconds(60)));

    assertFalse(again.created());
    assertEquals(existing, again.item(), "the existing row, unchanged");
    assertEquals(1, store.findByBroadcast("b1").size());
  }

  @Test
  void registeringTheSameIdentityWithAnotherSizeThrowsAndLeavesTheRowUnchanged() {
    ItemId id = ItemId.original("b1", "720p", 1);
    LedgerItem first = register(id, 100);

    RegistrationConflictException conflict = assertThrows(RegistrationConflictException.class,
        () -> store.register(NewItem.pending(id, "/other.ts", 101, T0.plusSeconds(1))));

    assertEquals(first, conflict.existing());
    assertEquals(first, store.find(id).orElseThrow());
    assertEquals(1, store.findByBroadcast("b1").size());
  }

  @Test
  void theSameSequenceOnAnotherAxisOrRenditionIsAnotherRow() {
    LedgerItem original = register(ItemId.original("b1", "720p", 1), 100);
    LedgerItem playback = register(ItemId.playback("b1", "720p", 1), 200);
    LedgerItem otherRendition = register(ItemId.original("b1", "1080p", 1), 300);
    LedgerItem otherBroadcast = register(ItemId.original("b2", "720p", 1), 400);

    assertEquals(4, List.of(original.rowId(), playback.rowId(), otherRendition.rowId(), otherBroadcast.rowId())
        .stream().distinct().count());
  }

  @Test
  void rejectedRegistrationIsInsertedTerminalWithItsReason() {
    ItemId id = ItemId.original("b1", "720p", 3);
    RegisterResult result = store.register(
        NewItem.rejected(id, "/etc/passwd", 0, Reason.OUTSIDE_ROOT, "/etc/passwd is outside /rec", T0));

    assertTrue(result.created());
    LedgerItem row = store.find(id).orElseThrow();
    assertEquals(ItemState.REJECTED, row.state());
    assertEquals(Reason.OUTSIDE_ROOT, row.reason());
    assertEquals("/etc/passwd is outside /rec", row.lastError());
    assertEquals(0, row.attempts());
    assertTrue(store.findDue(Axis.ORIGINAL, 0, T0.plusSeconds(3600), 10).rows().isEmpty(), "never swept");
    assertEquals(1, store.count(Axis.ORIGINAL, ItemState.REJECTED));
  }

  @Test
  void waitingRegistrationIsNotSwept() {
    ItemId id = ItemId.playback("b1", "720p", 0);
    store.register(new NewItem(id, "/rec/p0.m4s", null, 10, ItemState.WAITING, null, null, T0, null, null, null, null, null, null));

    assertEquals(ItemState.WAITING, store.find(id).orElseThrow().state());
    assertTrue(store.findDue(Axis.PLAYBACK, 0, T0.plusSeconds(3600), 10).rows().isEmpty());
  }

  // ---- atomic batches, the init gate, produced files ----------------------------------------

  @Test
  void registerAllIsAllOrNothingOnConflict() {
    ItemId taken = ItemId.original("b1", "720p", 1);
    register(taken, 10);
    ItemId fresh = ItemId.original("b1", "720p", 2);

    assertThrows(RegistrationConflictException.class, () -> store.registerAll(List.of(
        NewItem.pending(fresh, "/rec/2.ts", 10, T0), NewItem.pending(taken, "/rec/1.ts", 99, T0))));
    assertTrue(store.find(fresh).isEmpty(), "no row of a refused batch is inserted");
  }

  @Test
  void registerAllReturnsOneResultPerItemInOrder() {
    ItemId original = ItemId.original("b1", "720p", 3);
    ItemId init = ItemId.init("b1", "720p");
    ItemId playback = ItemId.playback("b1", "720p", 3);
    List<RegisterResult> results = store.registerAll(List.of(
        NewItem.pending(original, "/rec/3.ts", 10, T0),
        NewItem.derived(init, "/rec/pb/init.mp4", "/rec/3.ts", T0),
        NewItem.derived(playback, "/rec/pb/3.m4s", "/rec/3.ts", T0)));

    assertEquals(List.of(original, init, playback), results.stream().map(r -> r.item().id()).toList());
    LedgerItem derived = results.get(2).item();
    assertEquals(ItemState.WAITING, derived.state());
    assertEquals(LedgerItem.UNKNOWN_SIZE, derived.sizeBytes());
    assertEquals("/rec/3.ts", derived.originPath());
    assertEquals(ItemState.PENDING, results.get(1).item().state());
  }

  @Test
  void aLargeBatchIsInsertedInIdentityOrderWithExistingRowsReturnedAsTheyAre() {
    LedgerItem before = register(ItemId.original("b1", "720p", 500), 10);
    List<NewItem> batch = new ArrayList<>();
    for (int i = 0; i < 1_000; i++) {
      batch.add(NewItem.pending(ItemId.original(i % 2 == 0 ? "b1" : "b2", "720p", i), "/rec/" + i + ".ts", 10, T0));
    }

    List<RegisterResult> results = store.registerAll(batch);

    assertEquals(1_000, results.size());
    for (int i = 0; i < 1_000; i++) {
      RegisterResult result = results.get(i);
      assertEquals(batch.get(i).id(), result.item().id());
      if (i == 500) {
        assertFalse(result.created());
        assertEquals(before, result.item());
        continue;
      }
      assertTrue(result.created());
      assertTrue(result.item().rowId() > before.rowId());
    }
    assertRowIdsGrowInIdentityOrder(results);
    assertEquals(1_000, store.count(Axis.ORIGINAL, ItemState.PENDING));
  }

  @Test
  void registerAllAnswersInTheCallersOrderWhenTheBatchIsNotInIdentityOrder() {
    ItemId init = ItemId.init("b9", "720p");
    ItemId original = ItemId.original("b9", "720p", 3);
    ItemId playback = ItemId.playback("b9", "720p", 3);
    List<RegisterResult> small = store.registerAll(List.of(
        NewItem.derived(playback, "/rec/pb/3.m4s", "/rec/3.ts", T0),
        NewItem.pending(original, "/rec/3.ts", 10, T0),
        NewItem.derived(init, "/rec/pb/init.mp4", "/rec/3.ts", T0)));
    assertEquals(List.of(playback, original, init), small.stream().map(r -> r.item().id()).toList());
    assertEquals(ItemState.WAITING, small.get(0).item().state());
    assertEquals(10, small.get(1).item().sizeBytes());
    assertTrue(small.stream().allMatch(RegisterResult::created));
    assertRowIdsGrowInIdentityOrder(small);

    LedgerItem existing = register(ItemId.original("b0", "1080p", 7), 107);
    List<NewItem> batch = new ArrayList<>();
    for (String broadcast : List.of("b2", "b0", "b1")) {
      for (String rendition : List.of("720p", "1080p")) {
        for (int s = 0; s < 10; s++) {
          String path = "/rec/" + broadcast + "/" + rendition + "/" + s + ".ts";
          batch.add(NewItem.pending(ItemId.original(broadcast, rendition, s), path, 100 + s, T0));
          batch.add(NewItem.derived(ItemId.init(broadcast, rendition), "/pb/init.mp4", path, T0));
          batch.add(NewItem.derived(ItemId.playback(broadcast, rendition, s), "/pb/" + s + ".m4s", path, T0));
        }
      }
    }
    Collections.shuffle(batch, new Random(42));
    batch.add(0, NewItem.pending(ItemId.original("b2", "720p", 5), "/rec/first/5.ts", 105, T0));

    List<RegisterResult> results = store.registerAll(batch);

    assertEquals(batch.size(), results.size());
    List<ItemId> created = new ArrayList<>();
    for (int i = 0; i < batch.size(); i++) {
      NewItem item = batch.get(i);
      RegisterResult result = results.get(i);
      assertEquals(item.id(), result.item().id(), "result " + i);
      boolean repeated = batch.subList(0, i).stream().anyMatch(earlier -> earlier.id().equals(item.id()));
      assertEquals(!repeated && !item.id().equals(existing.id()), result.created(), "created, result " + i);
      if (result.created()) {
        assertEquals(item.sourcePath(), result.item().sourcePath(), "inserted from the first item of its identity");
        assertEquals(item.sizeBytes(), result.item().sizeBytes());
        created.add(item.id());
      } else {
        assertEquals(store.find(item.id()).orElseThrow(), result.item());
      }
    }
    assertEquals(existing, store.find(existing.id()).orElseThrow(), "an existing row is returned as it is");
    assertEquals(3 * 2 * 10 * 2 + 3 * 2 - 1, created.size());
    assertEquals("/rec/first/5.ts", store.find(ItemId.original("b2", "720p", 5)).orElseThrow().sourcePath());
    assertRowIdsGrowInIdentityOrder(results);
  }

  @Test
  void anIdentityTwiceInOneBatchIsCreatedOnce() {
    ItemId id = ItemId.original("b1", "720p", 1);
    List<RegisterResult> results = store.registerAll(List.of(
        NewItem.pending(id, "/rec/1.ts", 10, T0), NewItem.pending(id, "/rec/1.ts", 10, T0)));

    assertTrue(results.get(0).created());
    assertFalse(results.get(1).created());
    assertEquals(results.get(0).item(), results.get(1).item());
  }

  @Test
  void anIdentityTwiceInALargeBatchIsCreatedOnceAndAnotherSizeIsAConflict() {
    List<NewItem> batch = new ArrayList<>();
    for (int i = 0; i < 6; i++) {
      batch.add(NewItem.pending(ItemId.original("b1", "720p", i), "/rec/" + i + ".ts", 10, T0));
    }
    batch.add(NewItem.pending(ItemId.original("b1", "720p", 2), "/rec/2.ts", 10, T0));
    List<RegisterResult> results = store.registerAll(batch);
    assertTrue(results.get(2).created());
    assertFalse(results.get(6).created());
    assertEquals(results.get(2).item(), results.get(6).item());

    List<NewItem> conflicting = new ArrayList<>(batch.subList(0, 5));
    conflicting.add(NewItem.pending(ItemId.original("b1", "720p", 99), "/rec/99.ts", 10, T0));
    conflicting.add(NewItem.pending(ItemId.original("b1", "720p", 99), "/rec/99.ts", 11, T0));
    assertThrows(RegistrationConflictException.class, () -> store.registerAll(conflicting));
    assertTrue(store.find(ItemId.original("b1", "720p", 99)).isEmpty());
  }

  @Test
  void playbackInALargeBatchDoesNotWaitForAnInitConfirmedBefore() {
    LedgerItem init = store.register(NewItem.derived(ItemId.init("b1", "720p"), "/i", "/o", T0)).item();
    store.recordProduced(init.rowId(), ItemState.PENDING, LedgerItem.UNKNOWN_SIZE, "/i", 5, Duration.ZERO);
    assertTrue(store.confirm(new Confirmation(init.rowId(), init.id(), ItemState.PENDING, 5, "c", T0)));
    List<NewItem> batch = new ArrayList<>();
    for (int i = 0; i < 4; i++) {
      batch.add(NewItem.derived(ItemId.playback("b1", "720p", i), "/p" + i, "/o", T0));
      batch.add(NewItem.derived(ItemId.playback("b1", "1080p", i), "/q" + i, "/o", T0));
    }

    List<RegisterResult> results = store.registerAll(batch);

    for (int i = 0; i < batch.size(); i++) {
      ItemState expected = i % 2 == 0 ? ItemState.PENDING : ItemState.WAITING;
      assertEquals(expected, results.get(i).item().state(), batch.get(i).id().toString());
    }
  }

  @Test
  void aRowLeasedAtRegistrationIsClaimedAlreadyByItsOwner() {
    ItemId id = ItemId.original("b1", "720p", 0);
    LedgerItem leased = store.register(NewItem.pending(id, "/rec/0.ts", 10, T0).leasedTo("node-a", LEASE_END)).item();
    LedgerItem free = register(ItemId.original("b1", "720p", 1), 10);

    assertEquals(T0, leased.registeredAt());
    assertEquals(LEASE_END, leased.nextAttemptAt(), "the lease's end is the row's due time, as after a claim");
    assertEquals(List.of(free.rowId()), rowIdsOf(store.findDue(Axis.ORIGINAL, 0, T0.plusSeconds(60), 10).rows()));
    assertFalse(store.claim(leased.rowId(), "node-b", LEASE_END, T0.plusSeconds(1)).held());
    assertTrue(store.claim(leased.rowId(), "node-a", LEASE_END, T0.plusSeconds(1)).held(), "the owner holds it");
    assertEquals(1, store.releaseAllOf("node-a", T0.plusSeconds(2)));
    assertTrue(store.confirm(new Confirmation(leased.rowId(), leased.id(),
        ItemState.PENDING, 10, "c", T0.plusSeconds(3))));
  }

  @Test
  void registeringAgainLeasedReturnsTheExistingRowUnleased() {
    ItemId id = ItemId.original("b1", "720p", 0);
    LedgerItem row = register(id, 10);

    RegisterResult again = store.register(NewItem.pending(id, "/rec/0.ts", 10, T0).leasedTo("node-a", LEASE_END));

    assertFalse(again.created());
    assertEquals(T0, again.item().nextAttemptAt());
    assertTrue(store.claim(row.rowId(), "node-b", LEASE_END, T0).held(), "nobody holds it");
  }

  @Test
  void onlyAPendingRowCanBeLeasedAtRegistration() {
    NewItem waiting = NewItem.derived(ItemId.playback("b1", "720p", 0), "/p", "/o", T0);
    assertThrows(IllegalArgumentException.class, () -> waiting.leasedTo("node-a", LEASE_END));
  }
}
