package dev.segmentledger.jdbi;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.segmentledger.core.Axis;
import dev.segmentledger.core.ItemState;
import dev.segmentledger.core.LedgerItem;
import dev.segmentledger.core.Reason;
import dev.segmentledger.core.query.Backlog;
import dev.segmentledger.core.query.Page;
import dev.segmentledger.core.query.RowQuery;
import dev.segmentledger.testkit.PostgresExtension;
import java.time.Instant;
import java.util.List;
import org.jdbi.v3.core.Jdbi;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * The operations queries (listings across broadcasts, backlog figures) must read the partial index
 * of rows that are not confirmed, never the confirmed bulk of the table. The table holds 100,000
 * rows with realistic statistics (ANALYZE, no planner switches): 1% unconfirmed or rejected, the
 * rest confirmed, as on a ledger that keeps up.
 */
class OperationsIndexPlanTest {
  @RegisterExtension
  static final PostgresExtension PG = PostgresExtension.create();

  private static final int ROWS = 100_000;
  private static final Instant NOW = Instant.parse("2026-01-01T00:00:00Z");

  private static Jdbi jdbi;
  private static JdbiStateStore store;

  @BeforeAll
  static void seedMostlyConfirmedRows() {
    jdbi = Jdbi.create(PG.dataSource());
    store = JdbiStateStore.create(jdbi).migrate();
    jdbi.useHandle(handle -> {
      // g % 100: 0 PENDING due, 1 PENDING in backoff with g % 7 attempts, 2 REJECTED (SINK_PERMANENT),
      // 3 WAITING (PLAYBACK); the rest CONFIRMED. Axes alternate ORIGINAL and PLAYBACK.
      handle.createUpdate("INSERT INTO segment_ledger_item (broadcast_id, axis, rendition, sequence, source_path,"
              + " size_bytes, state, reason, attempts, registered_at, next_attempt_at, confirmed_at)"
              + " SELECT 'b' || (g / 1000), CASE WHEN g % 100 = 3 THEN 'PLAYBACK'"
              + " ELSE (ARRAY['ORIGINAL', 'PLAYBACK'])[1 + g % 2] END, '720p', g, '/rec/' || g, 1000,"
              + " CASE g % 100 WHEN 0 THEN 'PENDING' WHEN 1 THEN 'PENDING' WHEN 2 THEN 'REJECTED'"
              + " WHEN 3 THEN 'WAITING' ELSE 'CONFIRMED' END,"
              + " CASE WHEN g % 100 = 2 THEN 'SINK_PERMANENT' END,"
              + " CASE WHEN g % 100 = 1 THEN g % 7 ELSE 0 END,"
              + " CAST(:now AS timestamptz) - (:rows - g) * interval '1 second',"
              + " CASE WHEN g % 100 = 1 THEN CAST(:later AS timestamptz) ELSE CAST(:now AS timestamptz) END,"
              + " CASE WHEN g % 100 >= 4 THEN CAST(:now AS timestamptz) END"
              + " FROM generate_series(1, :rows) AS g")
          .bind("now", NOW)
          .bind("later", NOW.plusSeconds(3600))
          .bind("rows", ROWS)
          .execute();
      handle.execute("ANALYZE segment_ledger_item");
    });
  }

  @Test
  void backlogReadsOnlyTheIndexOfRowsNotConfirmed() {
    String plan = jdbi.withHandle(handle -> String.join("\n", handle.createQuery("EXPLAIN "
        + Queries.BACKLOG).bind("now", NOW).mapTo(String.class).list()));

    assertTrue(plan.contains(" segment_ledger_item_open"), plan);
    assertFalse(plan.contains("Seq Scan"), plan);
  }

  @Test
  void backlogFiguresMatchTheSeededRows() {
    Backlog backlog = store.backlog(NOW);

    // ORIGINAL: even g with g % 100 in {0}: PENDING due (g % 100 = 1 is odd: PLAYBACK).
    assertEquals(new Backlog.AxisBacklog(1000, NOW.minusSeconds(ROWS - 100), 1000, 0, 0, 0, 1000 * 1000),
        backlog.axis(Axis.ORIGINAL));
    assertEquals(new Backlog.AxisBacklog(2000, NOW.minusSeconds(ROWS - 1), 0, 0, 1000, 1000, 2000 * 1000),
        backlog.axis(Axis.PLAYBACK));
    assertEquals(Backlog.AxisBacklog.EMPTY, backlog.axis(Axis.INIT));
  }

  @Test
  void pagedQueriesScanTheIndexFromTheCursor() {
    List<RowQuery> queries = List.of(
        RowQuery.builder().states(ItemState.REJECTED).reasons(Reason.SINK_PERMANENT).build(),
        RowQuery.builder().states(ItemState.REJECTED, ItemState.EXCLUDED).after(ROWS / 2).build(),
        RowQuery.builder().states(ItemState.PENDING).minAttempts(5).order(RowQuery.Order.OLDEST_FIRST)
            .after(ROWS / 3).build(),
        RowQuery.builder().states(ItemState.PENDING).registeredBefore(NOW.minusSeconds(ROWS / 2)).build(),
        RowQuery.builder().states(ItemState.PENDING, ItemState.WAITING).axis(Axis.PLAYBACK).limit(1000).build());
    for (RowQuery query : queries) {
      String plan = jdbi.withHandle(handle -> String.join("\n", Queries.bindRowQuery(
          handle.createQuery("EXPLAIN " + Queries.rowQuerySql(query)), query).mapTo(String.class).list()));

      // A partial index of rows not confirmed: the one for these queries, or for PENDING rows the
      // sweep's (segment_ledger_item_due), which the planner may find as good.
      assertTrue(plan.contains(" segment_ledger_item_open") || plan.contains(" segment_ledger_item_due"),
          query + "\n" + plan);
      assertFalse(plan.contains("Seq Scan"), query + "\n" + plan);
      // Neither the primary key nor the identity index: they hold the confirmed rows too. The planner
      // may walk the index in order from the cursor or, when the other conditions are selective,
      // take the state's rows from it with a bitmap and sort them; both read only rows not confirmed.
      assertFalse(plan.contains("segment_ledger_item_pkey"), query + "\n" + plan);
      assertFalse(plan.contains("segment_ledger_item_identity"), query + "\n" + plan);
    }
  }

  @Test
  void pagedQueryReturnsTheMatchingRowsInOrder() {
    RowQuery query = RowQuery.builder().states(ItemState.PENDING).minAttempts(5).order(RowQuery.Order.OLDEST_FIRST)
        .limit(50).build();
    Page<LedgerItem> first = store.findRows(query);
    Page<LedgerItem> second = store.findRows(query.after(first.next().orElseThrow()));

    assertEquals(50, first.items().size());
    long previous = 0;
    for (LedgerItem row : first.items()) {
      assertTrue(row.rowId() > previous);
      assertTrue(row.attempts() >= 5);
      assertEquals(ItemState.PENDING, row.state());
      previous = row.rowId();
    }
    assertTrue(second.items().get(0).rowId() > previous);
  }

}
