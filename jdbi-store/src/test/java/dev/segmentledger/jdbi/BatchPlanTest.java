package dev.segmentledger.jdbi;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;
import dev.segmentledger.core.ItemId;
import dev.segmentledger.core.ItemState;
import dev.segmentledger.core.spi.Confirmation;
import dev.segmentledger.core.spi.NewItem;
import dev.segmentledger.testkit.PostgresExtension;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.stream.LongStream;
import org.jdbi.v3.core.Handle;
import org.jdbi.v3.core.Jdbi;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * A fresh ledger's batch statements are prepared while its table is empty, and PostgreSQL caches
 * a generic plan for them after a few executions. The batch confirm and the batch registration
 * must still find their rows through an index once the table has grown, before any ANALYZE: never
 * by reading the whole table for every batch. Counted from the table's scan statistics, on one
 * connection so that the statements' plan cache is the one measured.
 */
class BatchPlanTest {
  @RegisterExtension
  static final PostgresExtension PG = PostgresExtension.create();

  private static final Instant T0 = Instant.parse("2026-01-01T00:00:00Z");
  private static final int GROWN_ROWS = 50_000;
  private static final int WARM_UP_BATCHES = 30;

  @Test
  void batchStatementsPreparedOnAnEmptyTableDoNotScanItOnceItHasGrown() {
    HikariConfig pool = new HikariConfig();
    pool.setDataSource(PG.dataSource());
    pool.setMaximumPoolSize(1);
    try (HikariDataSource dataSource = new HikariDataSource(pool)) {
      Jdbi jdbi = Jdbi.create(dataSource);
      JdbiStateStore store = JdbiStateStore.create(jdbi).migrate();
      for (int i = 0; i < WARM_UP_BATCHES; i++) {
        long missing = 1_000_000_000L + 10L * i;
        assertArrayEquals(new boolean[] {false, false}, store.confirmAll(List.of(
            confirmation(missing), confirmation(missing + 1))));
        store.registerAll(batch("warm-" + i, 4));
      }
      jdbi.useHandle(handle -> handle.createUpdate("INSERT INTO segment_ledger_item (broadcast_id, axis, rendition,"
              + " sequence, source_path, size_bytes, state, registered_at, next_attempt_at)"
              + " SELECT 'grown', 'ORIGINAL', '720p', g, '/rec/' || g, 1000, 'PENDING', :t0, :t0"
              + " FROM generate_series(1, :rows) AS g")
          .bind("t0", T0)
          .bind("rows", GROWN_ROWS)
          .execute());
      long before = rowsReadBySequentialScans(jdbi);

      List<NewItem> rows = batch("measured", 4);
      List<Confirmation> confirmations = new ArrayList<>();
      store.registerAll(rows).forEach(r -> confirmations.add(new Confirmation(r.item().rowId(), ItemState.PENDING,
          r.item().sizeBytes(), "sha256:00", T0)));
      boolean[] all = new boolean[confirmations.size()];
      Arrays.fill(all, true);
      assertArrayEquals(all, store.confirmAll(confirmations));
      long read = rowsReadBySequentialScans(jdbi) - before;

      assertTrue(read < GROWN_ROWS, "the batch statements read " + read + " rows by sequential scans of a "
          + GROWN_ROWS + "-row table");
    }
  }

  private static Confirmation confirmation(long rowId) {
    return new Confirmation(rowId, ItemState.PENDING, 1000, "sha256:00", T0);
  }

  private static List<NewItem> batch(String broadcastId, int size) {
    return LongStream.range(0, size)
        .mapToObj(i -> NewItem.pending(ItemId.original(broadcastId, "720p", i), "/rec/" + i, 1000, T0))
        .toList();
  }

  /**
   * Rows read by sequential scans of the ledger table so far, as the server counts them. The
   * single pooled connection's pending statistics are flushed first: the previous statements ended
   * on it, and {@code pg_stat_force_next_flush} (PostgreSQL 15+) makes it report them at once.
   */
  private static long rowsReadBySequentialScans(Jdbi jdbi) {
    return jdbi.withHandle(handle -> {
      handle.select("SELECT pg_stat_force_next_flush()").mapTo(String.class).one();
      handle.execute("SELECT 1"); // ends a statement, so the forced flush happens before the read below
      return seqTupRead(handle);
    });
  }

  private static long seqTupRead(Handle handle) {
    handle.execute("SELECT pg_stat_clear_snapshot()");
    return handle.select("SELECT coalesce(seq_tup_read, 0) FROM pg_stat_user_tables"
            + " WHERE relid = 'segment_ledger_item'::regclass")
        .mapTo(Long.class)
        .one();
  }
}
