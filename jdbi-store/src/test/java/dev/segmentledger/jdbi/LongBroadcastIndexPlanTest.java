package dev.segmentledger.jdbi;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.segmentledger.testkit.PostgresExtension;
import java.time.Instant;
import java.util.function.UnaryOperator;
import org.jdbi.v3.core.Jdbi;
import org.jdbi.v3.core.statement.Query;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * What a playlist publication of a long broadcast reads costs what it returns, never the size of the
 * broadcast or of the ledger: each statement reads the index built for it. The tables hold
 * realistic numbers with statistics (ANALYZE, no planner switches): 100,000 rows of 100 broadcasts,
 * 1% of them unconfirmed; 20,000 playlists, 1% awaiting publication and 1% with a full playlist
 * behind; 10,000 sealed parts.
 */
class LongBroadcastIndexPlanTest {
  @RegisterExtension
  static final PostgresExtension PG = PostgresExtension.create();

  private static final int ROWS = 100_000;
  private static final int PLAYLISTS = 20_000;
  private static final int PARTS = 10_000;
  private static final Instant NOW = Instant.parse("2026-01-01T00:00:00Z");

  private static Jdbi jdbi;
  private static JdbiStateStore store;

  @BeforeAll
  static void seed() {
    jdbi = Jdbi.create(PG.dataSource());
    store = PlanFixture.emptyStore(jdbi);
    jdbi.useHandle(handle -> {
      // 1,000 rows per broadcast: a third ORIGINAL, the rest PLAYBACK of two renditions; g % 100 = 0
      // PENDING, the rest CONFIRMED.
      handle.createUpdate("INSERT INTO segment_ledger_item (broadcast_id, axis, rendition, sequence, source_path,"
              + " size_bytes, state, registered_at, next_attempt_at, confirmed_at)"
              + " SELECT 'b' || (g / 1000), CASE WHEN g % 3 = 0 THEN 'ORIGINAL' ELSE 'PLAYBACK' END,"
              + " (ARRAY['720p', '1080p'])[1 + g % 2], g, '/rec/' || g, 1000,"
              + " CASE WHEN g % 100 = 0 THEN 'PENDING' ELSE 'CONFIRMED' END, :now, :now,"
              + " CASE WHEN g % 100 = 0 THEN NULL ELSE CAST(:now AS timestamptz) END"
              + " FROM generate_series(1, :rows) AS g")
          .bind("now", NOW)
          .bind("rows", ROWS)
          .execute();
      // g % 100 = 0 awaiting publication, g % 100 = 1 with its full playlist due in g % 3 hours.
      handle.createUpdate("INSERT INTO segment_ledger_playlist (broadcast_id, rendition, wanted, published,"
              + " updated_at, full_due_at)"
              + " SELECT 'p' || g, '720p', CASE WHEN g % 100 = 0 THEN 6 ELSE 5 END, 5,"
              + " CAST(:now AS timestamptz) - g * interval '1 second',"
              + " CASE WHEN g % 100 = 1 THEN CAST(:now AS timestamptz) + (g % 3) * interval '1 hour' END"
              + " FROM generate_series(1, :playlists) AS g")
          .bind("now", NOW)
          .bind("playlists", PLAYLISTS)
          .execute();
      handle.createUpdate("INSERT INTO segment_ledger_playlist_part (broadcast_id, rendition, first_sequence,"
              + " next_sequence, entries, discontinuities, target_seconds, peak_bandwidth, text, chain_first_sequence,"
              + " total_entries, total_discontinuities, total_target_seconds, total_peak_bandwidth)"
              + " SELECT 'b' || (g / 100), '720p', (g % 100) * 10, (g % 100) * 10 + 10, 10, 0, 2, 0, 'x',"
              + " 0, (g % 100) * 10 + 10, 0, 2, 0"
              + " FROM generate_series(1, :parts) AS g")
          .bind("parts", PARTS)
          .execute();
      handle.execute("ANALYZE segment_ledger_item");
      handle.execute("ANALYZE segment_ledger_playlist");
      handle.execute("ANALYZE segment_ledger_playlist_part");
    });
  }

  private static String plan(String sql, UnaryOperator<Query> binds) {
    return PlanFixture.explain(jdbi, sql, binds);
  }

  @Test
  void findSegmentsIsAnOrderedRangeOfTheIdentityIndex() {
    String plan = plan(Queries.FIND_SEGMENTS, q -> q.bind("broadcastId", "b42").bind("rendition", "720p")
        .bind("fromSequence", 42_500L).bind("limit", 100));

    assertTrue(plan.contains(" segment_ledger_item_identity"), plan);
    assertFalse(plan.contains("Seq Scan"), plan);
    assertFalse(plan.contains("Sort"), "the index gives the sequence order: " + plan);
  }

  @Test
  void findSegmentsReturnsThePageOfTheSeededRows() {
    // b42 holds g = 42,000 to 42,999; its 720p PLAYBACK rows are the even g not divisible by 3.
    assertEquals(java.util.List.of(42_500L, 42_502L, 42_506L), store.findSegments("b42", "720p", 42_500, 3).stream()
        .map(row -> row.id().sequence()).toList());
  }

  @Test
  void hasOpenRowsProbesThePartialIndexOfUnconfirmedRowsByBroadcast() {
    String plan = plan(Queries.HAS_OPEN_ROWS, q -> q.bind("broadcastId", "b42"));

    assertTrue(plan.contains(" segment_ledger_item_unconfirmed_by_broadcast"), plan);
    assertFalse(plan.contains("Seq Scan"), plan);
    assertTrue(store.hasOpenRows("b42"));
  }

  @Test
  void theClaimReadsOnlyThePartialIndexesOfPlaylistsWithWork() {
    String plan = plan(Playlists.CLAIM, q -> q.bind("owner", "n1").bind("leaseUntil", NOW.plusSeconds(60))
        .bind("now", NOW.plusSeconds(3600)).bind("limit", 32));

    assertTrue(plan.contains(" segment_ledger_playlist_awaiting"), plan);
    assertTrue(plan.contains(" segment_ledger_playlist_full_due"), plan);
    assertFalse(plan.contains("Seq Scan"), plan);
  }

  @Test
  void theCountOfPlaylistsAwaitingPublicationReadsTheirIndexAlone() {
    String plan = plan(Playlists.COUNT_AWAITING, q -> q);

    assertTrue(plan.contains(" segment_ledger_playlist_awaiting"), plan);
    assertFalse(plan.contains("segment_ledger_playlist_full_due"), plan);
    assertFalse(plan.contains("Seq Scan"), plan);
    assertEquals(PLAYLISTS / 100, store.playlists().countAwaitingPublication());
  }

  @Test
  void thePartsOfAPlaylistAreARangeOfTheirKey() {
    String plan = plan(PlaylistParts.READ, q -> q.bind("broadcastId", "b42").bind("rendition", "720p"));

    // In key order, or the range taken with a bitmap and sorted: either way the playlist's parts only.
    assertTrue(plan.contains(" segment_ledger_playlist_part_pk"), plan);
    assertFalse(plan.contains("Seq Scan"), plan);
    assertEquals(100, store.playlists().parts("b42", "720p").size());
  }
}
