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
import dev.segmentledger.core.spi.LeaseRenewal;
import dev.segmentledger.core.spi.NewItem;
import dev.segmentledger.core.spi.RegisterResult;
import dev.segmentledger.testkit.PostgresExtension;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import org.jdbi.v3.core.Jdbi;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * A fresh ledger's batch statements are prepared while its table is empty, and PostgreSQL caches
 * a generic plan for them after a few executions. They must still find their rows through an
 * index once the table has grown, before any ANALYZE: never by reading the whole table for every
 * batch. Each round runs all five statements that join the table to arrays: the lock of the INITs
 * that waiting playback depends on, the multi-row insert, the read of identities that already
 * existed (a batch registered twice), the batch confirm with the release of the playback its INIT
 * was holding back, and the batch lease renewal. The measured round's batches are large (a confirm
 * of {@value #MEASURED_ORIGINALS} rows): joined to the arrays on the row id alone, which is not a
 * key by itself, such a batch was planned as a hash join over the whole unanalyzed table even with
 * a plan made for its arrays. Counted from the table's scan statistics, on one connection so that
 * the statements' plan cache is the one measured, with autovacuum off for the table so that no
 * ANALYZE replaces the cached plans.
 */
class BatchPlanTest {
  @RegisterExtension
  static final PostgresExtension PG = PostgresExtension.create();

  private static final Instant T0 = Instant.parse("2026-01-01T00:00:00Z");
  private static final int GROWN_ROWS = 200_000;
  private static final int WARM_UP_ROUNDS = 30;
  /** Originals of a warm-up round, and of the measured round. */
  private static final int WARM_UP_ORIGINALS = 2;
  private static final int MEASURED_ORIGINALS = 100;

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
        round(store, "warm-" + i, WARM_UP_ORIGINALS);
      }
      jdbi.useHandle(handle -> handle.createUpdate("INSERT INTO segment_ledger_item (broadcast_id, axis, rendition,"
              + " sequence, source_path, size_bytes, state, registered_at, next_attempt_at)"
              + " SELECT 'grown', 'ORIGINAL', '720p', g, '/rec/' || g, 1000, 'PENDING', :t0, :t0"
              + " FROM generate_series(1, :rows) AS g")
          .bind("t0", T0)
          .bind("rows", GROWN_ROWS)
          .execute());
      long before = rowsReadBySequentialScans(jdbi, (long) rows(WARM_UP_ORIGINALS) * WARM_UP_ROUNDS + GROWN_ROWS,
          (long) updates(WARM_UP_ORIGINALS) * WARM_UP_ROUNDS);

      round(store, "measured", MEASURED_ORIGINALS);
      long read = rowsReadBySequentialScans(jdbi,
          (long) rows(WARM_UP_ORIGINALS) * WARM_UP_ROUNDS + rows(MEASURED_ORIGINALS) + GROWN_ROWS,
          (long) updates(WARM_UP_ORIGINALS) * WARM_UP_ROUNDS + updates(MEASURED_ORIGINALS)) - before;

      assertTrue(read < GROWN_ROWS, "the batch statements read " + read + " rows by sequential scans of a "
          + GROWN_ROWS + "-row table");
    }
  }

  /** Rows a round registers: an INIT, 3 waiting PLAYBACK rows and the originals. */
  private static int rows(int originals) {
    return 4 + originals;
  }

  /**
   * Rows a round updates: the originals' lease renewals, then the INIT and the originals confirmed,
   * the 3 playback rows released.
   */
  private static int updates(int originals) {
    return originals + 1 + originals + 3;
  }

  /**
   * Registers a broadcast's batch twice, renews the originals' leases, confirms its INIT and
   * originals; checks the outcome.
   */
  private static void round(JdbiStateStore store, String broadcastId, int originals) {
    List<NewItem> batch = new ArrayList<>();
    batch.add(NewItem.pending(ItemId.init(broadcastId, "720p"), "/rec/init.mp4", 1000, T0));
    for (int s = 0; s < 3; s++) {
      batch.add(new NewItem(ItemId.playback(broadcastId, "720p", s), "/rec/p" + s + ".m4s", null, 1000, ItemState.WAITING, null, null, T0, null, null, null, null, null, null));
    }
    Instant leased = T0.plusSeconds(10);
    for (int s = 0; s < originals; s++) {
      batch.add(NewItem.pending(ItemId.original(broadcastId, "720p", s), "/rec/" + s + ".ts", 1000, T0)
          .leasedTo("node", leased));
    }
    List<RegisterResult> created = store.registerAll(batch);
    List<RegisterResult> again = store.registerAll(batch);
    assertEquals(created.stream().map(r -> r.item().rowId()).toList(), again.stream().map(r -> r.item().rowId()).toList());

    List<LeaseRenewal> renewals = created.stream()
        .map(RegisterResult::item)
        .filter(item -> item.id().axis() == Axis.ORIGINAL)
        .map(item -> LeaseRenewal.ofAttempt(item.rowId(), broadcastId, leased, leased.plusSeconds(10), 0, false))
        .toList();
    boolean[] allRenewed = new boolean[originals];
    Arrays.fill(allRenewed, true);
    assertArrayEquals(allRenewed, store.renewAll("node", renewals));

    List<Confirmation> confirmations = created.stream()
        .map(RegisterResult::item)
        .filter(item -> item.id().axis() != Axis.PLAYBACK)
        .map(item -> new Confirmation(item.rowId(), item.id(),
            ItemState.PENDING, item.sizeBytes(), "sha256:00", T0))
        .toList();
    boolean[] allConfirmed = new boolean[originals + 1];
    Arrays.fill(allConfirmed, true);
    assertArrayEquals(allConfirmed, store.confirmAll(confirmations));
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
