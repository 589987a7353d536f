package dev.segmentledger.jdbi;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.segmentledger.core.Axis;
import dev.segmentledger.core.LedgerItem;
import dev.segmentledger.testkit.PostgresExtension;
import java.time.Instant;
import java.util.List;
import org.jdbi.v3.core.Jdbi;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/** The sweep page must be a bounded scan of the partial index, however many confirmed rows exist. */
class SweepIndexPlanTest {
  @RegisterExtension
  static final PostgresExtension PG = PostgresExtension.create();

  private static final int ROWS = 20_000;
  private static final Instant NOW = Instant.parse("2026-01-01T00:00:00Z");

  private static Jdbi jdbi;
  private static JdbiStateStore store;

  @BeforeAll
  static void seedMostlyConfirmedRows() {
    jdbi = Jdbi.create(PG.dataSource());
    store = JdbiStateStore.create(jdbi).migrate();
    jdbi.useHandle(handle -> {
      // Every 100th row is PENDING, half of those in backoff; the rest are CONFIRMED.
      handle.createUpdate("INSERT INTO segment_ledger_item (broadcast_id, axis, rendition, sequence, source_path,"
              + " size_bytes, state, registered_at, next_attempt_at, confirmed_at)"
              + " SELECT 'b' || (g / 1000), (ARRAY['ORIGINAL', 'PLAYBACK'])[1 + g % 2], '720p', g, '/rec/' || g,"
              + " 1000, CASE WHEN g % 100 < 2 THEN 'PENDING' ELSE 'CONFIRMED' END, :now,"
              + " CASE WHEN g % 200 < 2 THEN CAST(:now AS timestamptz) ELSE CAST(:later AS timestamptz) END, :now"
              + " FROM generate_series(1, :rows) AS g")
          .bind("now", NOW)
          .bind("later", NOW.plusSeconds(3600))
          .bind("rows", ROWS)
          .execute();
      handle.execute("ANALYZE segment_ledger_item");
    });
  }

  @Test
  void sweepPageUsesThePartialIndex() {
    List<String> lines = jdbi.withHandle(handle -> handle.createQuery("EXPLAIN " + Queries.FIND_DUE)
        .bind("axis", Axis.ORIGINAL.name())
        .bind("afterRowId", ROWS / 2)
        .bind("now", NOW)
        .bind("limit", 128)
        .mapTo(String.class)
        .list());
    String plan = String.join("\n", lines);

    // An ordered "Index Scan using" or a "Bitmap Index Scan on" the partial index: either way only
    // PENDING rows of the axis past the cursor are visited, never the confirmed bulk of the table.
    assertTrue(plan.contains(" segment_ledger_item_due"), plan);
    assertFalse(plan.contains("Seq Scan"), plan);
  }

  @Test
  void sweepPageReturnsOnlyDueRowsOfTheAxisAfterTheCursor() {
    List<LedgerItem> page = store.findDue(Axis.ORIGINAL, ROWS / 2, NOW, 1000);

    assertEquals(ROWS / 2 / 200, page.size(), "even ids above the cursor with id % 200 == 0");
    for (LedgerItem row : page) {
      assertTrue(row.rowId() > ROWS / 2);
      assertEquals(Axis.ORIGINAL, row.id().axis());
      assertFalse(row.nextAttemptAt().isAfter(NOW));
    }
  }
}
