package dev.segmentledger.jdbi;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.segmentledger.core.Axis;
import dev.segmentledger.core.LedgerItem;
import dev.segmentledger.core.spi.DuePage;
import dev.segmentledger.core.spi.DuePage.UnreadableRow;
import dev.segmentledger.testkit.PostgresExtension;
import java.time.Instant;
import java.util.List;
import org.jdbi.v3.core.Jdbi;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * A row this version cannot read (a reason a newer version wrote, an identifier that is
 * not valid) is returned in its place of the sweep page as unreadable, never thrown: the rows
 * before and after it are read, and the page's last row id is past it.
 */
class UnreadableRowsTest {
  @RegisterExtension
  static final PostgresExtension PG = PostgresExtension.create();

  private static final Instant NOW = Instant.parse("2026-01-01T00:00:00Z");

  @Test
  void aSweepPageReturnsUnreadableRowsInTheirPlacesAndTheReadableOnesAroundThem() {
    Jdbi jdbi = Jdbi.create(PG.dataSource());
    JdbiStateStore store = JdbiStateStore.create(jdbi).migrate();
    jdbi.useHandle(handle -> handle.createUpdate("INSERT INTO segment_ledger_item (broadcast_id, axis, rendition,"
            + " sequence, source_path, size_bytes, state, reason, media_format, registered_at, next_attempt_at)"
            + " SELECT CASE WHEN g = 3 THEN 'bad id!' ELSE 'b1' END, 'ORIGINAL',"
            + " CASE WHEN g = 4 THEN '..' ELSE '720p' END, g, '/rec/' || g, 10,"
            + " 'PENDING', CASE WHEN g = 2 THEN 'A_REASON_OF_A_NEWER_VERSION' END,"
            + " NULL, :now, :now FROM generate_series(1, 5) AS g")
        .bind("now", NOW)
        .execute());

    DuePage page = store.findDue(Axis.ORIGINAL, null, 0, NOW, 4);

    assertEquals(4, page.size(), "the unreadable rows take their slots of the page");
    assertEquals(List.of(1L), page.rows().stream().map(LedgerItem::rowId).toList());
    assertEquals(List.of(2L, 3L, 4L), page.unreadable().stream().map(UnreadableRow::rowId).toList());
    assertTrue(page.unreadable().get(0).problem().contains("A_REASON_OF_A_NEWER_VERSION"),
        page.unreadable().get(0).problem());
    assertEquals(4L, page.lastRowId(), "the cursor moves past them");
    assertEquals(List.of(5L), store.findDue(Axis.ORIGINAL, null, page.lastRowId(), NOW, 4).rows().stream()
        .map(LedgerItem::rowId).toList());
  }
}
