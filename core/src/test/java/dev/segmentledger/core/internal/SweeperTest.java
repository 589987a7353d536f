package dev.segmentledger.core.internal;

import static org.junit.jupiter.api.Assertions.assertEquals;

import dev.segmentledger.core.Axis;
import dev.segmentledger.core.ItemId;
import dev.segmentledger.core.ItemState;
import dev.segmentledger.core.LedgerItem;
import dev.segmentledger.core.Registration.Offer;
import dev.segmentledger.core.SweepReport;
import dev.segmentledger.core.spi.DuePage.UnreadableRow;
import dev.segmentledger.core.spi.DuePage;
import java.time.Clock;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.List;
import java.util.function.LongPredicate;
import org.junit.jupiter.api.Test;

class SweeperTest {
  private static final Instant NOW = Instant.parse("2026-01-01T00:00:00Z");
  private final Clock clock = Clock.fixed(NOW, ZoneOffset.UTC);

  @Test
  void cursorAdvancesEveryRoundAndWrapsAtTheEnd() {
    PagedRows rows = new PagedRows(300);
    List<Long> offered = new ArrayList<>();
    Sweeper sweeper = new Sweeper(rows, clock, 128, null, null, (item, fromSweep) -> {
      offered.add(item.rowId());
      return Offer.ACCEPTED;
    }, (rowId, problem) -> { });

    assertEquals(128, sweeper.round().accepted());
    assertEquals(128, sweeper.cursor(Axis.ORIGINAL));
    assertEquals(128, sweeper.round().accepted());
    assertEquals(256, sweeper.cursor(Axis.ORIGINAL));
    SweepReport third = sweeper.round();
    assertEquals(44, third.accepted());
    assertEquals(0, sweeper.cursor(Axis.ORIGINAL), "a short page wraps the cursor");
    assertEquals(List.of(1L, 129L, 257L), List.of(offered.get(0), offered.get(128), offered.get(256)));
    assertEquals(List.of(0L, 128L, 256L), rows.afterIdsAsked, "never re-reads from the first page each round");
  }

  @Test
  void withLanesTheRestOfAPageIsOfferedAndEveryRefusedRowCounted() {
    PagedRows rows = new PagedRows(10);
    int[] capacity = {4};
    Sweeper sweeper = new Sweeper(rows, clock, 128, null, null, (item, fromSweep) -> capacity[0]-- > 0 ? Offer.ACCEPTED
        : Offer.SATURATED, (rowId, problem) -> { });

    SweepReport first = sweeper.round();
    assertEquals(4, first.accepted());
    assertEquals(6, first.saturated(), "with lanes the rest of the page is offered: every refused row counted");
    assertEquals(0, sweeper.cursor(Axis.ORIGINAL), "a short page wraps, refused rows or not");
  }

  @Test
  void withLanesRefusedRowsNeverHoldTheCursorBeforeDueRowsOfLaterPages() {
    PagedRows rows = new PagedRows(300);
    List<Long> accepted = new ArrayList<>();
    Sweeper sweeper = new Sweeper(rows, clock, 128, null, null, (item, fromSweep) -> {
      if (item.rowId() <= 200) {
        return Offer.SATURATED; // a backlog of a lower lane, refused while its share of the queue is full
      }
      accepted.add(item.rowId());
      return Offer.ACCEPTED;
    }, (rowId, problem) -> { }, null, () -> true);

    for (int round = 0; round < 3; round++) {
      sweeper.round();
    }
    assertEquals(100, accepted.size(), "every row behind the refused pages is reached in one cycle: " + accepted);
  }

  @Test
  void withOneQueueAFullQueueStopsThePageWhereItWasAndTheNextRoundResumesThere() {
    PagedRows rows = new PagedRows(200);
    int[] capacity = {4};
    Sweeper sweeper = new Sweeper(rows, clock, 128, null, null, (item, fromSweep) -> capacity[0]-- > 0 ? Offer.ACCEPTED
        : Offer.SATURATED, (rowId, problem) -> { }, null, () -> false);

    SweepReport first = sweeper.round();
    assertEquals(4, first.accepted());
    assertEquals(4, sweeper.cursor(Axis.ORIGINAL), "stopped before the refused row");
    capacity[0] = 1000;
    assertEquals(128, sweeper.round().accepted(), "resumed at the refused row: a page from it");
    assertEquals(132, sweeper.cursor(Axis.ORIGINAL));
  }

  @Test
  void withOneQueueTheFirstRefusedRowEndsThePageAndIsTheOneCounted() {
    PagedRows rows = new PagedRows(10);
    int[] capacity = {4};
    List<Long> offered = new ArrayList<>();
    Sweeper sweeper = new Sweeper(rows, clock, 128, null, null, (item, fromSweep) -> {
      offered.add(item.rowId());
      return capacity[0]-- > 0 ? Offer.ACCEPTED : Offer.SATURATED;
    }, (rowId, problem) -> { }, null, () -> false);

    SweepReport first = sweeper.round();
    assertEquals(4, first.accepted());
    assertEquals(1, first.saturated());
    assertEquals(5, offered.size(), "nothing offered after the refused row");
    assertEquals(4, sweeper.cursor(Axis.ORIGINAL));
  }

  @Test
  void unreadableRowsTakeTheirSlotsAreReportedOnceAndTheCursorMovesPastThem() {
    PagedRows rows = new PagedRows(300, id -> id <= 200); // a whole first page, and more, unreadable
    List<Long> offered = new ArrayList<>();
    List<Long> reported = new ArrayList<>();
    Sweeper sweeper = new Sweeper(rows, clock, 128, null, null, (item, fromSweep) -> {
      offered.add(item.rowId());
      return Offer.ACCEPTED;
    }, (rowId, problem) -> reported.add(rowId));

    SweepReport first = sweeper.round();
    assertEquals(128, first.unreadable());
    assertEquals(0, first.accepted());
    assertEquals(128, sweeper.cursor(Axis.ORIGINAL), "past the unreadable page, not back to its start");
    SweepReport second = sweeper.round();
    assertEquals(72, second.unreadable());
    assertEquals(56, second.accepted());
    sweeper.round(); // the last 44 rows; the cursor wraps
    sweeper.round(); // the first page again: its rows are not reported twice
    assertEquals(100, offered.size(), "every readable row is offered");
    assertEquals(201L, offered.get(0));
    assertEquals(200, reported.size(), "each unreadable row reported once");
  }

  @Test
  void anAxisWhosePageFailsStopsNeitherTheOtherAxesNorTheNextRound() {
    PagedRows rows = new PagedRows(10) {
      @Override
      public DuePage findDue(Axis axis, long afterRowId, Instant now, int limit) {
        if (axis == Axis.INIT) {
          throw new IllegalStateException("the INIT page failed");
        }
        return super.findDue(axis, afterRowId, now, limit);
      }
    };
    List<Long> offered = new ArrayList<>();
    Sweeper sweeper = new Sweeper(rows, clock, 128, null, null, (item, fromSweep) -> {
      offered.add(item.rowId());
      return Offer.ACCEPTED;
    }, (rowId, problem) -> { });

    SweepReport report = sweeper.round();
    assertEquals(1, report.failedAxes());
    assertEquals(10, report.accepted());
  }

  /** ORIGINAL rows 1..n, all due; those {@code unreadable} says are returned as unreadable. */
  private static class PagedRows extends StubStore {
    final int count;
    final LongPredicate unreadable;
    final List<Long> afterIdsAsked = new ArrayList<>();

    PagedRows(int count) {
      this(count, id -> false);
    }

    PagedRows(int count, LongPredicate unreadable) {
      this.count = count;
      this.unreadable = unreadable;
    }

    @Override
    public int settleWaiting(Instant at) {
      return 0;
    }

    @Override
    public DuePage findDue(Axis axis, long afterRowId, Instant now, int limit) {
      List<LedgerItem> page = new ArrayList<>();
      List<UnreadableRow> bad = new ArrayList<>();
      if (axis != Axis.ORIGINAL) {
        return DuePage.EMPTY;
      }
      afterIdsAsked.add(afterRowId);
      for (long id = afterRowId + 1; id <= count && page.size() + bad.size() < limit; id++) {
        if (unreadable.test(id)) {
          bad.add(new UnreadableRow(id, "state 'ARCHIVED' is unknown"));
        } else {
          page.add(new LedgerItem(id, ItemId.original("b", "r", id), "/x", null, 1, ItemState.PENDING, 0, null, null, NOW, NOW, null, null, null, null, null, null, null));
        }
      }
      return new DuePage(page, bad);
    }
  }
}
