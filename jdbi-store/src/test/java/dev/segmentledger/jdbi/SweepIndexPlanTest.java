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

/**
 * The sweep page must be a bounded scan of the partial index, however many confirmed rows exist,
 * and, for a node of a storage group, however many due rows other groups have.
 */
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
      // Hosts with local disks: 20,000 more rows, all PENDING and due, of the group host-b but every
      // 50th of host-a. A host-a node must not walk host-b's due backlog to fill its page.
      handle.createUpdate("INSERT INTO segment_ledger_item (broadcast_id, axis, rendition, sequence, source_path,"
              + " size_bytes, state, registered_at, next_attempt_at, storage_group)"
              + " SELECT 'g' || (g / 1000), 'ORIGINAL', '720p', g, '/rec/' || g, 1000, 'PENDING', :now, :now,"
              + " CASE WHEN g % 50 = 0 THEN 'host-a' ELSE 'host-b' END"
              + " FROM generate_series(1, :rows) AS g")
          .bind("now", NOW)
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
    assertTrue(plan.contains(" segment_ledger_item_due_by_group"), plan);
    assertFalse(plan.contains("Seq Scan"), plan);
  }

  @Test
  void sweepPageOfAGroupReadsTwoRangesOfThePartialIndex() {
    List<String> lines = jdbi.withHandle(handle -> handle.createQuery("EXPLAIN " + Queries.FIND_DUE_OF_GROUP)
        .bind("axis", Axis.ORIGINAL.name())
        .bind("storageGroup", "host-a")
        .bind("afterRowId", 0)
        .bind("now", NOW)
        .bind("limit", 128)
        .mapTo(String.class)
        .list());
    String plan = String.join("\n", lines);

    // Each branch is an "Index Scan using" (ordered) or a "Bitmap Index Scan on" (then a sort of
    // its few rows) segment_ledger_item_due_by_group, with "Index Cond: ((axis = ...) AND
    // (COALESCE(storage_group, '') = ...) AND (id > ...))": the group is part of the range, not a
    // filter, so host-b's 19,600 due rows are never visited.
    assertEquals(2, plan.split(" segment_ledger_item_due_by_group", -1).length - 1, plan);
    assertTrue(plan.contains("(COALESCE(storage_group, ''::character varying))::text = ''::text"), plan);
    assertTrue(plan.contains("'host-a'"), plan);
    assertFalse(plan.contains("Seq Scan"), plan);
    assertFalse(plan.contains("segment_ledger_item_open"), plan);
  }

  @Test
  void sweepPageOfAGroupReturnsItsDueRowsAndThoseOfNoGroupOnly() {
    List<LedgerItem> page = store.findDue(Axis.ORIGINAL, "host-a", 0, NOW, 100_000).rows();

    assertEquals(ROWS / 200 + ROWS / 50, page.size(), "due rows of no group and every 50th row of host-a");
    long previous = 0;
    for (LedgerItem row : page) {
      assertTrue(row.storageGroup() == null || row.storageGroup().equals("host-a"), row.toString());
      assertTrue(row.rowId() > previous, "in row id order");
      previous = row.rowId();
    }
  }

  @Test
  void sweepPageReturnsOnlyDueRowsOfTheAxisAfterTheCursor() {
    List<LedgerItem> page = store.findDue(Axis.ORIGINAL, ROWS / 2, NOW, 1000).rows();

    assertEquals(ROWS / 2 / 200, page.size(), "even ids above the cursor with id % 200 == 0");
    for (LedgerItem row : page) {
      assertTrue(row.rowId() > ROWS / 2);
      assertEquals(Axis.ORIGINAL, row.id().axis());
      assertFalse(row.nextAttemptAt().isAfter(NOW));
    }
  }
}
