package dev.segmentledger.jdbi;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;
import dev.segmentledger.core.Axis;
import dev.segmentledger.core.ItemId;
import dev.segmentledger.core.ItemState;
import dev.segmentledger.core.LedgerItem;
import dev.segmentledger.core.spi.Confirmation;
import dev.segmentledger.core.spi.NewItem;
import dev.segmentledger.core.spi.RegisterResult;
import dev.segmentledger.testkit.PostgresExtension;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import org.jdbi.v3.core.Jdbi;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * A fresh ledger's batch statements are prepared while its table is empty, and PostgreSQL caches
 * a generic plan for them after a few executions. They must still find their rows through an
 * index once the table has grown, before any ANALYZE: never by reading the whole table for every
 * batch. Each round runs all four statements that join the table to arrays: the lock of the INITs
 * that waiting playback depends on, the multi-row insert, the read of identities that already
 * existed (a batch registered twice), and the batch confirm with the release of the playback its
 * INIT was holding back. Counted from the table's scan statistics, on one connection so that the
 * statements' plan cache is the one measured, with autovacuum off for the table so that no
 * ANALYZE replaces the cached plans.
 */
class BatchPlanTest {
  @RegisterExtension
  static final PostgresExtension PG = PostgresExtension.create();

  private static final Instant T0 = Instant.parse("2026-01-01T00:00:00Z");
  private static final int GROWN_ROWS = 50_000;
  private static final int WARM_UP_ROUNDS = 30;
  /** Per round: an INIT, 3 waiting PLAYBACK rows and 2 ORIGINAL rows. */
  private static final int ROWS_PER_ROUND = 6;
  /** Per round: the INIT and the 2 originals confirmed, the 3 playback rows released. */
  private static final int UPDATES_PER_ROUND = 6;

  @Test
  void batchStatementsPreparedOnAnEmptyTableDoNotScanItOnceItHasGrown() {
    HikariConfig pool = new HikariConfig();
    pool.setDataSource(PG.dataSource());
    pool.setMaximumPoolSize(1);
    try (HikariDataSource dataSource = new HikariDataSource(pool)) {
      Jdbi jdbi = Jdbi.create(dataSource);
      JdbiStateStore store = JdbiStateStore.create(jdbi).migrate();
      jdbi.useHandle(handle -> handle.execute("ALTER TABLE segment_ledger_item SET (autovacuum_enabled = off)"));
      for (int i = 0; i < WARM_UP_ROUNDS; i++) {
        round(store, "warm-" + i);
      }
      jdbi.useHandle(handle -> handle.createUpdate("INSERT INTO segment_ledger_item (broadcast_id, axis, rendition,"
              + " sequence, source_path, size_bytes, state, registered_at, next_attempt_at)"
              + " SELECT 'grown', 'ORIGINAL', '720p', g, '/rec/' || g, 1000, 'PENDING', :t0, :t0"
              + " FROM generate_series(1, :rows) AS g")
          .bind("t0", T0)
          .bind("rows", GROWN_ROWS)
          .execute());
      long before = rowsReadBySequentialScans(jdbi, (long) ROWS_PER_ROUND * WARM_UP_ROUNDS + GROWN_ROWS,
          (long) UPDATES_PER_ROUND * WARM_UP_ROUNDS);

      round(store, "measured");
      long read = rowsReadBySequentialScans(jdbi, (long) ROWS_PER_ROUND * (WARM_UP_ROUNDS + 1) + GROWN_ROWS,
          (long) UPDATES_PER_ROUND * (WARM_UP_ROUNDS + 1)) - before;

      assertTrue(read < GROWN_ROWS, "the batch statements read " + read + " rows by sequential scans of a "
          + GROWN_ROWS + "-row table");
    }
  }

  /** Registers a broadcast's batch twice, confirms its INIT and originals; checks the outcome. */
  private static void round(JdbiStateStore store, String broadcastId) {
    List<NewItem> batch = new ArrayList<>();
    batch.add(NewItem.pending(ItemId.init(broadcastId, "720p"), "/rec/init.mp4", 1000, T0));
    for (int s = 0; s < 3; s++) {
      batch.add(new NewItem(ItemId.playback(broadcastId, "720p", s), "/rec/p" + s + ".m4s", null, 1000,
          ItemState.WAITING, null, null, T0));
    }
    for (int s = 0; s < 2; s++) {
      batch.add(NewItem.pending(ItemId.original(broadcastId, "720p", s), "/rec/" + s + ".ts", 1000, T0));
    }
    List<RegisterResult> created = store.registerAll(batch);
    List<RegisterResult> again = store.registerAll(batch);
    assertEquals(created.stream().map(r -> r.item().rowId()).toList(), again.stream().map(r -> r.item().rowId()).toList());

    List<Confirmation> confirmations = created.stream()
        .map(RegisterResult::item)
        .filter(item -> item.id().axis() != Axis.PLAYBACK)
        .map(item -> new Confirmation(item.rowId(), ItemState.PENDING, item.sizeBytes(), "sha256:00", T0))
        .toList();
    assertArrayEquals(new boolean[] {true, true, true}, store.confirmAll(confirmations));
    for (int s = 0; s < 3; s++) {
      LedgerItem playback = store.find(ItemId.playback(broadcastId, "720p", s)).orElseThrow();
      assertEquals(ItemState.PENDING, playback.state(), "released by the INIT's confirm");
    }
  }

  /**
   * Rows read by sequential scans of the ledger table so far, as the server counts them, once the
   * counts include at least {@code inserted} inserted and {@code updated} updated rows: the
   * statistics of the single pooled connection arrive asynchronously. On PostgreSQL 15 and newer,
   * {@code pg_stat_force_next_flush} has them reported at once.
   */
  private static long rowsReadBySequentialScans(Jdbi jdbi, long inserted, long updated) {
    return jdbi.withHandle(handle -> {
      boolean canForce = handle.select("SHOW server_version_num").mapTo(Integer.class).one() >= 150_000;
      Instant deadline = Instant.now().plus(Duration.ofSeconds(30));
      while (true) {
        if (canForce) {
          handle.select("SELECT pg_stat_force_next_flush()").mapTo(String.class).one();
        }
        handle.execute("SELECT pg_stat_clear_snapshot()");
        long[] counts = handle.select("SELECT n_tup_ins, n_tup_upd, coalesce(seq_tup_read, 0) FROM pg_stat_user_tables"
                + " WHERE relid = 'segment_ledger_item'::regclass")
            .map((rs, ctx) -> new long[] {rs.getLong(1), rs.getLong(2), rs.getLong(3)})
            .one();
        if (counts[0] >= inserted && counts[1] >= updated) {
          return counts[2];
        }
        if (Instant.now().isAfter(deadline)) {
          throw new AssertionError("the table statistics did not arrive: " + counts[0] + " inserted, " + counts[1]
              + " updated, expected " + inserted + " and " + updated);
        }
        Thread.onSpinWait();
      }
    });
  }
}
