package dev.segmentledger.it;

import static org.junit.jupiter.api.Assertions.assertTrue;

import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;
import dev.segmentledger.core.ItemId;
import dev.segmentledger.core.Ledger;
import dev.segmentledger.jdbi.JdbiStateStore;
import dev.segmentledger.rig.LedgerTableReads;
import dev.segmentledger.rig.PlaylistPutLog;
import dev.segmentledger.testkit.FakeObjectSink;
import dev.segmentledger.testkit.FakeRepackager;
import dev.segmentledger.testkit.LedgerEvents;
import dev.segmentledger.testkit.PostgresExtension;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import org.jdbi.v3.core.Jdbi;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

/**
 * A long live broadcast must not make each new segment cost more than a short one did. One
 * broadcast of two renditions, on real PostgreSQL (a pool of 4, the production wiring with
 * {@link Wiring}'s test timings), the testkit's {@link FakeRepackager} (2 s segments) and an
 * in-memory bucket behind a {@link PlaylistPutLog}: the segments are registered as ORIGINAL one
 * sequence at a time (both renditions), and the next one only once a playlist of each rendition
 * lists it, so that every segment gets publications of its own, as at real time where a segment
 * lasts far longer than its publication.
 *
 * <p>Per new segment (one sequence, both renditions), in an early window (segments 50 to 100) and
 * a late one (the last 50): rows read from the ledger's tables by PostgreSQL's own statistics
 * ({@code seq_tup_read + idx_tup_fetch} of {@code pg_stat_user_tables}, settled by
 * {@link LedgerTableReads}: the pool's backends are closed and waited for, since a backend
 * publishes its counters late but always at exit), bytes and count of playlist PUTs; and the
 * publication lag (confirm of the PLAYBACK row to the first playlist PUT listing it) p50/p99.
 * Asserted: late rows read ÷ early rows read ≤ 2. A publisher that reads and rewrites the whole
 * broadcast per round fails this (about 6 at 600 segments).
 *
 * <p>{@code -Dsegmentledger.longbroadcast.segments=N} (default 600, at least 200) sets the length.
 */
class LongBroadcastCostTest {
  @RegisterExtension static final PostgresExtension PG = PostgresExtension.create();
  private static final String BROADCAST = "long";
  private static final List<String> RENDITIONS = List.of("720p", "360p");
  private static final int SEGMENTS = Integer.getInteger("segmentledger.longbroadcast.segments", 600);
  private static final int WINDOW = 50;
  private static final int EARLY_START = 50;
  private static final double MAX_RATIO = 2.0;

  @TempDir Path temp;

  @Test
  @Timeout(value = 20, unit = java.util.concurrent.TimeUnit.MINUTES)
  void aNewSegmentOfALongBroadcastCostsNoMoreRowsThanOfAShortOne() throws Exception {
    assertTrue(SEGMENTS >= EARLY_START + 3 * WINDOW, "at least " + (EARLY_START + 3 * WINDOW) + " segments");
    long started = System.nanoTime();
    Path root = Files.createDirectories(temp.resolve("root")).toRealPath();
    String applicationName = "long-broadcast-" + PG.schema();
    HikariConfig config = new HikariConfig();
    config.setJdbcUrl(PG.jdbcUrl());
    config.setUsername(PG.user());
    config.setPassword(PG.password());
    config.setMaximumPoolSize(4);
    config.addDataSourceProperty("ApplicationName", applicationName);
    try (HikariDataSource pool = new HikariDataSource(config);
        LedgerTableReads reads = new LedgerTableReads(PG.dataSource().getConnection(), PG.schema(), applicationName,
            () -> pool.getHikariPoolMXBean().softEvictConnections(), Duration.ofSeconds(30))) {
      JdbiStateStore store = JdbiStateStore.create(Jdbi.create(pool)).migrate();
      PlaylistPutLog bucket = PlaylistPutLog.wrapping(new FakeObjectSink());
      List<Window> windows = new ArrayList<>();
      long[] lags = new long[SEGMENTS * RENDITIONS.size()];
      try (Ledger ledger = Wiring.ledger(store, bucket, root, new FakeRepackager(Duration.ofSeconds(2)),
          new LedgerEvents()).listener(bucket).build()) {
        ledger.start();
        Mark windowStart = null;
        for (int sequence = 0; sequence < SEGMENTS; sequence++) {
          if (sequence == EARLY_START || sequence == SEGMENTS - WINDOW) {
            windowStart = Mark.take(sequence, reads, bucket);
          }
          for (String rendition : RENDITIONS) {
            ItemId id = ItemId.original(BROADCAST, rendition, sequence);
            ledger.register(id, Wiring.record(root, id));
          }
          for (String rendition : RENDITIONS) {
            bucket.awaitListed(BROADCAST, rendition, sequence, Duration.ofSeconds(60));
          }
          if (sequence + 1 == EARLY_START + WINDOW || sequence + 1 == SEGMENTS) {
            windows.add(new Window(windowStart, Mark.take(sequence + 1, reads, bucket)));
          }
        }
      }
      for (int sequence = 0; sequence < SEGMENTS; sequence++) {
        for (int r = 0; r < RENDITIONS.size(); r++) {
          lags[sequence * RENDITIONS.size() + r] = bucket.lagNanos(BROADCAST, RENDITIONS.get(r), sequence).orElse(-1L);
        }
      }
      Window early = windows.get(0);
      Window late = windows.get(1);
      double ratio = late.rowsPerSegment() / early.rowsPerSegment();
      System.out.printf(Locale.ROOT, "long broadcast (%s): %d segments x %d renditions in %.1f s; %s; %s;"
              + " rows read late/early %.2f, playlist bytes late/early %.2f; publication lag p50 %.1f ms,"
              + " p99 %.1f ms (all segments); playlist PUTs by file name %s, first listings by file name %s%n",
          PG.source(), SEGMENTS, RENDITIONS.size(), (System.nanoTime() - started) / 1e9, early, late, ratio,
          late.bytesPerSegment() / early.bytesPerSegment(), percentileMillis(lags, 0.50),
          percentileMillis(lags, 0.99), describe(bucket), bucket.firstListingsByFileName());
      assertTrue(ratio <= MAX_RATIO, String.format(Locale.ROOT, "rows read per new segment late ÷ early = %.2f"
          + " (at most %.1f): %s; %s", ratio, MAX_RATIO, early, late));
    }
  }

  private static String describe(PlaylistPutLog bucket) {
    StringBuilder s = new StringBuilder("{");
    bucket.byFileName().forEach((name, c) -> s.append(name).append('=').append(c[1]).append(" PUTs/")
        .append(c[0]).append(" B "));
    return s.toString().strip() + "}";
  }

  private static double percentileMillis(long[] nanos, double p) {
    long[] known = Arrays.stream(nanos).filter(n -> n >= 0).sorted().toArray();
    if (known.length == 0) {
      return Double.NaN;
    }
    return known[(int) Math.min(known.length - 1, Math.ceil(p * known.length) - 1)] / 1e6;
  }

  /** The counters at the start of a segment. */
  private record Mark(int sequence, long rowsRead, long playlistBytes, long playlistPuts, long nanos) {
    static Mark take(int sequence, LedgerTableReads reads, PlaylistPutLog bucket) throws Exception {
      return new Mark(sequence, reads.settledTotal(), bucket.playlistBytes(), bucket.playlistPuts(), System.nanoTime());
    }
  }

  /** The cost of the segments from one mark to the next. */
  private record Window(Mark from, Mark to) {
    int segments() {
      return to.sequence - from.sequence;
    }

    double rowsPerSegment() {
      return (double) (to.rowsRead - from.rowsRead) / segments();
    }

    double bytesPerSegment() {
      return (double) (to.playlistBytes - from.playlistBytes) / segments();
    }

    @Override
    public String toString() {
      return String.format(Locale.ROOT, "segments %d-%d: %.0f rows read, %.0f playlist bytes in %.2f PUTs per"
              + " segment, %.1f ms per segment", from.sequence, to.sequence, rowsPerSegment(), bytesPerSegment(),
          (double) (to.playlistPuts - from.playlistPuts) / segments(), (to.nanos - from.nanos) / 1e6 / segments());
    }
  }
}
