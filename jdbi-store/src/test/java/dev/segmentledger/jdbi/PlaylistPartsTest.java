package dev.segmentledger.jdbi;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.segmentledger.core.ItemId;
import dev.segmentledger.core.ItemState;
import dev.segmentledger.core.LedgerItem;
import dev.segmentledger.core.Reason;
import dev.segmentledger.core.spi.Confirmation;
import dev.segmentledger.core.spi.NewItem;
import dev.segmentledger.core.spi.PlaylistPart;
import dev.segmentledger.testkit.PostgresExtension;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.Statement;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.jdbi.v3.core.Jdbi;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * The sealed playlist parts of the Jdbi store beyond the contract: a part never lists a row that
 * is open when it is stored, whichever of a seal and a re-open of a row it covers comes first (each
 * holds the media playlist's record while the other waits for it), and the purge deletes the parts
 * of a broadcast once it emptied its rows.
 */
class PlaylistPartsTest {
  @RegisterExtension
  static final PostgresExtension PG = PostgresExtension.create();

  private static final Instant T0 = Instant.parse("2026-01-01T00:00:00Z");
  private static final Duration WAIT = Duration.ofSeconds(30);

  private JdbiStateStore store;
  private ExecutorService thread;

  @BeforeEach
  void emptyLedger() {
    Jdbi jdbi = Jdbi.create(PG.dataSource());
    store = JdbiStateStore.create(jdbi).migrate();
    jdbi.useHandle(handle -> handle.execute("TRUNCATE segment_ledger_item, segment_ledger_broadcast,"
        + " segment_ledger_playlist, segment_ledger_playlist_part RESTART IDENTITY"));
    thread = Executors.newSingleThreadExecutor();
  }

  @AfterEach
  void stopThread() {
    thread.shutdownNow();
  }

  private LedgerItem confirmed(ItemId id) {
    LedgerItem row = store.register(NewItem.pending(id, "/rec/" + id.objectKey(), 100, T0)).item();
    assertTrue(store.confirm(new Confirmation(row.rowId(), row.id(), ItemState.PENDING, 100, "c", T0)));
    return row;
  }

  private static PlaylistPart part(String broadcast, long first, long next) {
    return new PlaylistPart(broadcast, "720p", first, next, (int) (next - first), 0, 2, 0, "#EXTINF:2.000,\nx\n");
  }

  @Test
  void aSealOverARowOpenNowOrOverAnotherPartStoresNothing() {
    LedgerItem[] rows = new LedgerItem[8];
    for (int sequence = 0; sequence < rows.length; sequence++) {
      rows[sequence] = confirmed(ItemId.playback("b1", "720p", sequence));
    }
    assertTrue(store.reopen(rows[2].rowId(), ItemState.CONFIRMED, Reason.REOPENED, "fixed", T0));

    assertFalse(store.playlists().sealPart(part("b1", 0, 4)), "row 2 is open: the part would list it as it was");
    assertTrue(store.playlists().sealPart(part("b1", 0, 2)));
    assertFalse(store.playlists().sealPart(part("b1", 6, 8)), "after a hole: the parts stay a chain");
    assertFalse(store.playlists().sealPart(part("b1", 1, 3)), "overlaps the part from 0");
    assertEquals(List.of(part("b1", 0, 2)), store.playlists().parts("b1", "720p"));
  }

  /**
   * A seal holds the playlist's record (here a session that locked it and stored a part covering row
   * 0, as a seal does after its check) while a re-open of row 0 waits for it: once the seal commits,
   * the re-open deletes the part it could not see when it began.
   */
  @Test
  void aReopenThatWaitedForASealDeletesThePartTheSealStored() throws Exception {
    LedgerItem row = confirmed(ItemId.playback("b1", "720p", 0));
    confirmed(ItemId.playback("b1", "720p", 1));
    try (Connection seal = PG.dataSource().getConnection(); Statement statement = seal.createStatement()) {
      seal.setAutoCommit(false);
      statement.execute("SELECT 1 FROM segment_ledger_playlist WHERE broadcast_id = 'b1' AND rendition = '720p'"
          + " FOR UPDATE");
      statement.execute("INSERT INTO segment_ledger_playlist_part (broadcast_id, rendition, first_sequence,"
          + " next_sequence, entries, discontinuities, target_seconds, peak_bandwidth, text, chain_first_sequence,"
          + " total_entries, total_discontinuities, total_target_seconds, total_peak_bandwidth)"
          + " VALUES ('b1', '720p', 0, 2, 2, 0, 2, 0, 'x', 0, 2, 0, 2, 0)");
      Future<Boolean> reopen = thread.submit(() ->
          store.reopen(row.rowId(), ItemState.CONFIRMED, Reason.REOPENED, "fixed", T0));
      ServerSessions.await(PG.dataSource(), "wait_event_type = 'Lock' AND query LIKE 'WITH changed AS (UPDATE%'",
          WAIT, "the re-open waiting for the playlist's record");
      seal.commit();

      assertTrue(reopen.get(WAIT.toSeconds(), TimeUnit.SECONDS));
    }
    assertEquals(List.of(), store.playlists().parts("b1", "720p"), "the part listed row 0 as it was");
  }

  /**
   * A re-open holds the playlist's record (here a session that re-opened row 0 and incremented its
   * playlist, as a re-open does) while a seal of a part covering row 0 waits for it: once the
   * re-open commits, the seal finds row 0 open and stores nothing.
   */
  @Test
  void aSealThatWaitedForAReopenFindsTheRowOpenAndStoresNothing() throws Exception {
    LedgerItem row = confirmed(ItemId.playback("b1", "720p", 0));
    confirmed(ItemId.playback("b1", "720p", 1));
    try (Connection reopen = PG.dataSource().getConnection();
        PreparedStatement reopenRow = reopen.prepareStatement(
            "UPDATE segment_ledger_item SET state = 'PENDING', reason = 'REOPENED', confirmed_at = NULL,"
                + " checksum = NULL WHERE id = ?");
        Statement statement = reopen.createStatement()) {
      reopen.setAutoCommit(false);
      reopenRow.setLong(1, row.rowId());
      assertEquals(1, reopenRow.executeUpdate());
      statement.execute("UPDATE segment_ledger_playlist SET wanted = wanted + 1"
          + " WHERE broadcast_id = 'b1' AND rendition = '720p'");
      Future<Boolean> seal = thread.submit(() -> store.playlists().sealPart(part("b1", 0, 2)));
      ServerSessions.await(PG.dataSource(), "wait_event_type = 'Lock' AND query LIKE 'SELECT 1 FROM segment_ledger_playlist%'",
          WAIT, "the seal waiting for the playlist's record");
      reopen.commit();

      assertFalse(seal.get(WAIT.toSeconds(), TimeUnit.SECONDS), "row 0 is open");
    }
    assertEquals(List.of(), store.playlists().parts("b1", "720p"));
  }

  @Test
  void aPurgeDeletesThePartsOfABroadcastOnceItEmptiedItsRows() {
    for (String broadcast : List.of("b1", "b2")) {
      confirmed(ItemId.playback(broadcast, "720p", 0));
      confirmed(ItemId.playback(broadcast, "720p", 1));
      assertTrue(store.playlists().sealPart(part(broadcast, 0, 2)));
    }
    assertTrue(store.endBroadcast("b1", T0));

    assertEquals(1, store.purge(T0.plusSeconds(1), 1).rows());
    assertEquals(List.of(part("b1", 0, 2)), store.playlists().parts("b1", "720p"), "b1 still has a row");
    assertEquals(List.of("b1"), store.purge(T0.plusSeconds(1), 10).broadcastsEmptied());
    assertEquals(List.of(), store.playlists().parts("b1", "720p"));
    assertEquals(List.of(part("b2", 0, 2)), store.playlists().parts("b2", "720p"), "b2 is live");
  }
}
