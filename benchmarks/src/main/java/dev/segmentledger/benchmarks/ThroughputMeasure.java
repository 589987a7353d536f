package dev.segmentledger.benchmarks;

import dev.segmentledger.core.Ledger;
import dev.segmentledger.testkit.FakeObjectSink;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/**
 * Measure 1: items/s from register to confirmed on real PostgreSQL with a zero-latency sink
 * (FakeObjectSink), with the batching the engine offers: registrations in batches of
 * {@value #REGISTER_BATCH} ({@code Ledger.registerAll}), rows leased to the ledger at insertion
 * (no claim statement), confirms grouped by the confirmer. The queue holds every item, so the
 * number is the pipeline's (register, upload, confirm), not the sweeper's refill pace.
 */
final class ThroughputMeasure implements Measure {
  static final int WORKERS = 4;
  static final int REGISTER_THREADS = 2;
  static final int FILE_SIZE = 1024;
  static final int REGISTER_BATCH = 100;

  @Override
  public String name() {
    return "throughput";
  }

  @Override
  public List<BenchResult> run(BenchEnv env) throws Exception {
    int items = env.size(500, 100_000);
    Path root = env.newDir("throughput");
    List<Path> files = MediaFiles.write(root.resolve("rec"), items, FILE_SIZE);
    // A warm-up run on its own schema, then a long measured run: the JIT compilers take a quarter of
    // the CPU of a short cold run, and the number wanted is the steady rate of a long-running recorder.
    runOnce(env, root, files, "warmup"); // as long as the measured run: a fifth left the JIT compiling
    rawOnce(env, files); // the raw JDBC run is warmed the same way
    String loadStart = LoadAvg.now();
    long cpuBefore = CpuUse.processNanos();
    long jitBefore = CpuUse.jitMillis();
    long gcBefore = CpuUse.gcMillis();
    long serverBefore = env.serverCpuNanos();
    LiveRun.Outcome o = runOnce(env, root, files, "measured");
    long cpuNanos = CpuUse.processNanos() - cpuBefore;
    long serverNanos = serverBefore < 0 ? -1 : env.serverCpuNanos() - serverBefore;
    long jitMs = CpuUse.jitMillis() - jitBefore;
    long gcMs = CpuUse.gcMillis() - gcBefore;
    long rawCpuBefore = CpuUse.processNanos();
    long rawServerBefore = env.serverCpuNanos();
    double rawPerSecond = rawOnce(env, files);
    long rawCpuNanos = CpuUse.processNanos() - rawCpuBefore;
    long rawServerNanos = rawServerBefore < 0 ? -1 : env.serverCpuNanos() - rawServerBefore;
    Map<String, Object> c = env.conditions();
    c.put("loadavg_start", loadStart);
    c.put("rows", items);
    c.put("file_bytes", FILE_SIZE);
    c.put("workers", WORKERS);
    c.put("register_threads", REGISTER_THREADS);
    c.put("register_batch", REGISTER_BATCH);
    c.put("queue_capacity", items);
    c.put("pool_size", WORKERS + REGISTER_THREADS + 2);
    c.put("sink", "FakeObjectSink (in memory, zero latency)");
    c.put("register_only_items_per_s", o.registerPerSecond());
    c.put("jvm_cpu_us_per_item", cpuNanos / 1e3 / items);
    c.put("postgres_cpu_us_per_item", serverNanos < 0 ? "not measured (server not on this machine)"
        : serverNanos / 1e3 / items);
    Map<String, Double> perItem = new TreeMap<>();
    o.threadCpuMicros().forEach((group, micros) -> perItem.put(group, (double) micros / items));
    c.put("thread_cpu_us_per_item", perItem);
    c.put("jit_ms", jitMs);
    c.put("gc_ms", gcMs);
    c.put("failed_attempts", o.failed());
    c.put("saturated", o.saturated());
    c.put("raw_pg_items_per_s", rawPerSecond);
    c.put("raw_pg_jvm_cpu_us_per_item", rawCpuNanos / 1e3 / items);
    c.put("raw_pg_postgres_cpu_us_per_item", rawServerNanos < 0 ? "not measured (server not on this machine)"
        : rawServerNanos / 1e3 / items);
    c.put("raw_pg", "plain JDBC on the same table, pool size and threads: " + REGISTER_THREADS + " threads insert"
        + " in JDBC batches of " + RawPostgresRun.BATCH + " (a transaction each), " + WORKERS + " threads confirm with"
        + " one conditional UPDATE per row (WHERE id = ? AND state = 'PENDING'), batched by " + RawPostgresRun.BATCH
        + "; measured right after the ledger, each after a warm-up of " + items + " rows");
    c.put("loadavg_end", LoadAvg.now());
    return List.of(BenchResult.atLeast("throughput.register_to_confirmed", o.itemsPerSecond(), "items/s", 10_000,
            "first register to last confirm; registerAll batches of " + REGISTER_BATCH + ", leased at insertion,"
                + " confirms batched by the confirmer", c),
        BenchResult.info("throughput.raw_pg_items_per_s", rawPerSecond, "items/s",
            "plain JDBC floor: inserts batched by 100, one conditional update per row batched by 100, same pool and"
                + " threads", c),
        BenchResult.atLeast("throughput.efficiency_vs_raw_pg", o.itemsPerSecond() / rawPerSecond, "x", 0.8,
            "ledger items/s / raw JDBC items/s, same run, same pool and threads", c));
  }

  private static double rawOnce(BenchEnv env, List<Path> files) throws Exception {
    try (BenchEnv.Database db = env.newDatabase("throughput_raw", WORKERS + REGISTER_THREADS + 2)) {
      return RawPostgresRun.run(db.dataSource(), "raw", files.size(), files.get(0).toString(), FILE_SIZE,
          REGISTER_THREADS, WORKERS);
    }
  }

  private static LiveRun.Outcome runOnce(BenchEnv env, Path root, List<Path> files, String label) throws Exception {
    try (BenchEnv.Database db = env.newDatabase("throughput", WORKERS + REGISTER_THREADS + 2)) {
      return LiveRun.run(Ledger.builder()
          .stateStore(db.store())
          .objectSink(new FakeObjectSink())
          .allowedRoot(root)
          .workers(WORKERS)
          .queueCapacity(files.size()), files, "tp-" + label, REGISTER_THREADS, REGISTER_BATCH, Duration.ofMinutes(10));
    }
  }
}
