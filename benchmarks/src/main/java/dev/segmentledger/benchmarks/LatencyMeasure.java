package dev.segmentledger.benchmarks;

import dev.segmentledger.core.ItemId;
import dev.segmentledger.core.Ledger;
import dev.segmentledger.testkit.FakeObjectSink;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.Timestamp;
import java.time.Duration;
import java.time.Instant;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * Latency from register to confirmed at a steady offered rate ({@link PacedLoad}: item i is due at
 * start + i/rate, and its latency runs from that instant, so a stalled registration counts), on
 * durable PostgreSQL with FakeObjectSink, against raw PostgreSQL doing the same two commits per item
 * at the same rate, with the same threads and pool: an {@code INSERT ... RETURNING id}, then an
 * {@code UPDATE} of that row by its key, each in autocommit, on the registering thread. The two run
 * in alternation, raw then ledger, {@link #PAIRS} times (A-B-A-B), each on a fresh schema and each
 * with its own warm-up at the same rate; a result is the median over the pairs, the ratio the median
 * of the pairs' ledger p99 / raw p99, and every pair's figures are in the conditions. Three
 * scenarios, each a measure: 1,000/s ({@code latency}), 5,000/s ({@code latency_5000}) and 1,000/s
 * while a {@link BackgroundWriter} puts 50 MB/s of media files on the same disk as PostgreSQL's data
 * ({@code latency_disk}, the writer running through all its runs).
 */
final class LatencyMeasure implements Measure {
  static final int REGISTER_THREADS = 16;
  static final int POOL = REGISTER_THREADS + 6;
  static final int PAIRS = 3;
  static final long BACKGROUND_BYTES_PER_S = 50_000_000L;
  static final String RAW_INSERT = "INSERT INTO segment_ledger_item (" + PlainSqlRun.COLUMNS + ") VALUES (?,"
      + " 'ORIGINAL', '720p', ?, ?, ?, 'PENDING', ?, ?) RETURNING id";
  static final String RAW_CONFIRM = "UPDATE segment_ledger_item SET state = 'CONFIRMED', confirmed_at = ?"
      + " WHERE id = ? AND broadcast_id = ? AND state = 'PENDING'";
  private final String name;
  private final int rate;
  private final double goalP99;
  private final double goalRatio;
  private final long backgroundBytesPerSecond;

  /** @param goalRatio the goal of the median ledger p99 / raw p99, or NaN for none */
  private LatencyMeasure(String name, int rate, double goalP99, double goalRatio, long backgroundBytesPerSecond) {
    this.name = name;
    this.rate = rate;
    this.goalP99 = goalP99;
    this.goalRatio = goalRatio;
    this.backgroundBytesPerSecond = backgroundBytesPerSecond;
  }

  /** 1,000/s: ledger p99 / raw p99 <= 1.5 (the p99 itself reported for information). */
  static LatencyMeasure at1000() {
    return new LatencyMeasure("latency", 1_000, Double.NaN, 1.5, 0);
  }

  static LatencyMeasure at5000() {
    return new LatencyMeasure("latency_5000", 5_000, 20, Double.NaN, 0);
  }

  static LatencyMeasure at1000WithDiskWriter() {
    return new LatencyMeasure("latency_disk", 1_000, 20, Double.NaN, BACKGROUND_BYTES_PER_S);
  }

  @Override
  public String name() {
    return name;
  }

  /** One run's latencies, scheduled instant to done, sorted, in ms; only the counted items. */
  private record Figures(double[] millis, Map<String, Object> details) {
    double p(double percentile) {
      return percentile(millis, percentile);
    }
  }

  @Override
  public List<BenchResult> run(BenchEnv env) throws Exception {
    // Smoke mode checks the harness, not the goal: a tenth of the rate keeps it short on a busy machine.
    int rate = env.size(Math.max(100, this.rate / 10), this.rate);
    int seconds = env.size(1, 20);
    // The first seconds of each run, at the same rate, warm the JIT, the pool, the plans and the
    // table, and are not counted: a cold run registers its first items through the interpreter,
    // builds a backlog and reports that, not the steady latency.
    int warmupSeconds = env.size(1, 10);
    int counted = rate * seconds;
    int warmup = rate * warmupSeconds;
    Path root = env.newDir(name);
    List<Path> files = MediaFiles.write(root.resolve("rec"), warmup + counted, 1024);
    String loadStart = LoadAvg.now();
    Pairs pairs = new Pairs("raw");
    BackgroundWriter writer = backgroundBytesPerSecond > 0
        ? new BackgroundWriter(root.resolve("background-recorder"), backgroundBytesPerSecond).start() : null;
    try {
      for (int pair = 1; pair <= PAIRS; pair++) {
        String load = LoadAvg.now();
        Figures raw = rawOnce(env, files, rate, warmup);
        Figures ledger = ledgerOnce(env, root, files, rate, warmup);
        Map<String, Object> details = new LinkedHashMap<>();
        details.put("loadavg_before", load);
        raw.details().forEach((k, v) -> details.put("raw_" + k, v));
        ledger.details().forEach((k, v) -> details.put("ledger_" + k, v));
        pairs.add(ledger.p(0.99), raw.p(0.99), "raw, ledger", details);
        System.out.printf(Locale.ROOT, "[bench]   %s pair %d: p99 raw %.2f ms, ledger %.2f ms%n", name, pair,
            raw.p(0.99), ledger.p(0.99));
      }
    } finally {
      if (writer != null) {
        writer.close();
      }
    }
    Map<String, Object> c = env.conditions();
    c.put("loadavg_start", loadStart);
    c.put("rows_per_run", counted);
    c.put("rate_per_s", rate);
    c.put("duration_s", seconds);
    c.put("warmup_s_not_counted", warmupSeconds + " in every run");
    c.put("register_threads", REGISTER_THREADS);
    c.put("pool_size", POOL);
    c.put("ledger", "workers 4, queue 256 (defaults), FakeObjectSink");
    c.put("raw", "on each of the " + REGISTER_THREADS + " threads: " + RAW_INSERT + " then " + RAW_CONFIRM
        + ", each in autocommit (2 commits per item), latency to the update's return");
    c.put("order", PAIRS + " pairs of raw then ledger, each run on a fresh schema made by JdbiStateStore.migrate()");
    if (writer != null) {
      c.put("background_writer", "segments of " + BackgroundWriter.SEGMENT_BYTES / (1024 * 1024) + " MiB in 1 MiB"
          + " writes paced to " + backgroundBytesPerSecond / 1_000_000 + " MB/s, each fsync'd and renamed, in the"
          + " suite's work directory (same disk as PostgreSQL's data directory when embedded), through all the runs");
      c.put("background_writer_mb_per_s_achieved", writer.achievedBytesPerSecond() / 1e6);
    }
    c.put("pairs", pairs.figures());
    c.put("loadavg_end", LoadAvg.now());
    String what = "scheduled instant -> onConfirmed at " + rate + " items/s"
        + (writer == null ? "" : ", " + backgroundBytesPerSecond / 1_000_000 + " MB/s of media written meanwhile")
        + "; median of " + PAIRS + " runs";
    double p99 = pairs.medianLedger();
    double ratio = pairs.medianRatio();
    String ratioNote = "median of the pairs' ledger p99 / raw p99 " + pairs.ratios()
        + ", raw = 2 commits per item at the same rate, threads and pool, alternating raw, ledger";
    return List.of(
        BenchResult.info(name + ".p50", medianOfLedger(pairs, "ledger_p50_ms"), "ms", what, c),
        Double.isNaN(goalP99) ? BenchResult.info(name + ".p99", p99, "ms", what, c)
            : BenchResult.atMost(name + ".p99", p99, "ms", goalP99, what, c),
        BenchResult.info(name + ".raw_p99", pairs.medianReference(), "ms",
            "raw PostgreSQL, scheduled instant -> update committed, median of " + PAIRS + " runs", c),
        Double.isNaN(goalRatio) ? BenchResult.info(name + ".p99_ratio_to_raw", ratio, "x", ratioNote, c)
            : BenchResult.atMost(name + ".p99_ratio_to_raw", ratio, "x", goalRatio, ratioNote, c));
  }

  private static double medianOfLedger(Pairs pairs, String key) {
    return Pairs.median(pairs.figures().stream().map(p -> ((Number) p.get(key)).doubleValue()).toList());
  }

  private Figures rawOnce(BenchEnv env, List<Path> files, int rate, int warmup) throws Exception {
    try (BenchEnv.Database db = env.newDatabase(name + "_raw", POOL)) {
      String broadcast = "raw";
      long cpu = CpuUse.processNanos();
      PacedLoad load = PacedLoad.run(rate, files.size(), REGISTER_THREADS, "bench-raw", n -> {
        try (Connection c = db.dataSource().getConnection();
            PreparedStatement insert = c.prepareStatement(RAW_INSERT);
            PreparedStatement confirm = c.prepareStatement(RAW_CONFIRM)) {
          Timestamp now = Timestamp.from(Instant.now());
          insert.setString(1, broadcast);
          insert.setLong(2, n);
          insert.setString(3, files.get(n).toString());
          insert.setLong(4, 1024);
          insert.setTimestamp(5, now);
          insert.setTimestamp(6, now);
          long id;
          try (ResultSet rs = insert.executeQuery()) {
            rs.next();
            id = rs.getLong(1);
          }
          confirm.setTimestamp(1, Timestamp.from(Instant.now()));
          confirm.setLong(2, id);
          confirm.setString(3, broadcast);
          if (confirm.executeUpdate() != 1) {
            throw new IllegalStateException("row " + id + " not confirmed");
          }
        }
      });
      return figures(load, load.returned, warmup, (CpuUse.processNanos() - cpu) / 1e3 / files.size(), null);
    }
  }

  private Figures ledgerOnce(BenchEnv env, Path root, List<Path> files, int rate, int warmup) throws Exception {
    ConfirmTracker tracker = new ConfirmTracker(files.size()).withStages();
    try (BenchEnv.Database db = env.newDatabase(name, POOL);
        Ledger ledger = Ledger.builder().stateStore(db.store()).objectSink(new FakeObjectSink())
            .allowedRoot(root).listener(tracker).build()) {
      ledger.start();
      long cpu = CpuUse.processNanos();
      PacedLoad load = PacedLoad.run(rate, files.size(), REGISTER_THREADS, "bench-register",
          n -> ledger.register(ItemId.original("lat", "720p", n), files.get(n)));
      tracker.await(Duration.ofMinutes(5));
      long[] confirmed = new long[files.size()];
      for (int i = 0; i < confirmed.length; i++) {
        confirmed[i] = tracker.confirmedAt(i);
      }
      Figures f = figures(load, confirmed, warmup, (CpuUse.processNanos() - cpu) / 1e3 / files.size(), tracker);
      f.details().put("saturated", tracker.saturated());
      return f;
    }
  }

  /**
   * The counted items' latencies from their scheduled instant to {@code done}, with p50, p99, p99.9,
   * max, the JVM's CPU per item and, for the ledger, the register call alone and the stages.
   */
  private static Figures figures(PacedLoad load, long[] done, int warmup, double cpuUsPerItem,
      ConfirmTracker tracker) {
    int counted = done.length - warmup;
    double[] millis = new double[counted];
    for (int i = 0; i < counted; i++) {
      millis[i] = (done[warmup + i] - load.scheduled[warmup + i]) / 1e6;
    }
    Arrays.sort(millis);
    Map<String, Object> d = new LinkedHashMap<>();
    d.put("p50_ms", percentile(millis, 0.50));
    d.put("p99_ms", percentile(millis, 0.99));
    d.put("p999_ms", percentile(millis, 0.999));
    d.put("max_ms", millis[counted - 1]);
    d.put("jvm_cpu_us_per_item", cpuUsPerItem);
    if (tracker != null) {
      double[] register = new double[counted];
      for (int i = 0; i < counted; i++) {
        register[i] = (load.returned[warmup + i] - load.scheduled[warmup + i]) / 1e6;
      }
      Arrays.sort(register);
      d.put("register_p50_ms", percentile(register, 0.50));
      d.put("register_p99_ms", percentile(register, 0.99));
      stages(d, load, warmup, counted, tracker);
    }
    return new Figures(millis, d);
  }

  /**
   * Where an item's latency went, stage by stage (p50/p99 of each, ms): waiting for a registering
   * thread; register() until the row was committed and offered (onAccepted); offered until the sink
   * stored it (queue wait, worker's checks, PUT: onStored); stored until confirmed (the confirm
   * group commit: onConfirmed); and register() returning after the offer.
   */
  private static void stages(Map<String, Object> d, PacedLoad load, int warmup, int counted,
      ConfirmTracker tracker) {
    double[][] stage = new double[5][counted];
    for (int i = 0; i < counted; i++) {
      int n = warmup + i;
      long accepted = tracker.acceptedAt(n);
      long stored = tracker.storedAt(n);
      stage[0][i] = (load.entered[n] - load.scheduled[n]) / 1e6;
      stage[1][i] = (accepted - load.entered[n]) / 1e6;
      stage[2][i] = (stored - accepted) / 1e6;
      stage[3][i] = (tracker.confirmedAt(n) - stored) / 1e6;
      stage[4][i] = (load.returned[n] - accepted) / 1e6;
    }
    String[] names = {"stage_scheduled_to_register_call", "stage_register_to_offered", "stage_offered_to_stored",
        "stage_stored_to_confirmed", "stage_offered_to_register_return"};
    for (int s = 0; s < names.length; s++) {
      Arrays.sort(stage[s]);
      d.put(names[s] + "_ms", String.format(Locale.ROOT, "p50 %.2f, p99 %.2f, max %.2f",
          percentile(stage[s], 0.50), percentile(stage[s], 0.99), stage[s][counted - 1]));
    }
  }

  static double percentile(double[] sorted, double p) {
    int index = (int) Math.ceil(p * sorted.length) - 1;
    return sorted[Math.max(0, Math.min(sorted.length - 1, index))];
  }
}
