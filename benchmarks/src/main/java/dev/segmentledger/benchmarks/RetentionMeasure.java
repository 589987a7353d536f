package dev.segmentledger.benchmarks;

import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;
import dev.segmentledger.core.ItemId;
import dev.segmentledger.core.spi.NewItem;
import dev.segmentledger.core.spi.Purged;
import dev.segmentledger.jdbi.JdbiStateStore;
import io.zonky.test.db.postgres.embedded.EmbeddedPostgres;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import org.jdbi.v3.core.Handle;
import org.jdbi.v3.core.Jdbi;

/**
 * The retention benchmark, run on its own, not by {@link BenchmarkSuite}: a ledger of
 * {@code rows} rows over 30 simulated days (48 broadcasts of 30 minutes a day, bulk-loaded with
 * {@code generate_series}; the clock is the data's: "now" is the end of day 30), retention 7 days.
 * It measures the table before and after {@link JdbiStateStore#purge} (rows, table and index
 * sizes, after a plain VACUUM and after VACUUM FULL), the registration latency (p50, p99) without
 * and during the purge, and checks with counts independent of the purge that no unconfirmed row and
 * no row of a live, incomplete or recent broadcast was deleted. As the alternative, the same rows are
 * copied into a table partitioned by day, and dropping the old partitions is timed.
 *
 * <p>The server is an embedded PostgreSQL 16 (io.zonky.test) started with {@code fsync=on} and
 * {@code synchronous_commit=on}, both read back from the server into the results. Arguments:
 * {@code rows} (default 2,000,000), then the results directory (default {@code results}). Writes
 * {@code retention.json} and {@code retention.md}.
 */
public final class RetentionMeasure {
  private static final Instant T0 = Instant.parse("2026-01-01T00:00:00Z");
  private static final int DAYS = 30;
  private static final int RETENTION_DAYS = 7;
  private static final int BROADCASTS_PER_DAY = 48;
  private static final Duration BROADCAST_LENGTH = Duration.ofMinutes(30);
  private static final int PURGE_BATCH = 1_000;
  /** As the engine's Retainer: a pause between two purge calls. */
  private static final long PURGE_PAUSE_MS = 50;
  private static final int REGISTRATIONS_PER_S = 20;
  /** Each of the two windows of registrations without a purge (before it and after it). */
  private static final Duration BASELINE = Duration.ofSeconds(45);
  private static final Instant NOW = T0.plus(Duration.ofDays(DAYS));
  private static final Instant CUTOFF = NOW.minus(Duration.ofDays(RETENTION_DAYS));

  private RetentionMeasure() {}

  public static void main(String[] args) throws Exception {
    long rows = args.length > 0 ? Long.parseLong(args[0].replace("_", "")) : 2_000_000L;
    Path out = Path.of(args.length > 1 ? args[1] : "results");
    // The partitioned copy doubles the run's writes; at full scale it may be left out (it was measured at 2 M).
    boolean partitionCopy = !(args.length > 2 && args[2].equals("--no-partition-copy"));
    List<BenchResult> results = new ArrayList<>();
    try (EmbeddedPostgres pg = EmbeddedPostgres.builder()
        .setServerConfig("fsync", "on")
        .setServerConfig("synchronous_commit", "on")
        .setServerConfig("full_page_writes", "on")
        .setServerConfig("max_wal_size", "4GB")
        .setServerConfig("shared_buffers", "256MB")
        .start()) {
      HikariConfig config = new HikariConfig();
      config.setJdbcUrl(pg.getJdbcUrl("postgres", "postgres"));
      config.setUsername("postgres");
      config.setMaximumPoolSize(4);
      try (HikariDataSource ds = new HikariDataSource(config)) {
        Jdbi jdbi = Jdbi.create(ds);
        JdbiStateStore store = JdbiStateStore.create(jdbi).migrate();
        run(jdbi, store, rows, partitionCopy, results);
      }
    }
    Files.createDirectories(out);
    ResultsWriter.write(results, out.resolve("retention.json"), out.resolve("retention.md"),
        "# Retention benchmark (RetentionMeasure)\n\n" + rows + " rows over " + DAYS + " simulated days, retention "
            + RETENTION_DAYS + " days, batched deletes of " + PURGE_BATCH + " rows per purge call, " + PURGE_PAUSE_MS
            + " ms apart. See"
            + " docs/running-for-months.md (\"What it costs\") for the command and the reading.");
    System.out.println(ResultsWriter.markdown(results, "retention"));
  }

  private static void run(Jdbi jdbi, JdbiStateStore store, long rows, boolean partitionCopy,
      List<BenchResult> results) throws Exception {
    Map<String, Object> c = new LinkedHashMap<>();
    c.put("rows", rows);
    c.put("days", DAYS);
    c.put("retention_days", RETENTION_DAYS);
    c.put("broadcasts", DAYS * BROADCASTS_PER_DAY);
    c.put("purge_batch", PURGE_BATCH);
    c.put("purge_pause_ms", PURGE_PAUSE_MS);
    c.put("load_average_at_start", loadAverage());
    c.put("registrations_per_s", REGISTRATIONS_PER_S);
    jdbi.useHandle(h -> {
      c.put("postgres", h.createQuery("SHOW server_version").mapTo(String.class).one());
      c.put("synchronous_commit", h.createQuery("SHOW synchronous_commit").mapTo(String.class).one());
      c.put("fsync", h.createQuery("SHOW fsync").mapTo(String.class).one());
    });
    c.put("postgres_source", "embedded (io.zonky.test), fsync=on, synchronous_commit=on (read back above)");
    c.put("cores", Runtime.getRuntime().availableProcessors());
    c.put("jdk", System.getProperty("java.vm.name") + " " + Runtime.version());

    long loadStart = System.nanoTime();
    load(jdbi, rows);
    c.put("load_s", secondsSince(loadStart));

    c.put("partition_copy", partitionCopy ? "measured" : "left out (--no-partition-copy)");
    if (partitionCopy) {
      partitionAlternative(jdbi, rows, results, c); // before the purge, on the same 30 days of rows
    }
    jdbi.useHandle(h -> h.execute("CHECKPOINT"));

    Sizes before = sizes(jdbi);
    long unconfirmedBefore = count(jdbi, "state IN ('PENDING', 'WAITING')");
    long keepExpected = count(jdbi, KEPT_BY_POLICY);
    log("loaded: " + before + ", unconfirmed " + unconfirmedBefore + ", to keep " + keepExpected);

    // Registration latency: a steady stream of single registrations into a live broadcast, without
    // and then during the purge. Latency runs from the scheduled instant (no coordinated omission).
    Registrar baseline = new Registrar(store, "live-baseline");
    baseline.runFor(Duration.ofSeconds(3)); // warm-up
    baseline.reset();
    baseline.runFor(BASELINE);

    Registrar during = new Registrar(store, "live-during");
    AtomicBoolean purging = new AtomicBoolean(true);
    AtomicLong deleted = new AtomicLong();
    AtomicLong calls = new AtomicLong();
    List<Long> callMicros = java.util.Collections.synchronizedList(new ArrayList<>());
    c.put("purge_plan", explainPurge(jdbi));
    AtomicLong emptied = new AtomicLong();
    long walBefore = walBytes(jdbi);
    long purgeStart = System.nanoTime();
    Thread purger = new Thread(() -> {
      try {
        Purged purged;
        do {
          long callStart = System.nanoTime();
          purged = store.purge(CUTOFF, PURGE_BATCH);
          callMicros.add((System.nanoTime() - callStart) / 1_000);
          Thread.sleep(PURGE_PAUSE_MS); // pacing, as the engine's Retainer
          deleted.addAndGet(purged.rows());
          emptied.addAndGet(purged.broadcastsEmptied().size());
          calls.incrementAndGet();
        } while (!purged.isEmpty());
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
      } finally {
        purging.set(false);
      }
    }, "purger");
    purger.start();
    during.runWhile(purging::get);
    purger.join();
    double purgeSeconds = secondsSince(purgeStart);
    long walPurge = walBytes(jdbi) - walBefore;
    long[] withPurge = during.latencies();
    // The machine is shared: the baseline is taken before and after the purge, so that a burst of
    // other work in one window does not decide the ratio alone.
    baseline.runFor(BASELINE);
    long[] without = baseline.latencies();

    long unconfirmedAfter = count(jdbi, "state IN ('PENDING', 'WAITING') AND broadcast_id NOT LIKE 'live-%'");
    long rowsAfter = count(jdbi, "broadcast_id NOT LIKE 'live-%'");
    Sizes afterPurge = sizes(jdbi);
    jdbi.useHandle(h -> h.execute("VACUUM ANALYZE segment_ledger_item"));
    Sizes afterVacuum = sizes(jdbi);
    long fullStart = System.nanoTime();
    jdbi.useHandle(h -> h.execute("VACUUM FULL segment_ledger_item"));
    double vacuumFullSeconds = secondsSince(fullStart);
    Sizes afterFull = sizes(jdbi);

    c.put("load_average_at_end", loadAverage());
    c.put("purge_calls", calls.get());
    long[] callsSorted = callMicros.stream().mapToLong(Long::longValue).sorted().toArray();
    c.put("purge_call_p50_ms", percentile(callsSorted, 0.5));
    c.put("purge_call_max_ms", percentile(callsSorted, 1.0));
    c.put("broadcasts_emptied", emptied.get());
    c.put("registrations_without", without.length);
    c.put("registrations_during", withPurge.length);
    double p99Without = percentile(without, 0.99);
    double p99During = percentile(withPurge, 0.99);

    results.add(BenchResult.info("retention.rows_before", before.rows, "rows", "bulk-loaded, 30 days", c));
    results.add(BenchResult.info("retention.rows_after", rowsAfter, "rows",
        "expected by the policy (counted before the purge): " + keepExpected, c));
    results.add(BenchResult.atMost("retention.rows_ratio", rowsAfter / (double) before.rows, "x",
        1.5 * RETENTION_DAYS / DAYS, "rows after / before; 7/30 = " + fmt(RETENTION_DAYS / (double) DAYS)
            + " plus the incomplete broadcasts kept", c));
    results.add(BenchResult.atMost("retention.rows_lost", Math.abs(rowsAfter - keepExpected), "rows", 0,
        "|rows after - rows the policy keeps| (independent count)", c));
    results.add(BenchResult.atMost("retention.unconfirmed_lost", unconfirmedBefore - unconfirmedAfter, "rows", 0,
        "unconfirmed rows before " + unconfirmedBefore + ", after " + unconfirmedAfter + " (independent counts)", c));
    results.add(BenchResult.info("retention.size_before_mib", before.totalMiB(), "MiB",
        "table " + fmt(before.tableMiB()) + " + indexes " + fmt(before.indexMiB()), c));
    results.add(BenchResult.info("retention.size_after_purge_mib", afterPurge.totalMiB(), "MiB",
        "right after the purge, before any vacuum: the deleted rows are dead tuples", c));
    results.add(BenchResult.info("retention.size_after_vacuum_mib", afterVacuum.totalMiB(), "MiB",
        "after a plain VACUUM: files keep their size, the space is free for new rows (steady state)", c));
    results.add(BenchResult.atMost("retention.size_ratio_compacted", afterFull.totalMiB() / before.totalMiB(), "x",
        1.5 * RETENTION_DAYS / DAYS, "after VACUUM FULL (" + fmt(vacuumFullSeconds) + " s): table "
            + fmt(afterFull.tableMiB()) + " + indexes " + fmt(afterFull.indexMiB()) + " MiB; what the steady"
            + " state holds once the freed space is reused", c));
    results.add(BenchResult.info("retention.purge_s", purgeSeconds, "s",
        deleted.get() + " rows deleted in " + calls.get() + " calls", c));
    results.add(BenchResult.info("retention.purge_rows_per_s", deleted.get() / purgeSeconds, "rows/s",
        "while registrations run alongside", c));
    results.add(BenchResult.info("retention.purge_wal_mib", walPurge / 1048576.0, "MiB",
        "WAL written during the purge (all writers)", c));
    results.add(BenchResult.info("retention.register_p50_without_ms", percentile(without, 0.50), "ms",
        "single registrations at " + REGISTRATIONS_PER_S + "/s, no purge: "
            + BASELINE.toSeconds() + " s before and " + BASELINE.toSeconds() + " s after the purge", c));
    results.add(BenchResult.info("retention.register_p99_without_ms", p99Without, "ms", "no purge", c));
    results.add(BenchResult.info("retention.register_p50_during_ms", percentile(withPurge, 0.50), "ms",
        "during the purge", c));
    results.add(BenchResult.info("retention.register_p99_during_ms", p99During, "ms", "during the purge", c));
    results.add(BenchResult.atMost("retention.register_p99_ratio", p99During / p99Without, "x", 2.0,
        "p99 during the purge / p99 without", c));
  }

  /** Rows the policy keeps: of a live broadcast, of one that ended at or after the cutoff, or of an incomplete one. */
  private static final String KEPT_BY_POLICY = "broadcast_id IN (SELECT b.broadcast_id FROM segment_ledger_broadcast b"
      + " WHERE b.ended_at IS NULL OR b.ended_at >= '" + CUTOFF + "'"
      + " OR EXISTS (SELECT 1 FROM segment_ledger_item u WHERE u.broadcast_id = b.broadcast_id"
      + " AND u.state IN ('PENDING', 'WAITING')))";

  /**
   * Broadcast k (0 .. days*48-1) runs from T0 + k * 30 min for 30 minutes; its rows are spread
   * evenly over that half hour, 4 renditions (one ORIGINAL, three PLAYBACK). The last two broadcasts
   * are live with every tenth row PENDING; every hundredth broadcast has ended with one row still
   * PENDING (incomplete: kept whole); one row in a thousand is REJECTED; the rest are CONFIRMED.
   */
  private static void load(Jdbi jdbi, long rows) {
    int broadcasts = DAYS * BROADCASTS_PER_DAY;
    long perBroadcast = rows / broadcasts;
    long lengthMicros = BROADCAST_LENGTH.toNanos() / 1_000;
    jdbi.useHandle(h -> {
      h.createUpdate("INSERT INTO segment_ledger_broadcast (broadcast_id, created_at, ended_at)"
              + " SELECT 'b' || k, CAST(:t0 AS timestamptz) + k * interval '30 minutes',"
              + " CASE WHEN k >= :broadcasts - 2 THEN NULL ELSE CAST(:t0 AS timestamptz) + (k + 1) * interval '30 minutes' END"
              + " FROM generate_series(0, :broadcasts - 1) AS k")
          .bind("t0", T0).bind("broadcasts", broadcasts).execute();
    });
    for (int day = 0; day < DAYS; day++) {
      long from = (long) day * BROADCASTS_PER_DAY * perBroadcast;
      long to = (long) (day + 1) * BROADCASTS_PER_DAY * perBroadcast - 1;
      jdbi.useHandle(h -> h.createUpdate("INSERT INTO segment_ledger_item (broadcast_id, axis, rendition, sequence,"
              + " source_path, size_bytes, state, reason, registered_at, next_attempt_at, confirmed_at, terminal_at,"
              + " checksum)"
              + " SELECT 'b' || k, CASE WHEN l % 4 = 0 THEN 'ORIGINAL' ELSE 'PLAYBACK' END, 'r' || (l % 4), l / 4,"
              + " '/rec/b' || k || '/r' || (l % 4) || '/' || (l / 4) || '.ts', 1000000 + l, s.state,"
              + " CASE WHEN s.state = 'REJECTED' THEN 'MISSING_FILE' END, ts, ts,"
              + " CASE WHEN s.state = 'CONFIRMED' THEN ts + interval '2 seconds' END,"
              + " CASE WHEN s.state = 'REJECTED' THEN ts + interval '2 seconds' END,"
              + " CASE WHEN s.state = 'CONFIRMED' THEN md5(g::text) END"
              + " FROM generate_series(:from, :to) AS g"
              + " CROSS JOIN LATERAL (SELECT g / :per AS k, g % :per AS l) AS kl"
              + " CROSS JOIN LATERAL (SELECT CAST(:t0 AS timestamptz) + k * interval '30 minutes'"
              + "   + (l * :lengthMicros / :per) * interval '1 microsecond' AS ts) AS t"
              + " CROSS JOIN LATERAL (SELECT CASE"
              + "   WHEN k >= :broadcasts - 2 AND l % 10 = 0 THEN 'PENDING'"
              + "   WHEN k % 100 = 7 AND l = 0 THEN 'PENDING'"
              + "   WHEN g % 1000 = 3 THEN 'REJECTED'"
              + "   ELSE 'CONFIRMED' END AS state) AS s")
          .bind("from", from).bind("to", to).bind("per", perBroadcast).bind("t0", T0)
          .bind("lengthMicros", lengthMicros).bind("broadcasts", broadcasts)
          .execute());
      log("loaded day " + (day + 1));
    }
    jdbi.useHandle(h -> h.execute("VACUUM ANALYZE"));
  }

  /**
   * The alternative: the same rows copied into a table partitioned by day of registration (with the
   * partition key added to its unique constraints, as partitioning requires); drop the old days.
   */
  private static void partitionAlternative(Jdbi jdbi, long rows, List<BenchResult> results, Map<String, Object> c) {
    jdbi.useHandle(h -> {
      h.execute("CREATE TABLE part_item (LIKE segment_ledger_item INCLUDING DEFAULTS)"
          + " PARTITION BY RANGE (registered_at)");
      for (int day = 0; day <= DAYS; day++) {
        h.execute("CREATE TABLE part_item_" + day + " PARTITION OF part_item FOR VALUES FROM ('"
            + T0.plus(Duration.ofDays(day)) + "') TO ('" + T0.plus(Duration.ofDays(day + 1)) + "')");
      }
      // The keys a partitioned ledger would need: the partition key in every unique constraint.
      h.execute("ALTER TABLE part_item ADD PRIMARY KEY (id, registered_at)");
      h.execute("ALTER TABLE part_item ADD UNIQUE (broadcast_id, axis, rendition, sequence, registered_at)");
      h.execute("CREATE INDEX ON part_item (axis, id) INCLUDE (next_attempt_at) WHERE state = 'PENDING'");
    });
    long copyStart = System.nanoTime();
    jdbi.useHandle(h -> h.execute("INSERT INTO part_item SELECT * FROM segment_ledger_item"));
    double copySeconds = secondsSince(copyStart);
    long partRows = jdbi.withHandle(h -> h.createQuery("SELECT count(*) FROM part_item").mapTo(Long.class).one());
    long dropStart = System.nanoTime();
    long dropped = jdbi.withHandle(h -> {
      long n = 0;
      for (int day = 0; day < DAYS - RETENTION_DAYS; day++) {
        n += h.createQuery("SELECT count(*) FROM part_item_" + day).mapTo(Long.class).one();
      }
      return n;
    });
    long countNanos = System.nanoTime() - dropStart;
    dropStart = System.nanoTime();
    jdbi.useHandle(h -> {
      for (int day = 0; day < DAYS - RETENTION_DAYS; day++) {
        h.execute("DROP TABLE part_item_" + day);
      }
    });
    double dropMs = (System.nanoTime() - dropStart) / 1e6;
    jdbi.useHandle(h -> h.execute("DROP TABLE part_item"));
    Map<String, Object> pc = new LinkedHashMap<>(c);
    pc.put("partitioned_rows", partRows);
    pc.put("partition_rows_dropped", dropped);
    pc.put("partition_copy_s", copySeconds);
    pc.put("partition_count_ms", countNanos / 1e6);
    results.add(BenchResult.info("retention.partition_drop_ms", dropMs, "ms",
        "DROP TABLE of the " + (DAYS - RETENTION_DAYS) + " oldest daily partitions (" + dropped + " rows);"
            + " needs every broadcast in them complete, and the partition key in every unique constraint", pc));
  }

  /** Single registrations of PENDING rows into one live broadcast, at a steady rate, on this thread. */
  private static final class Registrar {
    private final JdbiStateStore store;
    private final String broadcast;
    private final List<Long> micros = new ArrayList<>();
    private long sequence;

    Registrar(JdbiStateStore store, String broadcast) {
      this.store = store;
      this.broadcast = broadcast;
    }

    void runFor(Duration duration) throws InterruptedException {
      long end = System.nanoTime() + duration.toNanos();
      runWhile(() -> System.nanoTime() < end);
    }

    void runWhile(java.util.function.BooleanSupplier go) throws InterruptedException {
      long intervalNanos = 1_000_000_000L / REGISTRATIONS_PER_S;
      long next = System.nanoTime();
      while (go.getAsBoolean()) {
        long wait = next - System.nanoTime();
        if (wait > 0) {
          Thread.sleep(wait / 1_000_000, (int) (wait % 1_000_000)); // pacing a load generator
        }
        long seq = sequence++;
        store.register(NewItem.pending(ItemId.original(broadcast, "r0", seq), "/rec/" + broadcast + "/" + seq,
            1000, NOW));
        micros.add((System.nanoTime() - next) / 1_000);
        next += intervalNanos;
      }
    }

    void reset() {
      micros.clear();
    }

    long[] latencies() {
      return micros.stream().mapToLong(Long::longValue).sorted().toArray();
    }
  }

  private record Sizes(long rows, long table, long indexes) {
    double tableMiB() {
      return table / 1048576.0;
    }

    double indexMiB() {
      return indexes / 1048576.0;
    }

    double totalMiB() {
      return (table + indexes) / 1048576.0;
    }

    @Override
    public String toString() {
      return rows + " rows, table " + fmt(tableMiB()) + " MiB, indexes " + fmt(indexMiB()) + " MiB";
    }
  }

  private static Sizes sizes(Jdbi jdbi) {
    return jdbi.withHandle(h -> new Sizes(
        h.createQuery("SELECT count(*) FROM segment_ledger_item WHERE broadcast_id NOT LIKE 'live-%'")
            .mapTo(Long.class).one(),
        h.createQuery("SELECT pg_table_size('segment_ledger_item')").mapTo(Long.class).one(),
        h.createQuery("SELECT pg_indexes_size('segment_ledger_item')").mapTo(Long.class).one()));
  }

  private static long count(Jdbi jdbi, String where) {
    return jdbi.withHandle(h -> h.createQuery("SELECT count(*) FROM segment_ledger_item WHERE " + where)
        .mapTo(Long.class).one());
  }

  /** EXPLAIN (ANALYZE, BUFFERS) of the purge's delete on the oldest broadcast, rolled back. */
  private static String explainPurge(Jdbi jdbi) throws java.io.IOException {
    String sql;
    try (var in = JdbiStateStore.class.getResourceAsStream("/dev/segmentledger/jdbi/purge-rows.sql")) {
      sql = new String(in.readAllBytes(), java.nio.charset.StandardCharsets.UTF_8).lines()
          .filter(line -> !line.strip().startsWith("--")).collect(java.util.stream.Collectors.joining(" "));
    }
    String explain = "EXPLAIN (ANALYZE, BUFFERS) " + sql;
    return jdbi.withHandle(h -> {
      h.begin();
      try {
        return String.join("\n", h.createQuery(explain).bind("broadcastId", "b0").bind("limit", PURGE_BATCH)
            .mapTo(String.class).list());
      } finally {
        h.rollback();
      }
    });
  }

  private static long walBytes(Jdbi jdbi) {
    return jdbi.withHandle(h -> h.createQuery("SELECT pg_wal_lsn_diff(pg_current_wal_lsn(), '0/0')::bigint")
        .mapTo(Long.class).one());
  }

  /** Milliseconds at quantile {@code q} of sorted microsecond latencies. */
  private static double percentile(long[] sortedMicros, double q) {
    if (sortedMicros.length == 0) {
      return Double.NaN;
    }
    int i = (int) Math.min(sortedMicros.length - 1, Math.ceil(q * sortedMicros.length) - 1);
    return sortedMicros[Math.max(0, i)] / 1000.0;
  }

  /** /proc/loadavg's first three figures: the machine is shared, and this says how busy it was. */
  private static String loadAverage() {
    try {
      String[] f = Files.readString(Path.of("/proc/loadavg")).split(" ");
      return f[0] + " " + f[1] + " " + f[2];
    } catch (java.io.IOException | RuntimeException e) {
      return "unknown";
    }
  }

  private static double secondsSince(long startNanos) {
    return (System.nanoTime() - startNanos) / 1e9;
  }

  private static String fmt(double v) {
    return BenchResult.fmt(v);
  }

  private static void log(String line) {
    System.out.println("[retention] " + line);
  }
}
