package dev.segmentledger.benchmarks;

import dev.segmentledger.core.Ledger;
import dev.segmentledger.testkit.FakeObjectSink;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;

/**
 * Measure 1: items/s from register to confirmed on real PostgreSQL with a zero-latency sink
 * (FakeObjectSink). The queue holds every item, so the number is the pipeline's (register,
 * upload, confirm), not the sweeper's refill pace.
 */
final class ThroughputMeasure implements Measure {
  static final int WORKERS = 4;
  static final int REGISTER_THREADS = 2;
  static final int FILE_SIZE = 1024;

  @Override
  public String name() {
    return "throughput";
  }

  @Override
  public List<BenchResult> run(BenchEnv env) throws Exception {
    int items = env.size(500, 20_000);
    Path root = env.newDir("throughput");
    List<Path> files = MediaFiles.write(root.resolve("rec"), items, FILE_SIZE);
    // A warm-up run (JIT, pool, plans) on its own schema, then the measured run.
    runOnce(env, root, files.subList(0, Math.min(items, 1_000)), "warmup");
    LiveRun.Outcome o = runOnce(env, root, files, "measured");
    Map<String, Object> c = env.conditions();
    c.put("rows", items);
    c.put("file_bytes", FILE_SIZE);
    c.put("workers", WORKERS);
    c.put("register_threads", REGISTER_THREADS);
    c.put("queue_capacity", items);
    c.put("pool_size", WORKERS + REGISTER_THREADS + 2);
    c.put("sink", "FakeObjectSink (in memory, zero latency)");
    c.put("register_only_items_per_s", o.registerPerSecond());
    c.put("failed_attempts", o.failed());
    c.put("saturated", o.saturated());
    return List.of(BenchResult.atLeast("throughput.register_to_confirmed", o.itemsPerSecond(), "items/s", 10_000,
        "first register to last confirm; no batching in the engine: each item costs its own INSERT transaction"
            + " and its own confirm UPDATE", c));
  }

  private static LiveRun.Outcome runOnce(BenchEnv env, Path root, List<Path> files, String label) throws Exception {
    try (BenchEnv.Database db = env.newDatabase("throughput", WORKERS + REGISTER_THREADS + 2)) {
      return LiveRun.run(Ledger.builder()
          .stateStore(db.store())
          .objectSink(new FakeObjectSink())
          .allowedRoot(root)
          .workers(WORKERS)
          .queueCapacity(files.size()), files, "tp-" + label, REGISTER_THREADS, Duration.ofMinutes(10));
    }
  }
}
