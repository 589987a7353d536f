package dev.segmentledger.jdbi;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.segmentledger.core.ItemId;
import dev.segmentledger.core.ItemState;
import dev.segmentledger.core.LedgerItem;
import dev.segmentledger.core.spi.Confirmation;
import dev.segmentledger.core.spi.NewItem;
import dev.segmentledger.core.spi.PlaylistRecord;
import dev.segmentledger.testkit.PostgresExtension;
import java.sql.Connection;
import java.sql.Statement;
import java.time.Duration;
import java.time.Instant;
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
 * The playlist records of a broadcast are locked in one order by every statement that locks more
 * than one of them: its media playlists by rendition, then its multivariant one. A rise of a peak
 * bandwidth holds the media playlist and then increments the multivariant one; the end of the
 * broadcast, which increments every playlist, must not hold the multivariant one meanwhile and wait
 * for the media one, or PostgreSQL ends one of them as a deadlock.
 */
class PlaylistLockOrderTest {
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

  /**
   * A session holds the media playlist as a rise of its peak does between its two steps; the end
   * of the broadcast waits for it without holding the multivariant playlist, which the session then
   * increments. (The multivariant record is created first, so that a scan in the table's order meets
   * it first.)
   */
  @Test
  void theEndOfABroadcastWaitingForARiseOfAPeakDoesNotHoldTheMultivariantPlaylist() throws Exception {
    store.playlists().requestPublication("b1", null, T0);
    LedgerItem init = store.register(NewItem.pending(ItemId.init("b1", "720p"), "/rec/init.mp4", 100, T0)).item();
    assertTrue(store.confirm(new Confirmation(init.rowId(), init.id(), ItemState.PENDING, 100, "c", T0)));
    try (Connection rise = PG.dataSource().getConnection(); Statement statement = rise.createStatement()) {
      rise.setAutoCommit(false);
      statement.execute("UPDATE segment_ledger_playlist SET peak_bandwidth = 2000000"
          + " WHERE broadcast_id = 'b1' AND rendition = '720p'");
      Future<Boolean> end = thread.submit(() -> store.endBroadcast("b1", T0));
      ServerSessions.await(PG.dataSource(), "wait_event_type = 'Lock' AND query LIKE '%wanted = wanted + 1%'",
          WAIT, "the end of the broadcast waiting for the media playlist");

      statement.execute("UPDATE segment_ledger_playlist SET wanted = wanted + 1"
          + " WHERE broadcast_id = 'b1' AND rendition = ''");
      rise.commit();

      assertTrue(end.get(WAIT.toSeconds(), TimeUnit.SECONDS));
    }
    PlaylistRecord master = store.playlists().find("b1").stream().filter(PlaylistRecord::multivariant)
        .findFirst().orElseThrow();
    assertEquals(4, master.wanted(), "requested, the INIT, the rise, the end");
  }
}
