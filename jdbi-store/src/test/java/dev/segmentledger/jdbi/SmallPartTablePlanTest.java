package dev.segmentledger.jdbi;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.segmentledger.core.spi.PlaylistPart;
import dev.segmentledger.testkit.PostgresExtension;
import java.util.Optional;
import org.jdbi.v3.core.Jdbi;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * A live-only publication's read of the sealed summary takes one row, the rendition's last part,
 * through the parts' primary key even when the part table is small (20 renditions of 60 parts),
 * where the planner could otherwise scan the table: the rows read per new segment must not grow
 * with the broadcast's parts.
 */
class SmallPartTablePlanTest {
  @RegisterExtension
  static final PostgresExtension PG = PostgresExtension.create();

  private static Jdbi jdbi;
  private static JdbiStateStore store;

  @BeforeAll
  static void seed() {
    jdbi = Jdbi.create(PG.dataSource());
    store = PlanFixture.emptyStore(jdbi);
    jdbi.useHandle(handle -> {
      handle.execute("INSERT INTO segment_ledger_playlist_part (broadcast_id, rendition, first_sequence,"
          + " next_sequence, entries, discontinuities, target_seconds, peak_bandwidth, text, chain_first_sequence,"
          + " total_entries, total_discontinuities, total_target_seconds, total_peak_bandwidth)"
          + " SELECT 'b' || (g / 60), '720p', (g % 60) * 100, (g % 60) * 100 + 100, 100, 0, 2, 1000, 'x', 0,"
          + " (g % 60) * 100 + 100, 0, 2, 1000 FROM generate_series(0, 1199) AS g");
      handle.execute("ANALYZE segment_ledger_playlist_part");
    });
  }

  @Test
  void theSealedSummaryReadsTheLastPartThroughThePrimaryKey() {
    String plan = PlanFixture.explain(jdbi, PlaylistParts.READ_LAST_TOTALS,
        q -> q.bind("broadcastId", "b7").bind("rendition", "720p"));

    assertTrue(plan.contains("segment_ledger_playlist_part_pk"), plan);
    assertFalse(plan.contains("Seq Scan"), plan);
    assertEquals(Optional.of(new PlaylistPart("b7", "720p", 0, 6000, 6000, 0, 2, 1000, "")),
        store.playlists().sealedSummary("b7", "720p"));
  }
}
