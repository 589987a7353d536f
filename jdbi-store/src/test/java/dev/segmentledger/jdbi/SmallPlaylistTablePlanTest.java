package dev.segmentledger.jdbi;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.segmentledger.testkit.PostgresExtension;
import java.time.Instant;
import org.jdbi.v3.core.Jdbi;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * The count of playlists awaiting publication reads their partial index even when the playlist table
 * is small (400 playlists: 100 live broadcasts of 3 renditions and a multivariant playlist, 2% of
 * them awaiting), where the planner, which has no statistics for {@code wanted > published} and takes
 * a third of the table to match, would otherwise scan every record: the publisher counts once a round.
 */
class SmallPlaylistTablePlanTest {
  @RegisterExtension
  static final PostgresExtension PG = PostgresExtension.create();

  private static final int PLAYLISTS = 400;
  private static final Instant NOW = Instant.parse("2026-01-01T00:00:00Z");

  private static Jdbi jdbi;
  private static JdbiStateStore store;

  @BeforeAll
  static void seed() {
    jdbi = Jdbi.create(PG.dataSource());
    store = PlanFixture.emptyStore(jdbi);
    jdbi.useHandle(handle -> {
      handle.createUpdate("INSERT INTO segment_ledger_playlist (broadcast_id, rendition, wanted, published,"
              + " updated_at)"
              + " SELECT 'b' || (g / 4), (ARRAY['', '1080p', '720p', '360p'])[1 + g % 4],"
              + " CASE WHEN g % 50 = 0 THEN 6 ELSE 5 END, 5, CAST(:now AS timestamptz) - g * interval '1 second'"
              + " FROM generate_series(0, :playlists - 1) AS g")
          .bind("now", NOW)
          .bind("playlists", PLAYLISTS)
          .execute();
      handle.execute("ANALYZE segment_ledger_playlist");
    });
  }

  @Test
  void theCountOfPlaylistsAwaitingPublicationReadsTheirIndexAlone() {
    String plan = PlanFixture.explain(jdbi, Playlists.COUNT_AWAITING, q -> q);

    assertTrue(plan.contains(" segment_ledger_playlist_awaiting"), plan);
    assertFalse(plan.contains("Seq Scan"), plan);
    assertEquals(PLAYLISTS / 50, store.playlists().countAwaitingPublication());
  }
}
