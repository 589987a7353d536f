package dev.segmentledger.benchmarks;

import dev.segmentledger.core.Ledger;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/**
 * Measure 1: items/s from register to confirmed on real PostgreSQL with a zero-latency sink that
 * reads every byte ({@link DiscardingSink}), with the batching the engine offers: registrations in
 * batches of {@value #REGISTER_BATCH} ({@code Ledger.registerAll}), rows leased to the ledger at insertion
 * (no claim statement), confirms grouped by the confirmer. The queue holds every item, so the
 * number is the pipeline's (register, upload, confirm), not the sweeper's refill pace.
 *
 * <p>Compared, in the same run, with the same pool and threads, on the same table, with plain SQL
 * ({@link PlainSqlRun}): the set-based ceiling (the minimum SQL per item, what the goal compares
 * with) and the per-row floor. After an untimed warm-up of each (two of the ledger), {@link #PAIRS}
 * rounds run the ledger, the ceiling and the floor in that order (A-B-A-B), each on a fresh schema;
 * a ratio is the median of the rounds' ratios, and every round's figures are in the conditions.
 */
final class ThroughputMeasure implements Measure {
  static final int WORKERS = 4;
  static final int REGISTER_THREADS = 2;
  static final int FILE_SIZE = 1024;
  static final int REGISTER_BATCH = 100;
  static final int POOL = WORKERS + REGISTER_THREADS + 2;
  static final int PAIRS = 3;
  static final double GOAL_TO_CEILING = 0.6;
  static final double STRETCH_TO_CEILING = 0.8;

  @Override
  public String name() {
    return "throughput";
  }

  /** One timed run of one side, with where the CPU went. */
  private record Side(double itemsPerSecond, double jvmCpuUsPerItem, double postgresCpuUsPerItem, long jitMs,
      long gcMs, LiveRun.Outcome ledger, String plan) {
    Map<String, Object> figures(String prefix) {
      Map<String, Object> f = new LinkedHashMap<>();
      f.put(prefix + "_jvm_cpu_us_per_item", jvmCpuUsPerItem);
      f.put(prefix + "_postgres_cpu_us_per_item", Double.isNaN(postgresCpuUsPerItem) ? "not measured"
          : postgresCpuUsPerItem);
      return f;
    }
  }

  @Override
  public List<BenchResult> run(BenchEnv env) throws Exception {
    int items = env.size(500, 100_000);
    Path root = env.newDir("throughput");
    List<Path> files = MediaFiles.write(root.resolve("rec"), items, FILE_SIZE);
    List<String> paths = files.stream().map(Path::toString).toList();
    // Untimed warm-ups as long as the measured runs, each side on a schema of its own: after a
    // fifth of that the JIT compilers were still at work in the measured run, and the number wanted is
    // the steady rate of a long-running recorder. The ledger warms up twice: after one warm-up its
    // measured runs still spent 1.0 to 1.6 s compiling (10 to 16 us per item), less in each round.
    ledgerOnce(env, root, files, "warmup-1");
    ledgerOnce(env, root, files, "warmup-2");
    sqlOnce(env, PlainSqlRun.Kind.SET_BASED_CEILING, paths);
    sqlOnce(env, PlainSqlRun.Kind.PER_ROW_FLOOR, paths);
    String loadStart = LoadAvg.now();
    Pairs toCeiling = new Pairs("ceiling");
    Pairs toFloor = new Pairs("per_row_floor");
    List<Side> ledgerRuns = new ArrayList<>();
    String ceilingPlan = "";
    int pairs = PAIRS;
    for (int round = 1; round <= pairs; round++) {
      String load = LoadAvg.now();
      Side ledger = ledgerOnce(env, root, files, "pair-" + round);
      Side ceiling = sqlOnce(env, PlainSqlRun.Kind.SET_BASED_CEILING, paths);
      if (round == pairs) {
        ceilingPlan = ceiling.plan();
      }
      Side floor = sqlOnce(env, PlainSqlRun.Kind.PER_ROW_FLOOR, paths);
      ledgerRuns.add(ledger);
      Map<String, Object> details = new LinkedHashMap<>(ledger.figures("ledger"));
      details.put("ledger_jit_ms", ledger.jitMs());
      details.put("ledger_gc_ms", ledger.gcMs());
      details.put("loadavg_before", load);
      Map<String, Object> ceilingDetails = new LinkedHashMap<>(details);
      ceilingDetails.putAll(ceiling.figures("ceiling"));
      toCeiling.add(ledger.itemsPerSecond(), ceiling.itemsPerSecond(), "ledger, ceiling", ceilingDetails);
      Map<String, Object> floorDetails = new LinkedHashMap<>(details);
      floorDetails.putAll(floor.figures("per_row_floor"));
      toFloor.add(ledger.itemsPerSecond(), floor.itemsPerSecond(), "ledger, ceiling, per_row_floor", floorDetails);
      System.out.printf("[bench]   throughput pair %d: ledger %.0f, ceiling %.0f, per-row floor %.0f items/s%n", round,
          ledger.itemsPerSecond(), ceiling.itemsPerSecond(), floor.itemsPerSecond());
    }
    Map<String, Object> c = env.conditions();
    c.put("loadavg_start", loadStart);
    c.put("rows", items);
    c.put("file_bytes", FILE_SIZE);
    c.put("workers", WORKERS);
    c.put("register_threads", REGISTER_THREADS);
    c.put("register_batch", REGISTER_BATCH);
    c.put("queue_capacity", items);
    c.put("pool_size", POOL);
    c.put("sink", DiscardingSink.DESCRIPTION);
    c.put("pair_count", pairs);
    c.put("order", "untimed warm-up of ledger (twice), ceiling, per_row_floor; then " + pairs
        + " rounds of ledger, ceiling, per_row_floor, each run on a fresh schema made by JdbiStateStore.migrate()");
    c.put("register_only_items_per_s", median(ledgerRuns, s -> s.ledger().registerPerSecond()));
    c.put("jvm_cpu_us_per_item", median(ledgerRuns, Side::jvmCpuUsPerItem));
    c.put("postgres_cpu_us_per_item", env.serverCpuNanos() < 0 ? "not measured (server not on this machine)"
        : median(ledgerRuns, Side::postgresCpuUsPerItem));
    c.put("thread_cpu_us_per_item", threadCpuPerItem(ledgerRuns, items));
    c.put("jit_ms", median(ledgerRuns, s -> s.jitMs()));
    c.put("gc_ms", median(ledgerRuns, s -> s.gcMs()));
    c.put("failed_attempts", ledgerRuns.stream().mapToLong(s -> s.ledger().failed()).sum());
    c.put("saturated", ledgerRuns.stream().mapToLong(s -> s.ledger().saturated()).sum());
    c.put("ceiling", "plain JDBC, same table, pool and threads: " + REGISTER_THREADS + " threads each insert "
        + PlainSqlRun.BATCH + " rows in one multi-row INSERT ... SELECT FROM unnest(...) RETURNING id (autocommit) and"
        + " hand the ids to " + WORKERS + " threads that confirm them with one UPDATE ... FROM unnest(ids,"
        + " broadcast ids) joined on the whole key (id, broadcast_id) AND state = 'PENDING' (autocommit): 2 commits per "
        + PlainSqlRun.BATCH + " items; the ledger's plan settings once per connection (" + PlainSqlRun.KEYED_PLANS
        + ")");
    c.put("ceiling_confirm_plan", "after the last ceiling run, on its table: " + ceilingPlan);
    c.put("per_row_floor", "plain JDBC, same table, pool and threads: " + REGISTER_THREADS + " threads insert in JDBC"
        + " batches of " + PlainSqlRun.BATCH + " single-row INSERTs (a transaction each), " + WORKERS + " threads"
        + " confirm with one conditional UPDATE per row (WHERE id = ? AND state = 'PENDING'), batched by "
        + PlainSqlRun.BATCH + " in a transaction");
    c.put("pairs_to_ceiling", toCeiling.figures());
    c.put("pairs_to_per_row_floor", toFloor.figures());
    c.put("loadavg_end", LoadAvg.now());
    double ratio = toCeiling.medianRatio();
    return List.of(
        BenchResult.atLeast("throughput.register_to_confirmed", toCeiling.medianLedger(), "items/s", 10_000,
            "median of " + pairs + " runs, first register to last confirm; registerAll batches of " + REGISTER_BATCH
                + ", leased at insertion, confirms batched by the confirmer", c),
        BenchResult.info("throughput.ceiling_items_per_s", toCeiling.medianReference(), "items/s",
            "median of " + pairs + " runs: set-based plain SQL, one multi-row INSERT and one UPDATE by (id, broadcast_id)"
                + " = ANY(...) per " + PlainSqlRun.BATCH + " items, same table, pool and threads", c),
        BenchResult.atLeast("throughput.ledger_to_ceiling", ratio, "x", GOAL_TO_CEILING,
            "median of the pairs' ledger / ceiling " + toCeiling.ratios() + "; stretch goal " + STRETCH_TO_CEILING
                + (ratio >= STRETCH_TO_CEILING ? " (met)" : " (not met)"), c),
        BenchResult.info("throughput.per_row_floor_items_per_s", toFloor.medianReference(), "items/s",
            "median of " + pairs + " runs: plain JDBC, one statement per row (inserts and updates batched by "
                + PlainSqlRun.BATCH + "), same table, pool and threads", c),
        BenchResult.info("throughput.ledger_to_per_row_floor", toFloor.medianRatio(), "x",
            "median of the pairs' ledger / per-row floor " + toFloor.ratios(), c));
  }

  private static double median(List<Side> runs, java.util.function.ToDoubleFunction<Side> value) {
    return Pairs.median(runs.stream().map(value::applyAsDouble).toList());
  }

  /** Per thread group, the median over the ledger's runs of its CPU per item. */
  private static Map<String, Double> threadCpuPerItem(List<Side> runs, int items) {
    Map<String, List<Double>> byGroup = new TreeMap<>();
    for (Side run : runs) {
      run.ledger().threadCpuMicros().forEach((group, micros) ->
          byGroup.computeIfAbsent(group, g -> new ArrayList<>()).add((double) micros / items));
    }
    Map<String, Double> medians = new TreeMap<>();
    byGroup.forEach((group, values) -> medians.put(group, Pairs.median(values)));
    return medians;
  }

  /** One run of plain SQL on a fresh schema, with its CPU on both sides. */
  private static Side sqlOnce(BenchEnv env, PlainSqlRun.Kind kind, List<String> paths) throws Exception {
    try (BenchEnv.Database db = env.newDatabase("throughput_" + kind.label(), POOL)) {
      long cpu = CpuUse.processNanos();
      long server = env.serverCpuNanos();
      double rate = PlainSqlRun.run(kind, db.dataSource(), kind.label(), paths, FILE_SIZE, REGISTER_THREADS, WORKERS);
      double jvm = (CpuUse.processNanos() - cpu) / 1e3 / paths.size();
      double postgres = server < 0 ? Double.NaN : (env.serverCpuNanos() - server) / 1e3 / paths.size();
      String plan = kind == PlainSqlRun.Kind.SET_BASED_CEILING ? PlainSqlRun.confirmPlan(db.dataSource(), kind.label())
          : "";
      return new Side(rate, jvm, postgres, 0, 0, null, plan);
    }
  }

  private static Side ledgerOnce(BenchEnv env, Path root, List<Path> files, String label) throws Exception {
    try (BenchEnv.Database db = env.newDatabase("throughput", POOL)) {
      long cpu = CpuUse.processNanos();
      long jit = CpuUse.jitMillis();
      long gc = CpuUse.gcMillis();
      long server = env.serverCpuNanos();
      LiveRun.Outcome o = LiveRun.run(Ledger.builder()
          .stateStore(db.store())
          .objectSink(new DiscardingSink())
          .allowedRoot(root)
          .workers(WORKERS)
          .queueCapacity(files.size()), files, "tp-" + label, REGISTER_THREADS, REGISTER_BATCH, Duration.ofMinutes(10));
      return new Side(o.itemsPerSecond(), (CpuUse.processNanos() - cpu) / 1e3 / files.size(),
          server < 0 ? Double.NaN : (env.serverCpuNanos() - server) / 1e3 / files.size(), CpuUse.jitMillis() - jit,
          CpuUse.gcMillis() - gc, o, "");
    }
  }
}
