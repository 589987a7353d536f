package dev.segmentledger.testkit.contract;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.segmentledger.core.Axis;
import dev.segmentledger.core.ItemId;
import dev.segmentledger.core.ItemState;
import dev.segmentledger.core.LedgerItem;
import dev.segmentledger.core.Reason;
import dev.segmentledger.core.query.Backlog;
import dev.segmentledger.core.query.Page;
import dev.segmentledger.core.query.RowCount;
import dev.segmentledger.core.query.RowQuery;
import dev.segmentledger.core.spi.Confirmation;
import dev.segmentledger.core.spi.NewItem;
import dev.segmentledger.core.spi.StateStore;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * The {@link StateStoreContract} group on the operations queries: {@code findRows} across
 * broadcasts, keyset-paged both ways, and the {@code backlog} figures per axis. Run as the
 * contract's {@code @Nested} class {@code OperationsQueries}, on the store of the enclosing
 * contract test.
 */
abstract class OperationsQueriesGroup extends ContractGroup {

  OperationsQueriesGroup(StateStoreContract contract) {
    super(contract);
  }

  // ---- operations queries (findRows, backlog) -----------------------------------------------

  /** Registers a PENDING row at {@code registeredAt} and returns it. */
  LedgerItem registerAt(ItemId id, Instant registeredAt) {
    return store.register(NewItem.pending(id, "/rec/" + id.objectKey(), 10, registeredAt)).item();
  }

  /** Registers a row and rejects it at once for {@code reason}. */
  LedgerItem rejectedRow(ItemId id, Reason reason) {
    LedgerItem row = register(id, 10);
    assertTrue(store.markTerminal(row.rowId(), ItemState.PENDING, "node-a", ItemState.REJECTED, reason, "no", T0));
    return store.findByRowId(row.rowId()).orElseThrow();
  }

  /** Every row of {@code query}, following the cursor from page to page; checks the pages on the way. */
  List<LedgerItem> allPages(RowQuery query) {
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
  void aStoreBoundedInTimeReadsAndWritesTheSameRows() {
    StateStore bounded = store.withReadTimeout(Duration.ofSeconds(5));
    LedgerItem row = registerAt(ItemId.original("bounded", "720p", 0), T0);
    assertEquals(row, bounded.findByRowId(row.rowId()).orElseThrow(), "a read of the bounded view");
    assertEquals(List.of(row), bounded.findRows(RowQuery.builder().broadcastId("bounded").build()).items());
    assertTrue(bounded.markTerminal(row.rowId(), ItemState.PENDING, "node-a", ItemState.REJECTED,
        Reason.SINK_PERMANENT, "denied", T0), "a write through it");
    assertEquals(ItemState.REJECTED, store.findByRowId(row.rowId()).orElseThrow().state(), "seen by the store");
    assertEquals(store.playlists().find("bounded"), bounded.playlists().find("bounded"), "its playlists' reads");
    assertEquals(store.playlists().countAwaitingPublication(), bounded.playlists().countAwaitingPublication());
    assertThrows(IllegalArgumentException.class, () -> store.withReadTimeout(Duration.ZERO));
    assertThrows(IllegalArgumentException.class, () -> store.withReadTimeout(Duration.ofSeconds(-1)));
    assertThrows(IllegalArgumentException.class, () -> store.withReadTimeout(Duration.ofMillis(Integer.MAX_VALUE + 1L)),
        "longer than PostgreSQL's largest statement_timeout");
  }

  @Test
  void countByBroadcastCountsRowsByAxisStateAndReasonWithTheOldestOfEach() {
    registerAt(ItemId.original("b1", "720p", 1), T0.plusSeconds(5));
    registerAt(ItemId.original("b1", "720p", 2), T0);
    rejectedRow(ItemId.original("b1", "720p", 3), Reason.MISSING_FILE);
    LedgerItem confirmed = registerAt(ItemId.init("b1", "720p"), T0.plusSeconds(9));
    assertTrue(store.confirm(new Confirmation(confirmed.rowId(), confirmed.id(), ItemState.PENDING, 10, "c",
        T0.plusSeconds(10))));
    registerAt(ItemId.original("b2", "720p", 1), T0.minusSeconds(60));

    List<RowCount> counts = new ArrayList<>(store.countByBroadcast("b1"));
    counts.sort(java.util.Comparator.comparing((RowCount c) -> c.axis()).thenComparing(RowCount::state));
    assertEquals(3, counts.size(), counts::toString);
    RowCount pending = counts.stream().filter(c -> c.state() == ItemState.PENDING).findFirst().orElseThrow();
    assertEquals(Axis.ORIGINAL, pending.axis());
    assertEquals(2, pending.rows());
    assertEquals(T0, pending.oldestRegisteredAt(), "the oldest of the group, not of the broadcast (b2)");
    RowCount rejected = counts.stream().filter(c -> c.state() == ItemState.REJECTED).findFirst().orElseThrow();
    assertEquals(Reason.MISSING_FILE, rejected.reason());
    assertEquals(1, rejected.rows());
    RowCount init = counts.stream().filter(c -> c.axis() == Axis.INIT).findFirst().orElseThrow();
    assertEquals(ItemState.CONFIRMED, init.state());
    assertEquals(1, init.rows());
    assertTrue(store.countByBroadcast("nobody").isEmpty());
  }

  @Test
  void findRowsListsRowsOfEveryBroadcastByStateAndReasonNewestFirst() {
    LedgerItem a = rejectedRow(ItemId.original("b1", "720p", 1), Reason.SINK_PERMANENT);
    register(ItemId.original("b1", "720p", 2), 10);
    LedgerItem b = rejectedRow(ItemId.original("b2", "720p", 1), Reason.MISSING_FILE);
    LedgerItem c = rejectedRow(ItemId.playback("b3", "1080p", 4), Reason.SINK_PERMANENT);
    LedgerItem registered = register(ItemId.original("b3", "1080p", 5), 10);
    assertTrue(store.confirm(new Confirmation(registered.rowId(), registered.id(),
        ItemState.PENDING, 10, "c", T0)));
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
    store.confirm(new Confirmation(confirmed.rowId(), confirmed.id(), ItemState.PENDING, 10, "c", T0));
    rejectedRow(ItemId.original("b3", "720p", 2), Reason.MISSING_FILE);
    store.register(NewItem.derived(ItemId.init("b4", "720p"), "/p/init.mp4", "/rec/0.ts", T0.plusSeconds(100)));
    store.register(NewItem.derived(ItemId.playback("b4", "720p", 0), "/p/0.m4s", "/rec/0.ts", T0.plusSeconds(100)));
    store.register(NewItem.derived(ItemId.playback("b4", "720p", 1), "/p/1.m4s", "/rec/1.ts", T0.plusSeconds(200)));

    Backlog backlog = store.backlog(now);

    assertEquals(now, backlog.at());
    assertEquals(new Backlog.AxisBacklog(4, T0.plusSeconds(5), 2, 1, 1, 0, 40), backlog.axis(Axis.ORIGINAL),
        "the expired lease is due again; the confirmed and rejected rows are not counted");
    assertEquals(new Backlog.AxisBacklog(2, T0.plusSeconds(100), 0, 0, 0, 2, 0), backlog.axis(Axis.PLAYBACK));
    assertEquals(new Backlog.AxisBacklog(1, T0.plusSeconds(100), 1, 0, 0, 0, 0), backlog.axis(Axis.INIT));
    assertEquals(7, backlog.unconfirmed());
    assertEquals(40, backlog.unconfirmedBytes());
    assertEquals(Duration.ofSeconds(3595), backlog.oldestAge());
    assertEquals(Duration.ofSeconds(3595), backlog.axis(Axis.ORIGINAL).oldestAge(now));
  }
}
