package dev.segmentledger.jdbi;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.segmentledger.core.spi.PlaylistRecord;
import dev.segmentledger.testkit.PostgresExtension;
import java.time.Instant;
import java.util.List;
import org.jdbi.v3.core.Jdbi;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * The publisher's claim reads the two partial indexes of playlists with work, the awaiting ones in
 * the order of their index (at most the limit of them, not every awaiting record to be sorted), the
 * few due full playlists sorted, and never the whole playlist table: 4,000 playlists (1,000 live
 * broadcasts of 3 renditions and a multivariant playlist), 2% awaiting publication, 8 with a full
 * playlist due (and 8 due later), with statistics (ANALYZE, no planner switches). Every node claims
 * once a round.
 */
class PlaylistClaimPlanTest {
  @RegisterExtension
  static final PostgresExtension PG = PostgresExtension.create();

  private static final int PLAYLISTS = 4_000;
  private static final Instant NOW = Instant.parse("2026-01-01T00:00:00Z");

  private static Jdbi jdbi;
  private static JdbiStateStore store;

  @BeforeAll
  static void seed() {
    jdbi = Jdbi.create(PG.dataSource());
    store = PlanFixture.emptyStore(jdbi);
    jdbi.useHandle(handle -> {
      // g % 50 = 0 awaiting publication; g % 250 = 7 with its full playlist due an hour ago (g % 500 = 7)
      // or in an hour (g % 500 = 257); the higher g, the older the last change.
      handle.createUpdate("INSERT INTO segment_ledger_playlist (broadcast_id, rendition, wanted, published,"
              + " updated_at, full_due_at)"
              + " SELECT 'b' || (g / 4), (ARRAY['', '1080p', '720p', '360p'])[1 + g % 4],"
              + " CASE WHEN g % 50 = 0 THEN 6 ELSE 5 END, 5, CAST(:now AS timestamptz) - g * interval '1 second',"
              + " CASE WHEN g % 500 = 7 THEN CAST(:now AS timestamptz) - interval '1 hour'"
              + " WHEN g % 500 = 257 THEN CAST(:now AS timestamptz) + interval '1 hour' END"
              + " FROM generate_series(0, :playlists - 1) AS g")
          .bind("now", NOW)
          .bind("playlists", PLAYLISTS)
          .execute();
      handle.execute("ANALYZE segment_ledger_playlist");
    });
  }

  @Test
  void theClaimReadsBothPartialIndexesAndNeverTheWholeTable() {
    for (int limit : new int[] {32, 128}) {
      String plan = PlanFixture.explain(jdbi, Playlists.CLAIM, q -> q.bind("owner", "n1")
          .bind("leaseUntil", NOW.plusSeconds(60)).bind("now", NOW).bind("limit", limit));

      // The awaiting records are read in the order of their index, at most the limit of them; not all
      // of them (a bitmap) to be sorted. The few due full playlists may be sorted.
      assertTrue(plan.contains("Index Scan using segment_ledger_playlist_awaiting"), plan);
      assertTrue(plan.contains(" segment_ledger_playlist_full_due"), plan);
      assertFalse(plan.contains("Seq Scan on segment_ledger_playlist"), plan);
    }
  }

  @Test
  void theClaimLeasesTheOldestChangesOfBothKinds() {
    // The oldest: the full-due playlists g = 3507, 3007 and the awaiting g = 3950, 3900, ..., 3550.
    List<PlaylistRecord> claimed = store.playlists().claimDue("n1", NOW.plusSeconds(60), NOW, 10);

    assertEquals(List.of(3950, 3900, 3850, 3800, 3750, 3700, 3650, 3600, 3550, 3507),
        claimed.stream().map(PlaylistClaimPlanTest::ageOf).toList());
  }

  private static int ageOf(PlaylistRecord record) {
    return (int) (NOW.getEpochSecond() - record.updatedAt().getEpochSecond());
  }
}
