package dev.segmentledger.testkit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.segmentledger.core.Axis;
import dev.segmentledger.core.BroadcastEndedException;
import dev.segmentledger.core.ItemId;
import dev.segmentledger.core.ItemState;
import dev.segmentledger.core.LedgerItem;
import dev.segmentledger.core.Reason;
import dev.segmentledger.core.RegistrationConflictException;
import dev.segmentledger.core.spi.Backlog;
import dev.segmentledger.core.spi.Claim;
import dev.segmentledger.core.spi.Confirmation;
import dev.segmentledger.core.spi.NewItem;
import dev.segmentledger.core.spi.Page;
import dev.segmentledger.core.spi.RegisterResult;
import dev.segmentledger.core.spi.RowQuery;
import dev.segmentledger.core.spi.StateStore;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Collections;
import java.util.Comparator;
import java.util.List;
import java.util.Random;
import java.util.concurrent.Callable;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * The behaviour every {@link StateStore} must have, as an abstract JUnit 5 test. Extend it and
 * implement {@link #newEmptyStore()}; every test method gets a fresh empty store.
 *
 * <p>Covers each SPI method: idempotent registration and conflicts, terminal registrations, the
 * sweep page (order, keyset, limit, backoff, state and axis filtering), the compare-and-set
 * updates, concurrent confirms, leases (claim and release), the read methods, and the operations
 * queries (rows across broadcasts by state, reason, attempts and age, keyset-paged both ways; the
 * backlog figures per axis). Instants used are whole milliseconds, so a
 * store that keeps microseconds (PostgreSQL) returns them unchanged.
 *
 * <p>Test methods may start threads of their own; a subclass must not assume a single thread.
 */
public abstract class StateStoreContract {
  /** The registration time of rows in these tests. */
  protected static final Instant T0 = Instant.parse("2026-01-01T00:00:00Z");

  private static final int CONCURRENT_CONFIRMERS = 8;

  /** The store under test, fresh for each test method. */
  protected StateStore store;

  /**
   * A new store with no rows, isolated from every store returned before. Called before each
   * test method.
   */
  protected abstract StateStore newEmptyStore() throws Exception;

  @BeforeEach
  final void createStore() throws Exception {
    store = newEmptyStore();
  }

  // ---- register -----------------------------------------------------------------------------

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
    assertTrue(store.findDue(Axis.ORIGINAL, 0, T0.plusSeconds(3600), 10).isEmpty(), "never swept");
    assertEquals(1, store.count(Axis.ORIGINAL, ItemState.REJECTED));
  }

  @Test
  void waitingRegistrationIsNotSwept() {
    ItemId id = ItemId.playback("b1", "720p", 0);
    store.register(new NewItem(id, "/rec/p0.m4s", null, 10, ItemState.WAITING, null, null, T0));

    assertEquals(ItemState.WAITING, store.find(id).orElseThrow().state());
    assertTrue(store.findDue(Axis.PLAYBACK, 0, T0.plusSeconds(3600), 10).isEmpty());
  }

  // ---- findDue ------------------------------------------------------------------------------

  @Test
  void findDueReturnsDueRowsInRowIdOrderAfterTheCursorUpToTheLimit() {
    List<Long> rowIds = new ArrayList<>();
    for (int i = 0; i < 10; i++) {
      rowIds.add(register(ItemId.original("b1", "720p", i), 10).rowId());
    }

    assertEquals(rowIds.subList(0, 4), rowIdsOf(store.findDue(Axis.ORIGINAL, 0, T0, 4)));
    assertEquals(rowIds.subList(4, 8), rowIdsOf(store.findDue(Axis.ORIGINAL, rowIds.get(3), T0, 4)));
    assertEquals(rowIds.subList(8, 10), rowIdsOf(store.findDue(Axis.ORIGINAL, rowIds.get(7), T0, 4)));
    assertTrue(store.findDue(Axis.ORIGINAL, rowIds.get(9), T0, 4).isEmpty());
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

    assertEquals(fresh, rowIdsOf(store.findDue(Axis.ORIGINAL, 0, T0, 3)), "ghosts take no slot");
    assertEquals(fresh, rowIdsOf(store.findDue(Axis.ORIGINAL, 0, T0.plusSeconds(59), 3)));

    List<Long> all = new ArrayList<>(ghosts);
    all.addAll(fresh);
    assertEquals(all, rowIdsOf(store.findDue(Axis.ORIGINAL, 0, T0.plusSeconds(60), 100)),
        "due again exactly at nextAttemptAt");
  }

  @Test
  void findDueReturnsOnlyPendingRows() {
    LedgerItem pending = register(ItemId.original("b1", "720p", 0), 10);
    LedgerItem confirmed = register(ItemId.original("b1", "720p", 1), 10);
    LedgerItem rejected = register(ItemId.original("b1", "720p", 2), 10);
    LedgerItem excluded = register(ItemId.original("b1", "720p", 3), 10);
    store.register(new NewItem(ItemId.original("b1", "720p", 4), "/w.ts", null, 10, ItemState.WAITING, null, null, T0));
    assertTrue(store.confirm(confirmed.rowId(), ItemState.PENDING, 10, "c", T0));
    assertTrue(store.markTerminal(rejected.rowId(), ItemState.PENDING, "node-a", ItemState.REJECTED, Reason.MISSING_FILE,
        "gone", T0));
    assertTrue(store.markTerminal(excluded.rowId(), ItemState.PENDING, "node-a", ItemState.EXCLUDED, Reason.PAST_CUTOFF,
        "old", T0));

    assertEquals(List.of(pending.rowId()), rowIdsOf(store.findDue(Axis.ORIGINAL, 0, T0, 100)));
  }

  @Test
  void findDueKeepsEachAxisSeparate() {
    LedgerItem original = register(ItemId.original("b1", "720p", 0), 10);
    LedgerItem playback = register(ItemId.playback("b1", "720p", 0), 10);
    LedgerItem init = register(ItemId.init("b1", "720p"), 10);
    assertTrue(store.confirm(original.rowId(), ItemState.PENDING, 10, "c", T0));

    assertTrue(store.findDue(Axis.ORIGINAL, 0, T0, 100).isEmpty(), "a confirmed original hides nothing");
    assertEquals(List.of(playback.rowId()), rowIdsOf(store.findDue(Axis.PLAYBACK, 0, T0, 100)));
    assertEquals(List.of(init.rowId()), rowIdsOf(store.findDue(Axis.INIT, 0, T0, 100)));
  }

  @Test
  void findDueSpansBroadcasts() {
    LedgerItem b1 = register(ItemId.original("b1", "720p", 0), 10);
    LedgerItem b2 = register(ItemId.original("b2", "720p", 0), 10);

    assertEquals(List.of(b1.rowId(), b2.rowId()), rowIdsOf(store.findDue(Axis.ORIGINAL, 0, T0, 100)));
  }

  @Test
  void findDueReturnsTheSameRowsAsFindByRowId() {
    LedgerItem row = register(ItemId.init("b1", "720p"), 10);

    assertEquals(List.of(row), store.findDue(Axis.INIT, 0, T0, 1));
  }

  // ---- confirm ------------------------------------------------------------------------------

  @Test
  void confirmSetsStateChecksumAndTimeOnce() {
    LedgerItem row = register(ItemId.original("b1", "720p", 0), 10);
    Instant at = T0.plusMillis(1500);

    assertTrue(store.confirm(row.rowId(), ItemState.PENDING, 10, "crc32c:AAAAAA==", at));
    LedgerItem confirmed = store.findByRowId(row.rowId()).orElseThrow();
    assertEquals(ItemState.CONFIRMED, confirmed.state());
    assertEquals("crc32c:AAAAAA==", confirmed.checksum());
    assertEquals(at, confirmed.confirmedAt());
    assertEquals(row.sizeBytes(), confirmed.sizeBytes());

    assertFalse(store.confirm(row.rowId(), ItemState.PENDING, 10, "other", at.plusSeconds(1)), "second confirm");
    assertEquals(confirmed, store.findByRowId(row.rowId()).orElseThrow());
  }

  @Test
  void confirmWithWrongExpectedStateChangesNothing() {
    LedgerItem row = register(ItemId.original("b1", "720p", 0), 10);

    assertFalse(store.confirm(row.rowId(), ItemState.WAITING, 10, "c", T0));
    assertEquals(row, store.findByRowId(row.rowId()).orElseThrow());
  }

  @Test
  void confirmWithWrongSizeChangesNothing() {
    LedgerItem row = register(ItemId.original("b1", "720p", 0), 10);

    assertFalse(store.confirm(row.rowId(), ItemState.PENDING, 11, "c", T0));
    assertEquals(row, store.findByRowId(row.rowId()).orElseThrow());
  }

  @Test
  void confirmOfAWaitingRowExpectingWaitingSucceeds() {
    ItemId id = ItemId.playback("b1", "720p", 0);
    LedgerItem row = store.register(new NewItem(id, "/p.m4s", null, 10, ItemState.WAITING, null, null, T0)).item();

    assertTrue(store.confirm(row.rowId(), ItemState.WAITING, 10, null, T0));
    assertEquals(ItemState.CONFIRMED, store.find(id).orElseThrow().state());
  }

  @Test
  void confirmOfAnUnknownRowReturnsFalse() {
    assertFalse(store.confirm(424242, ItemState.PENDING, 10, "c", T0));
  }

  @Test
  void ofConcurrentConfirmsOfOneRowExactlyOneWins() throws Exception {
    LedgerItem row = register(ItemId.original("b1", "720p", 0), 10);
    List<Callable<Boolean>> confirmers = new ArrayList<>();
    for (int i = 0; i < CONCURRENT_CONFIRMERS; i++) {
      String checksum = "c" + i;
      confirmers.add(() -> store.confirm(row.rowId(), ItemState.PENDING, 10, checksum, T0));
    }

    assertEquals(1, wins(race(confirmers)));
    assertEquals(ItemState.CONFIRMED, store.findByRowId(row.rowId()).orElseThrow().state());
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
    assertTrue(store.confirm(row.rowId(), ItemState.PENDING, 10, "c", T0));
    LedgerItem confirmed = store.findByRowId(row.rowId()).orElseThrow();

    assertFalse(store.recordFailure(row.rowId(), ItemState.PENDING, "node-a", Reason.SINK_TRANSIENT, "late", T0.plusSeconds(9)));
    assertFalse(store.recordFailure(row.rowId(), ItemState.WAITING, "node-a", Reason.SINK_TRANSIENT, "late", T0.plusSeconds(9)));
    assertFalse(store.recordFailure(424242, ItemState.PENDING, "node-a", Reason.SINK_TRANSIENT, "none", T0));
    assertEquals(confirmed, store.findByRowId(row.rowId()).orElseThrow());
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
    assertTrue(store.confirm(row.rowId(), ItemState.PENDING, 10, "c", T0));
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
    store.confirm(o1.rowId(), ItemState.PENDING, 10, "c", T0);

    assertEquals(2, store.count(Axis.ORIGINAL, ItemState.PENDING));
    assertEquals(1, store.count(Axis.ORIGINAL, ItemState.CONFIRMED));
    assertEquals(1, store.count(Axis.PLAYBACK, ItemState.PENDING));
    assertEquals(0, store.count(Axis.PLAYBACK, ItemState.CONFIRMED));
    assertEquals(0, store.count(Axis.INIT, ItemState.PENDING));
  }

  @Test
  void aFreshStoreIsEmpty() {
    for (Axis axis : Axis.values()) {
      assertTrue(store.findDue(axis, 0, T0.plusSeconds(3600), 10).isEmpty());
      for (ItemState state : ItemState.values()) {
        assertEquals(0, store.count(axis, state));
      }
    }
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
    assertTrue(store.confirm(init.rowId(), ItemState.PENDING, 5, "c", T0));
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
    assertEquals(List.of(free.rowId()), rowIdsOf(store.findDue(Axis.ORIGINAL, 0, T0.plusSeconds(60), 10)));
    assertFalse(store.claim(leased.rowId(), "node-b", LEASE_END, T0.plusSeconds(1)).held());
    assertTrue(store.claim(leased.rowId(), "node-a", LEASE_END, T0.plusSeconds(1)).held(), "the owner holds it");
    assertEquals(1, store.releaseAllOf("node-a", T0.plusSeconds(2)));
    assertTrue(store.confirm(leased.rowId(), ItemState.PENDING, 10, "c", T0.plusSeconds(3)));
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

  @Test
  void confirmAllReportsEachRowAndChangesOnlyThoseWhoseExpectationsHold() {
    LedgerItem good = register(ItemId.original("b1", "720p", 0), 10);
    LedgerItem wrongSize = register(ItemId.original("b1", "720p", 1), 10);
    LedgerItem alreadyConfirmed = register(ItemId.original("b1", "720p", 2), 10);
    LedgerItem alsoGood = register(ItemId.original("b2", "720p", 0), 20);
    assertTrue(store.confirm(alreadyConfirmed.rowId(), ItemState.PENDING, 10, "first", T0));
    Instant at = T0.plusSeconds(5);

    boolean[] results = store.confirmAll(List.of(
        new Confirmation(good.rowId(), ItemState.PENDING, 10, "c0", at),
        new Confirmation(wrongSize.rowId(), ItemState.PENDING, 11, "c1", at),
        new Confirmation(alreadyConfirmed.rowId(), ItemState.PENDING, 10, "second", at),
        new Confirmation(999_999, ItemState.PENDING, 10, "c3", at),
        new Confirmation(alsoGood.rowId(), ItemState.PENDING, 20, null, at)));

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
    Confirmation confirmation = new Confirmation(row.rowId(), ItemState.PENDING, 10, "c", T0);

    boolean[] results = store.confirmAll(List.of(confirmation, confirmation));

    assertEquals(1, (results[0] ? 1 : 0) + (results[1] ? 1 : 0));
  }

  @Test
  void anInitConfirmedInABatchReleasesItsWaitingPlayback() {
    LedgerItem init = store.register(NewItem.derived(ItemId.init("b1", "720p"), "/i", "/o", T0)).item();
    LedgerItem waiting = store.register(NewItem.derived(ItemId.playback("b1", "720p", 0), "/p", "/o", T0)).item();
    LedgerItem original = register(ItemId.original("b1", "720p", 0), 10);
    store.recordProduced(init.rowId(), ItemState.PENDING, LedgerItem.UNKNOWN_SIZE, "/i", 5, Duration.ZERO);

    boolean[] results = store.confirmAll(List.of(new Confirmation(original.rowId(), ItemState.PENDING, 10, "o", T0),
        new Confirmation(init.rowId(), ItemState.PENDING, 5, "i", T0)));

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
          .map(r -> new Confirmation(r.rowId(), ItemState.PENDING, 10, "c", T0)).toList()));
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

    assertTrue(store.confirm(init.rowId(), ItemState.PENDING, 5, "c", T0));
    assertEquals(ItemState.PENDING, store.findByRowId(waiting.rowId()).orElseThrow().state());
    assertEquals(ItemState.WAITING, store.findByRowId(otherRendition.rowId()).orElseThrow().state());
    assertEquals(List.of(waiting.rowId()), rowIdsOf(store.findDue(Axis.PLAYBACK, 0, T0, 10)));
  }

  @Test
  void playbackRegisteredAfterItsInitIsConfirmedDoesNotWait() {
    LedgerItem init = store.register(NewItem.derived(ItemId.init("b1", "720p"), "/i", "/o", T0)).item();
    store.recordProduced(init.rowId(), ItemState.PENDING, LedgerItem.UNKNOWN_SIZE, "/i", 5, Duration.ZERO);
    store.confirm(init.rowId(), ItemState.PENDING, 5, "c", T0);

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

  // ---- reopen (reconciler repair) -----------------------------------------------------------

  @Test
  void reopenPutsAConfirmedRowBackToPendingDueAtOnceKeepingAttemptsAndSize() {
    LedgerItem row = register(ItemId.original("b1", "720p", 0), 10);
    assertTrue(store.recordFailure(row.rowId(), ItemState.PENDING, "node-a", Reason.SINK_TRANSIENT, "503", T0.plusSeconds(1)));
    assertTrue(store.confirm(row.rowId(), ItemState.PENDING, 10, "crc32c:AAAAAA==", T0.plusSeconds(2)));
    Instant at = T0.plusSeconds(60);

    assertTrue(store.reopen(row.rowId(), ItemState.CONFIRMED, Reason.OBJECT_MISSING, "no object", at));

    LedgerItem reopened = store.findByRowId(row.rowId()).orElseThrow();
    assertEquals(ItemState.PENDING, reopened.state());
    assertEquals(1, reopened.attempts(), "attempts are kept");
    assertEquals(Reason.OBJECT_MISSING, reopened.reason());
    assertEquals("no object", reopened.lastError());
    assertEquals(at, reopened.nextAttemptAt());
    assertNull(reopened.confirmedAt());
    assertNull(reopened.checksum());
    assertEquals(row.sizeBytes(), reopened.sizeBytes());
    assertEquals(row.sourcePath(), reopened.sourcePath());
    assertEquals(row.registeredAt(), reopened.registeredAt());
    assertEquals(List.of(row.rowId()), rowIdsOf(store.findDue(Axis.ORIGINAL, 0, at, 10)), "due at once");
    assertEquals(List.of(), store.findDue(Axis.ORIGINAL, 0, at.minusMillis(1), 10));
    assertTrue(store.confirm(row.rowId(), ItemState.PENDING, 10, "crc32c:BBBBBB==", at.plusSeconds(1)),
        "a re-opened row is confirmed again like any pending row");
    assertEquals(ItemState.CONFIRMED, store.findByRowId(row.rowId()).orElseThrow().state());
  }

  @Test
  void reopenIsACompareAndSetOnConfirmed() {
    LedgerItem pending = register(ItemId.original("b1", "720p", 0), 10);
    LedgerItem rejected = register(ItemId.original("b1", "720p", 1), 10);
    assertTrue(store.markTerminal(rejected.rowId(), ItemState.PENDING, "node-a", ItemState.REJECTED, Reason.MISSING_FILE,
        "gone", T0));
    LedgerItem confirmed = register(ItemId.original("b1", "720p", 2), 10);
    assertTrue(store.confirm(confirmed.rowId(), ItemState.PENDING, 10, null, T0));
    LedgerItem rejectedRow = store.findByRowId(rejected.rowId()).orElseThrow();

    assertFalse(store.reopen(pending.rowId(), ItemState.CONFIRMED, Reason.OBJECT_MISSING, "x", T0));
    assertFalse(store.reopen(rejected.rowId(), ItemState.CONFIRMED, Reason.OBJECT_MISSING, "x", T0));
    assertFalse(store.reopen(confirmed.rowId(), ItemState.REJECTED, Reason.REOPENED, "x", T0));
    assertFalse(store.reopen(424242, ItemState.CONFIRMED, Reason.OBJECT_MISSING, "x", T0));
    assertTrue(store.reopen(confirmed.rowId(), ItemState.CONFIRMED, Reason.OBJECT_MISMATCH, "x", T0));
    assertFalse(store.reopen(confirmed.rowId(), ItemState.CONFIRMED, Reason.OBJECT_MISMATCH, "again", T0),
        "a re-opened row is no longer confirmed");

    assertEquals(pending, store.findByRowId(pending.rowId()).orElseThrow());
    assertEquals(rejectedRow, store.findByRowId(rejected.rowId()).orElseThrow());
    assertEquals("x", store.findByRowId(confirmed.rowId()).orElseThrow().lastError());
  }

  @Test
  void reopenPutsARejectedOrExcludedRowBackToPending() {
    LedgerItem rejected = register(ItemId.original("b1", "720p", 0), 10);
    LedgerItem excluded = register(ItemId.original("b1", "720p", 1), 10);
    store.markTerminal(rejected.rowId(), ItemState.PENDING, "node-a", ItemState.REJECTED, Reason.SINK_PERMANENT, "403", T0);
    store.markTerminal(excluded.rowId(), ItemState.PENDING, "node-a", ItemState.EXCLUDED, Reason.PAST_CUTOFF, "old", T0);

    assertTrue(store.reopen(rejected.rowId(), ItemState.REJECTED, Reason.REOPENED, "policy fixed", T0.plusSeconds(9)));
    assertTrue(store.reopen(excluded.rowId(), ItemState.EXCLUDED, Reason.REOPENED, "wanted after all", T0));
    assertFalse(store.reopen(rejected.rowId(), ItemState.REJECTED, Reason.REOPENED, "again", T0));
    LedgerItem row = store.findByRowId(rejected.rowId()).orElseThrow();
    assertEquals(ItemState.PENDING, row.state());
    assertEquals(Reason.REOPENED, row.reason());
    assertEquals(List.of(rejected.rowId(), excluded.rowId()),
        rowIdsOf(store.findDue(Axis.ORIGINAL, 0, T0.plusSeconds(9), 10)));
  }

  @Test
  void reopenRefusesAnUnconfirmedExpectedState() {
    LedgerItem row = register(ItemId.original("b1", "720p", 0), 10);
    for (ItemState state : List.of(ItemState.PENDING, ItemState.WAITING)) {
      assertThrows(IllegalArgumentException.class,
          () -> store.reopen(row.rowId(), state, Reason.OBJECT_MISSING, "x", T0), state::name);
    }
    assertEquals(row, store.findByRowId(row.rowId()).orElseThrow());
  }

  @Test
  void reopeningAnInitReleasesNothingAndItsNextConfirmReleasesWaitingPlayback() {
    LedgerItem init = register(ItemId.init("b1", "720p"), 5);
    assertTrue(store.confirm(init.rowId(), ItemState.PENDING, 5, null, T0));
    assertTrue(store.reopen(init.rowId(), ItemState.CONFIRMED, Reason.OBJECT_MISSING, "x", T0));
    LedgerItem playback = store.register(NewItem.derived(ItemId.playback("b1", "720p", 3), "/p", "/o", T0)).item();
    assertEquals(ItemState.WAITING, playback.state(), "the init is not confirmed any more");

    assertTrue(store.confirm(init.rowId(), ItemState.PENDING, 5, null, T0));
    assertEquals(ItemState.PENDING, store.findByRowId(playback.rowId()).orElseThrow().state());
  }

  @Test
  void ofConcurrentReopensOfOneRowExactlyOneWins() throws Exception {
    LedgerItem row = register(ItemId.original("b1", "720p", 0), 10);
    assertTrue(store.confirm(row.rowId(), ItemState.PENDING, 10, "c", T0));
    List<Callable<Boolean>> reopeners = new ArrayList<>();
    for (int i = 0; i < CONCURRENT_CONFIRMERS; i++) {
      String detail = "reconciler " + i;
      reopeners.add(() -> store.reopen(row.rowId(), ItemState.CONFIRMED, Reason.OBJECT_MISSING, detail, T0));
    }

    assertEquals(1, wins(race(reopeners)));
    assertEquals(ItemState.PENDING, store.findByRowId(row.rowId()).orElseThrow().state());
  }

  @Test
  void settleWaitingReleasesRowsOfAConfirmedInitAndRejectsRowsOfATerminalInit() {
    LedgerItem confirmedInit = store.register(NewItem.derived(ItemId.init("b1", "720p"), "/i", "/o", T0)).item();
    LedgerItem rejectedInit = store.register(NewItem.derived(ItemId.init("b1", "1080p"), "/i2", "/o", T0)).item();
    store.register(NewItem.derived(ItemId.init("b1", "480p"), "/i3", "/o", T0));
    LedgerItem missedRelease = store.register(NewItem.derived(ItemId.playback("b1", "720p", 0), "/p", "/o", T0))
        .item();
    LedgerItem stranded = store.register(NewItem.derived(ItemId.playback("b1", "1080p", 0), "/p2", "/o", T0)).item();
    LedgerItem stillWaiting = store.register(NewItem.derived(ItemId.playback("b1", "480p", 0), "/p3", "/o", T0))
        .item();
    LedgerItem noInit = store.register(NewItem.derived(ItemId.playback("b2", "720p", 0), "/p4", "/o", T0)).item();
    // A confirmed init whose release was missed (only a store bypass can produce it in a test).
    store.recordProduced(confirmedInit.rowId(), ItemState.PENDING, LedgerItem.UNKNOWN_SIZE, "/i", 5, Duration.ZERO);
    store.confirm(confirmedInit.rowId(), ItemState.PENDING, 5, "c", T0);
    store.register(NewItem.derived(ItemId.playback("b1", "720p", 1), "/p5", "/o", T0));
    store.markTerminal(rejectedInit.rowId(), ItemState.PENDING, "node-a", ItemState.REJECTED, Reason.SINK_PERMANENT, "403", T0);

    store.settleWaiting(T0.plusSeconds(1));
    assertEquals(ItemState.PENDING, store.findByRowId(missedRelease.rowId()).orElseThrow().state());
    LedgerItem rejected = store.findByRowId(stranded.rowId()).orElseThrow();
    assertEquals(ItemState.REJECTED, rejected.state());
    assertEquals(Reason.INIT_FAILED, rejected.reason());
    assertEquals(ItemState.WAITING, store.findByRowId(stillWaiting.rowId()).orElseThrow().state(), "init pending");
    assertEquals(ItemState.WAITING, store.findByRowId(noInit.rowId()).orElseThrow().state(), "no init yet");
    assertEquals(0, store.settleWaiting(T0.plusSeconds(2)), "settled rows stay settled");
  }

  // ---- cutoff and broadcast lifecycle --------------------------------------------------------

  @Test
  void excludeRegisteredBeforeMarksOnlyOldUnconfirmedRows() {
    LedgerItem old = register(ItemId.original("b1", "720p", 0), 10);
    LedgerItem oldConfirmed = register(ItemId.original("b1", "720p", 1), 10);
    store.confirm(oldConfirmed.rowId(), ItemState.PENDING, 10, "c", T0);
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

  // ---- operations queries (findRows, backlog) -------------------------------------------------

  /** Registers a PENDING row at {@code registeredAt} and returns it. */
  private LedgerItem registerAt(ItemId id, Instant registeredAt) {
    return store.register(NewItem.pending(id, "/rec/" + id.objectKey(), 10, registeredAt)).item();
  }

  /** Registers a row and rejects it at once for {@code reason}. */
  private LedgerItem rejectedRow(ItemId id, Reason reason) {
    LedgerItem row = register(id, 10);
    assertTrue(store.markTerminal(row.rowId(), ItemState.PENDING, "node-a", ItemState.REJECTED, reason, "no", T0));
    return store.findByRowId(row.rowId()).orElseThrow();
  }

  /** Every row of {@code query}, following the cursor from page to page; checks the pages on the way. */
  private List<LedgerItem> allPages(RowQuery query) {
    List<LedgerItem> all = new ArrayList<>();
    RowQuery next = query;
    for (int pages = 0; pages < 1000; pages++) {
      Page<LedgerItem> page = store.findRows(next);
      assertTrue(page.items().size() <= query.limit(), "a page holds at most the limit");
      all.addAll(page.items());
      if (!page.hasNext()) {
        return all;
      }
      assertEquals(query.limit(), page.items().size(), "only a full page has a next one");
      assertEquals(page.items().get(page.items().size() - 1).rowId(), page.next().getAsLong());
      next = query.after(page.next().getAsLong());
    }
    throw new AssertionError("more than 1000 pages");
  }

  @Test
  void findRowsListsRowsOfEveryBroadcastByStateAndReasonNewestFirst() {
    LedgerItem a = rejectedRow(ItemId.original("b1", "720p", 1), Reason.SINK_PERMANENT);
    register(ItemId.original("b1", "720p", 2), 10);
    LedgerItem b = rejectedRow(ItemId.original("b2", "720p", 1), Reason.MISSING_FILE);
    LedgerItem c = rejectedRow(ItemId.playback("b3", "1080p", 4), Reason.SINK_PERMANENT);
    LedgerItem registered = register(ItemId.original("b3", "1080p", 5), 10);
    assertTrue(store.confirm(registered.rowId(), ItemState.PENDING, 10, "c", T0));
    LedgerItem confirmed = store.findByRowId(registered.rowId()).orElseThrow();

    Page<LedgerItem> rejected = store.findRows(RowQuery.builder().states(ItemState.REJECTED).build());
    assertEquals(List.of(c, b, a), rejected.items(), "newest first by default, across broadcasts");
    assertFalse(rejected.hasNext());

    assertEquals(List.of(a, c), store.findRows(RowQuery.builder().states(ItemState.REJECTED)
        .reasons(Reason.SINK_PERMANENT).order(RowQuery.Order.OLDEST_FIRST).build()).items());
    assertEquals(List.of(c), store.findRows(RowQuery.builder().states(ItemState.REJECTED)
        .axis(Axis.PLAYBACK).build()).items());
    assertEquals(List.of(b), store.findRows(RowQuery.builder().states(ItemState.REJECTED)
        .broadcastId("b2").build()).items());
    assertEquals(List.of(confirmed), store.findRows(RowQuery.builder().states(ItemState.CONFIRMED).build()).items());
    assertEquals(5, store.findRows(RowQuery.builder().build()).items().size(), "no state given: every state");
    assertTrue(store.findRows(RowQuery.builder().states(ItemState.EXCLUDED).build()).items().isEmpty());
    assertTrue(store.findRows(RowQuery.builder().broadcastId("nobody").build()).items().isEmpty());
  }

  @Test
  void findRowsFindsPendingRowsByAttemptsAndAge() {
    LedgerItem old = registerAt(ItemId.original("b1", "720p", 1), T0);
    LedgerItem failing = registerAt(ItemId.original("b2", "720p", 1), T0.plusSeconds(600));
    LedgerItem fresh = registerAt(ItemId.original("b3", "720p", 1), T0.plusSeconds(600));
    for (int i = 0; i < 3; i++) {
      assertTrue(store.recordFailure(failing.rowId(), ItemState.PENDING, "node-a", Reason.SINK_TRANSIENT, "503",
          T0.plusSeconds(700)));
    }
    store.recordFailure(old.rowId(), ItemState.PENDING, "node-a", Reason.SINK_TRANSIENT, "503", T0.plusSeconds(700));
    LedgerItem failed = store.findByRowId(failing.rowId()).orElseThrow();

    assertEquals(List.of(failed), store.findRows(RowQuery.builder().states(ItemState.PENDING).minAttempts(3)
        .build()).items());
    assertEquals(List.of(old.rowId()), rowIdsOf(store.findRows(RowQuery.builder().states(ItemState.PENDING)
        .registeredBefore(T0.plusSeconds(600)).build()).items()), "registered strictly before the instant");
    assertEquals(List.of(fresh.rowId(), failing.rowId(), old.rowId()), rowIdsOf(store.findRows(RowQuery.builder()
        .states(ItemState.PENDING, ItemState.WAITING).build()).items()));
    assertEquals(List.of(failing.rowId()), rowIdsOf(store.findRows(RowQuery.builder().states(ItemState.PENDING)
        .reasons(Reason.SINK_TRANSIENT).minAttempts(2).build()).items()));
  }

  @Test
  void findRowsPagesWithAKeysetCursorInBothOrders() {
    List<Long> expected = new ArrayList<>();
    for (int i = 0; i < 23; i++) {
      LedgerItem row = i % 3 == 0 ? rejectedRow(ItemId.original("b" + i % 4, "720p", i), Reason.SINK_PERMANENT)
          : register(ItemId.original("b" + i % 4, "720p", i), 10);
      expected.add(row.rowId());
    }
    RowQuery oldestFirst = RowQuery.builder().states(ItemState.PENDING, ItemState.REJECTED)
        .order(RowQuery.Order.OLDEST_FIRST).limit(5).build();
    assertEquals(expected, rowIdsOf(allPages(oldestFirst)));

    List<Long> reversed = new ArrayList<>(expected);
    Collections.reverse(reversed);
    assertEquals(reversed, rowIdsOf(allPages(oldestFirst.toBuilder().order(RowQuery.Order.NEWEST_FIRST).build())));
    assertEquals(reversed, rowIdsOf(allPages(RowQuery.builder().limit(23).build())), "an exact last page");

    long middle = expected.get(10);
    assertEquals(expected.subList(11, 16), rowIdsOf(store.findRows(oldestFirst.after(middle)).items()));
    assertEquals(reversed.subList(13, 18), rowIdsOf(store.findRows(oldestFirst.toBuilder()
        .order(RowQuery.Order.NEWEST_FIRST).after(middle).build()).items()));
  }

  @Test
  void rowQueryRejectsBadValues() {
    assertThrows(IllegalArgumentException.class, () -> RowQuery.builder().limit(0));
    assertThrows(IllegalArgumentException.class, () -> RowQuery.builder().limit(RowQuery.MAX_LIMIT + 1));
    assertThrows(IllegalArgumentException.class, () -> RowQuery.builder().minAttempts(-1));
    assertThrows(IllegalArgumentException.class, () -> RowQuery.builder().after(-1));
    assertThrows(IllegalArgumentException.class, () -> RowQuery.builder().broadcastId("no spaces allowed"));
    assertThrows(NullPointerException.class, () -> store.findRows(null));
  }

  @Test
  void backlogOfAnEmptyStoreIsZeroOnEveryAxis() {
    Backlog backlog = store.backlog(T0);

    assertEquals(T0, backlog.at());
    for (Axis axis : Axis.values()) {
      assertEquals(Backlog.AxisBacklog.EMPTY, backlog.axis(axis));
    }
    assertEquals(0, backlog.unconfirmed());
    assertEquals(Duration.ZERO, backlog.oldestAge());
  }

  @Test
  void backlogCountsUnconfirmedRowsPerAxisAndSplitsThePendingOnes() {
    Instant now = T0.plusSeconds(3600);
    registerAt(ItemId.original("b1", "720p", 1), T0.plusSeconds(10)); // due
    LedgerItem backoff = registerAt(ItemId.original("b2", "720p", 1), T0.plusSeconds(5));
    store.recordFailure(backoff.rowId(), ItemState.PENDING, "node-a", Reason.SINK_TRANSIENT, "503",
        now.plusSeconds(60));
    LedgerItem leased = registerAt(ItemId.original("b2", "720p", 2), T0.plusSeconds(20));
    assertTrue(store.claim(leased.rowId(), "node-a", now.plusSeconds(30), now).held());
    LedgerItem expired = registerAt(ItemId.original("b2", "720p", 3), T0.plusSeconds(30));
    assertTrue(store.claim(expired.rowId(), "node-b", now.minusSeconds(1), T0.plusSeconds(30)).held());
    LedgerItem confirmed = registerAt(ItemId.original("b3", "720p", 1), T0);
    store.confirm(confirmed.rowId(), ItemState.PENDING, 10, "c", T0);
    rejectedRow(ItemId.original("b3", "720p", 2), Reason.MISSING_FILE);
    store.register(NewItem.derived(ItemId.init("b4", "720p"), "/p/init.mp4", "/rec/0.ts", T0.plusSeconds(100)));
    store.register(NewItem.derived(ItemId.playback("b4", "720p", 0), "/p/0.m4s", "/rec/0.ts", T0.plusSeconds(100)));
    store.register(NewItem.derived(ItemId.playback("b4", "720p", 1), "/p/1.m4s", "/rec/1.ts", T0.plusSeconds(200)));

    Backlog backlog = store.backlog(now);

    assertEquals(now, backlog.at());
    assertEquals(new Backlog.AxisBacklog(4, T0.plusSeconds(5), 2, 1, 1, 0), backlog.axis(Axis.ORIGINAL),
        "the expired lease is due again; the confirmed and rejected rows are not counted");
    assertEquals(new Backlog.AxisBacklog(2, T0.plusSeconds(100), 0, 0, 0, 2), backlog.axis(Axis.PLAYBACK));
    assertEquals(new Backlog.AxisBacklog(1, T0.plusSeconds(100), 1, 0, 0, 0), backlog.axis(Axis.INIT));
    assertEquals(7, backlog.unconfirmed());
    assertEquals(Duration.ofSeconds(3595), backlog.oldestAge());
    assertEquals(Duration.ofSeconds(3595), backlog.axis(Axis.ORIGINAL).oldestAge(now));
  }

  // ---- leases (claim, release) ---------------------------------------------------------------

  private static final Instant LEASE_END = T0.plusSeconds(120);

  @Test
  void aClaimedRowCannotBeClaimedByAnotherOwnerWhileTheLeaseIsValid() {
    LedgerItem row = register(ItemId.original("b1", "720p", 0), 10);

    assertTrue(store.claim(row.rowId(), "node-a", LEASE_END, T0).held());
    assertFalse(store.claim(row.rowId(), "node-b", T0.plusSeconds(150), T0.plusSeconds(30)).held());
    assertFalse(store.claim(row.rowId(), "node-b", T0.plusSeconds(150), LEASE_END.minusMillis(1)).held(),
        "valid until its last instant");
    assertTrue(store.claim(row.rowId(), "node-a", T0.plusSeconds(200), T0.plusSeconds(30)).held(),
        "the holder may renew its own lease");
  }

  @Test
  void releaseAllOfGivesBackOnlyThatOwnersLeasesAndMakesThemDue() {
    LedgerItem mine = register(ItemId.original("b1", "720p", 0), 10);
    LedgerItem alsoMine = register(ItemId.original("b1", "720p", 1), 10);
    LedgerItem theirs = register(ItemId.original("b1", "720p", 2), 10);
    assertTrue(store.claim(mine.rowId(), "node-a", LEASE_END, T0).held());
    assertTrue(store.claim(alsoMine.rowId(), "node-a", LEASE_END, T0).held());
    assertTrue(store.claim(theirs.rowId(), "node-b", LEASE_END, T0).held());

    assertEquals(2, store.releaseAllOf("node-a", T0.plusSeconds(1)));
    assertEquals(List.of(mine.rowId(), alsoMine.rowId()),
        rowIdsOf(store.findDue(Axis.ORIGINAL, 0, T0.plusSeconds(1), 10)), "due again at once; node-b's row still leased");
    assertTrue(store.claim(mine.rowId(), "node-c", LEASE_END, T0.plusSeconds(1)).held(), "free for anyone");
    assertEquals(0, store.releaseAllOf("node-a", T0.plusSeconds(2)));
  }

  @Test
  void anExpiredLeaseIsClaimedByAnotherOwner() {
    LedgerItem row = register(ItemId.original("b1", "720p", 0), 10);
    assertTrue(store.claim(row.rowId(), "node-a", LEASE_END, T0).held());

    assertTrue(store.claim(row.rowId(), "node-b", LEASE_END.plusSeconds(120), LEASE_END).held(), "expired at leaseUntil");
    assertFalse(store.claim(row.rowId(), "node-a", LEASE_END.plusSeconds(200), LEASE_END.plusSeconds(1)).held(),
        "the former holder lost it");
  }

  @Test
  void aClaimIsTheDueTimeOfTheRowSoTheSweepSkipsItUntilTheLeaseExpires() {
    LedgerItem leased = register(ItemId.original("b1", "720p", 0), 10);
    LedgerItem free = register(ItemId.original("b1", "720p", 1), 10);
    assertTrue(store.claim(leased.rowId(), "node-a", LEASE_END, T0).held());

    assertEquals(LEASE_END, store.findByRowId(leased.rowId()).orElseThrow().nextAttemptAt());
    assertEquals(List.of(free.rowId()), rowIdsOf(store.findDue(Axis.ORIGINAL, 0, T0.plusSeconds(60), 1)),
        "the leased row takes no slot of the page");
    assertEquals(List.of(leased.rowId(), free.rowId()), rowIdsOf(store.findDue(Axis.ORIGINAL, 0, LEASE_END, 10)),
        "due again when the lease expires");
  }

  @Test
  void aClaimFailsOnARowInBackoffOrNotPending() {
    LedgerItem backoff = register(ItemId.original("b1", "720p", 0), 10);
    assertTrue(store.recordFailure(backoff.rowId(), ItemState.PENDING, "node-a", Reason.SINK_TRANSIENT, "503",
        T0.plusSeconds(60)));
    LedgerItem confirmed = register(ItemId.original("b1", "720p", 1), 10);
    assertTrue(store.confirm(confirmed.rowId(), ItemState.PENDING, 10, "c", T0));

    assertFalse(store.claim(backoff.rowId(), "node-a", LEASE_END, T0.plusSeconds(59)).held(), "in backoff");
    assertTrue(store.claim(backoff.rowId(), "node-a", LEASE_END, T0.plusSeconds(60)).held(), "due");
    assertFalse(store.claim(confirmed.rowId(), "node-a", LEASE_END, T0).held());
    assertFalse(store.claim(424242, "node-a", LEASE_END, T0).held(), "unknown row");
  }

  @Test
  void confirmSucceedsWhoeverHoldsTheLeaseAndEndsIt() {
    LedgerItem row = register(ItemId.original("b1", "720p", 0), 10);
    assertTrue(store.claim(row.rowId(), "node-a", LEASE_END, T0).held());

    assertTrue(store.confirm(row.rowId(), ItemState.PENDING, 10, "c", T0.plusSeconds(1)),
        "the confirm is a compare-and-set on state and size only");
    assertFalse(store.claim(row.rowId(), "node-a", LEASE_END, T0.plusSeconds(2)).held(), "confirmed rows are not claimed");
    assertFalse(store.release(row.rowId(), "node-a", T0.plusSeconds(2)), "the lease ended with the confirm");
  }

  @Test
  void aRecordedFailureEndsTheLeaseAndSchedulesTheRetry() {
    LedgerItem row = register(ItemId.original("b1", "720p", 0), 10);
    assertTrue(store.claim(row.rowId(), "node-a", LEASE_END, T0).held());

    assertTrue(store.recordFailure(row.rowId(), ItemState.PENDING, "node-a", Reason.SINK_TRANSIENT, "503", T0.plusSeconds(5)));
    assertEquals(T0.plusSeconds(5), store.findByRowId(row.rowId()).orElseThrow().nextAttemptAt());
    assertTrue(store.claim(row.rowId(), "node-b", LEASE_END, T0.plusSeconds(5)).held(),
        "another owner takes the retry as soon as it is due, long before the old lease would have expired");
  }

  @Test
  void aClaimOfAnExpiredLeaseRecordsTheAbandonedAttempt() {
    LedgerItem row = register(ItemId.original("b1", "720p", 0), 10);
    assertEquals(Claim.held(false, 0), store.claim(row.rowId(), "node-a", LEASE_END, T0));

    assertEquals(Claim.held(true, 1), store.claim(row.rowId(), "node-b", LEASE_END.plusSeconds(120), LEASE_END),
        "node-a's attempt ended without an outcome");
    LedgerItem taken = store.findByRowId(row.rowId()).orElseThrow();
    assertEquals(1, taken.attempts(), "the abandoned attempt is counted");
    assertEquals(Reason.ATTEMPT_ABANDONED, taken.reason());
    assertTrue(taken.lastError().contains("node-a"), taken.lastError());
    assertEquals(Claim.held(true, 2), store.claim(row.rowId(), "node-c", LEASE_END.plusSeconds(240),
        LEASE_END.plusSeconds(120)));

    assertTrue(store.recordFailure(row.rowId(), ItemState.PENDING, "node-c", Reason.SINK_TRANSIENT, "503",
        LEASE_END.plusSeconds(130)));
    assertEquals(Claim.held(false, 2), store.claim(row.rowId(), "node-a", LEASE_END.plusSeconds(300),
        LEASE_END.plusSeconds(130)), "a recorded failure ends its attempt; the count stays");
    assertEquals(3, store.findByRowId(row.rowId()).orElseThrow().attempts());
  }

  @Test
  void aValidLeaseOfTheClaimantIsNotAnAbandonedAttempt() {
    LedgerItem row = register(ItemId.original("b1", "720p", 0), 10);
    assertTrue(store.claim(row.rowId(), "node-a", LEASE_END, T0).held());

    assertEquals(Claim.held(false, 0), store.claim(row.rowId(), "node-a", LEASE_END.plusSeconds(60), T0.plusSeconds(30)));
    assertEquals(0, store.findByRowId(row.rowId()).orElseThrow().attempts());
  }

  @Test
  void releaseAllOfEndsTheLeasesSoThatTheNextClaimCountsThem() {
    LedgerItem row = register(ItemId.original("b1", "720p", 0), 10);
    assertTrue(store.claim(row.rowId(), "node-a", LEASE_END, T0).held());

    assertEquals(1, store.releaseAllOf("node-a", T0.plusSeconds(1)));
    assertEquals(Claim.held(true, 1), store.claim(row.rowId(), "node-a", LEASE_END, T0.plusSeconds(1)),
        "the same node restarted: its earlier life's attempt ended without an outcome");
  }

  @Test
  void reopenResetsTheCountOfAbandonedAttempts() {
    LedgerItem row = register(ItemId.original("b1", "720p", 0), 10);
    assertTrue(store.claim(row.rowId(), "node-a", LEASE_END, T0).held());
    assertEquals(Claim.held(true, 1), store.claim(row.rowId(), "node-b", LEASE_END.plusSeconds(120), LEASE_END));
    assertTrue(store.markTerminal(row.rowId(), ItemState.PENDING, "node-b", ItemState.REJECTED,
        Reason.REPEATEDLY_ABANDONED, "too many", LEASE_END));

    assertTrue(store.reopen(row.rowId(), ItemState.REJECTED, Reason.REOPENED, "fixed", LEASE_END.plusSeconds(1)));
    assertTrue(store.claim(row.rowId(), "node-a", LEASE_END.plusSeconds(200), LEASE_END.plusSeconds(1)).held());
    assertEquals(Claim.held(true, 1), store.claim(row.rowId(), "node-b", LEASE_END.plusSeconds(400),
        LEASE_END.plusSeconds(200)), "counted afresh after the re-open");
  }

  @Test
  void anExpiredLeaseTakenAtRegistrationIsNotAnAbandonedAttemptUnlessRenewed() {
    Instant held = T0.plusSeconds(10);
    LedgerItem queued = store.register(NewItem.pending(ItemId.original("b1", "720p", 0), "/rec/0.ts", 10, T0)
        .leasedTo("node-a", held)).item();
    LedgerItem started = store.register(NewItem.pending(ItemId.original("b1", "720p", 1), "/rec/1.ts", 10, T0)
        .leasedTo("node-a", held)).item();
    assertTrue(store.renew(started.rowId(), "node-a", held, LEASE_END), "node-a starts uploading it");

    assertEquals(Claim.held(false, 0), store.claim(queued.rowId(), "node-b", LEASE_END, held),
        "node-a died while the row only waited in its queue");
    assertEquals(Claim.held(true, 1), store.claim(started.rowId(), "node-b", LEASE_END.plusSeconds(60), LEASE_END),
        "node-a died while uploading it");
  }

  @Test
  void renewExtendsOnlyTheExactLeaseTheCallerTook() {
    Instant held = T0.plusSeconds(10);
    LedgerItem row = store.register(NewItem.pending(ItemId.original("b1", "720p", 0), "/rec/0.ts", 10, T0)
        .leasedTo("node-a", held)).item();

    assertFalse(store.renew(row.rowId(), "node-b", held, LEASE_END), "not the holder");
    assertFalse(store.renew(row.rowId(), "node-a", held.plusSeconds(1), LEASE_END), "not the lease it took");
    assertTrue(store.renew(row.rowId(), "node-a", held, LEASE_END), "even if it expired meanwhile");
    assertEquals(LEASE_END, store.findByRowId(row.rowId()).orElseThrow().nextAttemptAt());
    assertEquals(0, store.findByRowId(row.rowId()).orElseThrow().attempts(), "a renewal is no abandoned attempt");
    assertTrue(store.claim(row.rowId(), "node-b", LEASE_END.plusSeconds(60), LEASE_END).held());
    assertFalse(store.renew(row.rowId(), "node-a", LEASE_END, LEASE_END.plusSeconds(120)), "taken over");
  }

  @Test
  void aHolderWhoseLeaseWasTakenOverRecordsNothing() {
    LedgerItem row = register(ItemId.original("b1", "720p", 0), 10);
    assertTrue(store.claim(row.rowId(), "node-a", LEASE_END, T0).held());
    assertTrue(store.claim(row.rowId(), "node-b", LEASE_END.plusSeconds(120), LEASE_END).held());

    assertFalse(store.recordFailure(row.rowId(), ItemState.PENDING, "node-a", Reason.SINK_TRANSIENT, "late 503",
        LEASE_END.plusSeconds(1)), "node-a's lease is gone");
    assertFalse(store.markTerminal(row.rowId(), ItemState.PENDING, "node-a", ItemState.REJECTED,
        Reason.SINK_PERMANENT, "late 403", LEASE_END.plusSeconds(1)));
    LedgerItem now = store.findByRowId(row.rowId()).orElseThrow();
    assertEquals(ItemState.PENDING, now.state());
    assertEquals(LEASE_END.plusSeconds(120), now.nextAttemptAt(), "node-b's lease is untouched");
    assertFalse(store.claim(row.rowId(), "node-c", LEASE_END.plusSeconds(200), LEASE_END.plusSeconds(1)).held());
    assertTrue(store.recordFailure(row.rowId(), ItemState.PENDING, "node-b", Reason.SINK_TRANSIENT, "503",
        LEASE_END.plusSeconds(2)), "the holder records its failure");
  }

  @Test
  void theFileIdentityIsStoredAndKeptByReopenUnlessTheFileChanged() {
    List<NewItem> batch = new ArrayList<>();
    for (int i = 0; i < 6; i++) {
      batch.add(NewItem.pending(ItemId.original("b1", "720p", i), "/rec/" + i + ".ts", 10, T0)
          .withFileIdentity("(dev=1,ino=" + i + ")@" + T0));
    }
    List<RegisterResult> many = store.registerAll(batch);
    RegisterResult one = store.register(NewItem.pending(ItemId.original("b1", "720p", 9), "/rec/9.ts", 10, T0)
        .withFileIdentity("(dev=1,ino=9)@" + T0));
    for (int i = 0; i < 6; i++) {
      assertEquals("(dev=1,ino=" + i + ")@" + T0, many.get(i).item().fileIdentity());
      assertEquals("(dev=1,ino=" + i + ")@" + T0, store.findByRowId(many.get(i).item().rowId()).orElseThrow()
          .fileIdentity(), "as read back");
    }
    assertEquals("(dev=1,ino=9)@" + T0, store.findByRowId(one.item().rowId()).orElseThrow().fileIdentity());

    long changed = many.get(0).item().rowId();
    long refused = many.get(1).item().rowId();
    assertTrue(store.markTerminal(changed, ItemState.PENDING, "node-a", ItemState.REJECTED, Reason.FILE_CHANGED,
        "rewritten", T0));
    assertTrue(store.markTerminal(refused, ItemState.PENDING, "node-a", ItemState.REJECTED, Reason.SINK_PERMANENT,
        "403", T0));
    assertTrue(store.reopen(changed, ItemState.REJECTED, Reason.REOPENED, "accepted as it is", T0));
    assertTrue(store.reopen(refused, ItemState.REJECTED, Reason.REOPENED, "policy fixed", T0));
    assertNull(store.findByRowId(changed).orElseThrow().fileIdentity(), "re-opening accepts the file as it is now");
    assertEquals("(dev=1,ino=1)@" + T0, store.findByRowId(refused).orElseThrow().fileIdentity());
  }

  @Test
  void releaseGivesBackOnlyTheHoldersLease() {
    LedgerItem row = register(ItemId.original("b1", "720p", 0), 10);
    assertTrue(store.claim(row.rowId(), "node-a", LEASE_END, T0).held());

    assertFalse(store.release(row.rowId(), "node-b", T0), "not the holder");
    assertTrue(store.release(row.rowId(), "node-a", T0.plusSeconds(1)));
    assertEquals(T0.plusSeconds(1), store.findByRowId(row.rowId()).orElseThrow().nextAttemptAt());
    assertTrue(store.claim(row.rowId(), "node-b", LEASE_END, T0.plusSeconds(1)).held(), "free again at once");
  }

  @Test
  void ofConcurrentClaimsOfOneRowExactlyOneWins() throws Exception {
    LedgerItem row = register(ItemId.original("b1", "720p", 0), 10);
    List<Callable<Boolean>> claimants = new ArrayList<>();
    for (int i = 0; i < CONCURRENT_CONFIRMERS; i++) {
      String owner = "node-" + i;
      claimants.add(() -> store.claim(row.rowId(), owner, LEASE_END, T0).held());
    }

    assertEquals(1, wins(race(claimants)));
  }

  // ---- helpers ------------------------------------------------------------------------------

  /**
   * Runs each task on a thread of its own, all released at once, and returns their results in
   * order (failing the test if one throws or takes more than 30 seconds).
   */
  private static <T> List<T> race(List<Callable<T>> tasks) throws Exception {
    CountDownLatch start = new CountDownLatch(1);
    ExecutorService threads = Executors.newFixedThreadPool(tasks.size());
    try {
      List<Future<T>> outcomes = new ArrayList<>();
      for (Callable<T> task : tasks) {
        outcomes.add(threads.submit(() -> {
          start.await();
          return task.call();
        }));
      }
      start.countDown();
      List<T> results = new ArrayList<>();
      for (Future<T> outcome : outcomes) {
        results.add(outcome.get(30, TimeUnit.SECONDS));
      }
      return results;
    } finally {
      threads.shutdownNow();
    }
  }

  /** How many of the raced compare-and-set calls succeeded. */
  private static long wins(List<Boolean> outcomes) {
    return outcomes.stream().filter(Boolean::booleanValue).count();
  }

  /** Registers a PENDING row at {@link #T0} and returns it. */
  protected final LedgerItem register(ItemId id, long sizeBytes) {
    RegisterResult result = store.register(NewItem.pending(id, "/rec/" + id.objectKey(), sizeBytes, T0));
    assertTrue(result.created(), () -> id + " was already registered");
    assertSame(ItemState.PENDING, result.item().state());
    return result.item();
  }

  /** Asserts that the rows a batch created have ids growing in {@link ItemId#IDENTITY_ORDER}. */
  private static void assertRowIdsGrowInIdentityOrder(List<RegisterResult> results) {
    List<LedgerItem> created = results.stream()
        .filter(RegisterResult::created)
        .map(RegisterResult::item)
        .sorted(Comparator.comparing(LedgerItem::id, ItemId.IDENTITY_ORDER))
        .toList();
    for (int i = 1; i < created.size(); i++) {
      assertTrue(created.get(i).rowId() > created.get(i - 1).rowId(), "row ids grow in identity order: "
          + created.get(i - 1).id() + " has " + created.get(i - 1).rowId() + ", " + created.get(i).id() + " has "
          + created.get(i).rowId());
    }
  }

  private static List<Long> rowIdsOf(List<LedgerItem> rows) {
    return rows.stream().map(LedgerItem::rowId).toList();
  }
}
