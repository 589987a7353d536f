package dev.segmentledger.jdbi;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.segmentledger.core.LedgerItem;
import dev.segmentledger.testkit.PostgresExtension;
import java.time.Instant;
import java.util.List;
import org.jdbi.v3.core.Jdbi;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * The sweep of produced files left on the disk reads the partial index of confirmed, produced rows
 * not yet handled, never the confirmed bulk of the table: 100,000 confirmed PLAYBACK rows, all but
 * 50 marked done, and a backlog of 20,000 rows not confirmed (realistic statistics: ANALYZE, no
 * planner switches).
 */
class LocalFilesIndexPlanTest {
  @RegisterExtension
  static final PostgresExtension PG = PostgresExtension.create();

  private static final int ROWS = 100_000;
  private static final int BACKLOG = 20_000;
  private static final Instant NOW = Instant.parse("2026-01-01T00:00:00Z");

  private static Jdbi jdbi;
  private static JdbiStateStore store;

  @BeforeAll
  static void seedMostlyHandledRows() {
    jdbi = Jdbi.create(PG.dataSource());
    store = JdbiStateStore.create(jdbi).migrate();
    jdbi.useHandle(handle -> {
      handle.createUpdate("INSERT INTO segment_ledger_item (broadcast_id, axis, rendition, sequence, source_path,"
              + " origin_path, size_bytes, state, attempts, registered_at, next_attempt_at, confirmed_at,"
              + " local_file_done_at)"
              + " SELECT 'b' || (g / 1000), 'PLAYBACK', '720p', g, '/rec/playback/' || g, '/rec/' || g, 1000,"
              + " 'CONFIRMED', 1, CAST(:now AS timestamptz), CAST(:now AS timestamptz), CAST(:now AS timestamptz),"
              + " CASE WHEN g % 2000 = 0 THEN NULL ELSE CAST(:now AS timestamptz) END"
              + " FROM generate_series(1, :rows) AS g")
          .bind("now", NOW)
          .bind("rows", ROWS)
          .execute();
      // A backlog: rows not confirmed yet (the question before deleting an original is among them).
      handle.createUpdate("INSERT INTO segment_ledger_item (broadcast_id, axis, rendition, sequence, source_path,"
              + " size_bytes, state, attempts, registered_at, next_attempt_at)"
              + " SELECT 'p' || (g / 1000), 'PLAYBACK', '720p', g, '/rec/pending/' || g, 1000, 'PENDING', 0,"
              + " CAST(:now AS timestamptz), CAST(:now AS timestamptz) FROM generate_series(1, :rows) AS g")
          .bind("now", NOW)
          .bind("rows", BACKLOG)
          .execute();
      handle.execute("ANALYZE segment_ledger_item");
    });
  }

  @Test
  void thePageReadsOnlyTheIndexOfRowsStillToHandle() {
    for (String group : new String[] {null, "host-a"}) {
      String plan = jdbi.withHandle(handle -> String.join("\n", handle.createQuery("EXPLAIN " + LocalFiles.FIND_TO_REMOVE)
          .bind("storageGroup", group).bind("afterRowId", 0L).bind("limit", 100).mapTo(String.class).list()));

      assertTrue(plan.contains(" segment_ledger_item_local_file_undone"), plan);
      assertFalse(plan.contains("Seq Scan"), plan);
    }
  }

  @Test
  void theOriginalsPageReadsTheIndexOfConfirmedOriginalsNotHandled() {
    for (String group : new String[] {"", "host-a"}) {
      String plan = jdbi.withHandle(handle -> String.join("\n", handle.createQuery("EXPLAIN " + LocalFiles.FIND_ORIGINALS)
          .bind("storageGroup", group).bind("before", NOW).bind("afterAt", NOW.minusSeconds(3600))
          .bind("afterRowId", 0L).bind("limit", 100).mapTo(String.class).list()));

      assertTrue(plan.contains(" segment_ledger_item_original_undone"), plan);
      assertFalse(plan.contains("Seq Scan"), plan);
      assertFalse(plan.contains("Sort"), "read in the index's order: " + plan);
    }
  }

  /** Asked before each deletion of an original: one probe of the hash index of unconfirmed rows. */
  @Test
  void theQuestionOfAnotherUnconfirmedRowProbesTheIndexOfUnconfirmedRows() {
    String plan = jdbi.withHandle(handle -> String.join("\n", handle.createQuery("EXPLAIN "
            + LocalFiles.UNCONFIRMED_WITH_SOURCE)
        .bind("sourcePath", "/rec/pending/7").bind("exceptRowId", 1L).mapTo(String.class).list()));

    assertTrue(plan.contains(" segment_ledger_item_unconfirmed_source"), plan);
    assertFalse(plan.contains("Seq Scan"), plan);
    assertFalse(store.hasUnconfirmedRowWithSourcePath("/rec/playback/2000", 1L), "that row is confirmed");
    assertTrue(store.hasUnconfirmedRowWithSourcePath("/rec/pending/7", 1L), "that one is not");
  }

  @Test
  void thePagesHoldTheUnhandledRowsOnly() {
    List<LedgerItem> first = store.findLocalFilesToRemove(null, 0, 30);
    assertEquals(30, first.size());
    List<LedgerItem> rest = store.findLocalFilesToRemove(null, first.get(29).rowId(), 30);
    assertEquals(20, rest.size());
    assertTrue(first.stream().allMatch(row -> row.id().sequence() % 2000 == 0));
  }
}
