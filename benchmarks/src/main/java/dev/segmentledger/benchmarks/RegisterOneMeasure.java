package dev.segmentledger.benchmarks;

import dev.segmentledger.core.Ledger;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/**
 * Items/s with one file per {@code register} call, as recorders that close one segment
 * at a time call it: {@value #REGISTER_THREADS} threads each calling {@code register(id, path)},
 * zero-latency sink that reads every byte ({@link DiscardingSink}), real PostgreSQL; first register
 * to last confirm. Also the CPU per item: the JVM's CPU time over the run divided by the items (PostgreSQL's own processes
 * are not counted), and where it went by thread group.
 */
final class RegisterOneMeasure implements Measure {
  static final int REGISTER_THREADS = 16;
  static final int WORKERS = 4;
  static final int FILE_SIZE = 1024;
  static final int POOL = REGISTER_THREADS + WORKERS + 2;

  @Override
  public String name() {
    return "throughput_single";
  }

  @Override
  public List<BenchResult> run(BenchEnv env) throws Exception {
    int items = env.size(500, 100_000);
    Path root = env.newDir("single");
    List<Path> files = MediaFiles.write(root.resolve("rec"), items, FILE_SIZE);
    // A warm-up as long as the measured run, on a schema of its own: after a fifth of it the JIT
    // compilers were still at work during the measured run (1.2 to 4.4 s of compilation, 12 to 44
    // us per item on 2 cores), and the figure wanted is a long-running recorder's.
    runOnce(env, root, files, "warmup");
    String loadStart = LoadAvg.now();
    long cpuBefore = CpuUse.processNanos();
    long jitBefore = CpuUse.jitMillis();
    long gcBefore = CpuUse.gcMillis();
    long serverBefore = env.serverCpuNanos();
    long serverSystemBefore = env.serverSystemCpuNanos();
    LiveRun.Outcome o = runOnce(env, root, files, "measured");
    long cpuNanos = CpuUse.processNanos() - cpuBefore;
    long serverNanos = serverBefore < 0 ? -1 : env.serverCpuNanos() - serverBefore;
    long serverSystemNanos = env.serverSystemCpuNanos() - serverSystemBefore;
    Map<String, Object> c = env.conditions();
    c.put("loadavg_start", loadStart);
    c.put("rows", items);
    c.put("file_bytes", FILE_SIZE);
    c.put("workers", WORKERS);
    c.put("register_threads", REGISTER_THREADS);
    c.put("register_call", "register(id, path), one file per call");
    c.put("queue_capacity", items);
    c.put("pool_size", POOL);
    c.put("sink", DiscardingSink.DESCRIPTION);
    c.put("warm_up_not_counted", items + " items on a schema of their own");
    c.put("register_only_items_per_s", o.registerPerSecond());
    c.put("jvm_cpu_us_per_item", cpuNanos / 1e3 / items);
    c.put("postgres_cpu_us_per_item", serverNanos < 0 ? "not measured (server not on this machine)"
        : serverNanos / 1e3 / items);
    if (serverNanos >= 0) {
      c.put("postgres_system_cpu_us_per_item", serverSystemNanos / 1e3 / items);
    }
    Map<String, Double> perItem = new TreeMap<>();
    o.threadCpuMicros().forEach((group, micros) -> perItem.put(group, (double) micros / items));
    c.put("thread_cpu_us_per_item", perItem);
    c.put("jit_ms", CpuUse.jitMillis() - jitBefore);
    c.put("gc_ms", CpuUse.gcMillis() - gcBefore);
    c.put("failed_attempts", o.failed());
    c.put("saturated", o.saturated());
    c.put("loadavg_end", LoadAvg.now());
    return List.of(
        BenchResult.atLeast("throughput_single.register_to_confirmed", o.itemsPerSecond(), "items/s", 12_000,
            REGISTER_THREADS + " threads, one register(id, path) per file; first register to last confirm", c),
        BenchResult.atMost("throughput_single.cpu_us_per_item", cpuNanos / 1e3 / items, "us", 25,
            "JVM CPU time of the measured run / items (PostgreSQL's processes not counted)", c));
  }

  private static LiveRun.Outcome runOnce(BenchEnv env, Path root, List<Path> files, String label) throws Exception {
    try (BenchEnv.Database db = env.newDatabase("single", POOL)) {
      return LiveRun.run(Ledger.builder()
          .stateStore(db.store())
          .objectSink(new DiscardingSink())
          .allowedRoot(root)
          .workers(WORKERS)
          .queueCapacity(files.size()), files, "one-" + label, REGISTER_THREADS, 1, Duration.ofMinutes(10));
    }
  }
}
