package dev.segmentledger.benchmarks;

import dev.segmentledger.core.Ledger;
import dev.segmentledger.core.LedgerBuilder;
import java.lang.management.ManagementFactory;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;

/**
 * Measure 4: heap used (after full GCs) by a running ledger over a table of N unconfirmed rows,
 * minus the same for an idle ledger over an empty table, in the same JVM. The rows are
 * bulk-inserted PENDING and due, all pointing at one real file of the registered size, and the
 * ledger works through them (DiscardingSink, constant memory) while the heap is sampled.
 */
final class MemoryMeasure implements Measure {
  static final int FILE_SIZE = 1024;

  @Override
  public String name() {
    return "memory";
  }

  @Override
  public List<BenchResult> run(BenchEnv env) throws Exception {
    int rows = env.size(20_000, 1_000_000);
    Duration window = Duration.ofSeconds(env.size(3, 30));
    Path root = env.newDir("memory");
    Path file = MediaFiles.write(root.resolve("rec"), 1, FILE_SIZE).get(0);
    long idle;
    try (BenchEnv.Database db = env.newDatabase("memory_idle", 6); Ledger ledger = ledger(db, root).build()) {
      ledger.start();
      idle = sampleMax(window.dividedBy(3));
    }
    long peak;
    long confirmed;
    try (BenchEnv.Database db = env.newDatabase("memory_full", 6)) {
      db.jdbi().useHandle(h -> {
        h.execute("INSERT INTO segment_ledger_item (broadcast_id, axis, rendition, sequence, source_path,"
            + " size_bytes, state, registered_at, next_attempt_at) SELECT 'mem' || (g / 10000), 'ORIGINAL', '720p', g,"
            + " ?, ?, 'PENDING', now() - interval '1 minute', now() - interval '1 minute'"
            + " FROM generate_series(1, ?) g", file.toString(), FILE_SIZE, rows);
        h.execute("VACUUM ANALYZE segment_ledger_item");
      });
      try (Ledger ledger = ledger(db, root).build()) {
        ledger.start();
        peak = sampleMax(window);
      }
      confirmed = db.count("state = 'CONFIRMED'");
    }
    double growthMib = (peak - idle) / (1024.0 * 1024.0);
    Map<String, Object> c = env.conditions();
    c.put("rows", rows);
    c.put("window_s", window.toSeconds());
    c.put("idle_heap_mib", idle / (1024.0 * 1024.0));
    c.put("running_heap_max_mib", peak / (1024.0 * 1024.0));
    c.put("rows_confirmed_during_window", confirmed);
    c.put("ledger", "workers 4, queue 256, batch 128, sweep interval 50 ms, DiscardingSink");
    return List.of(BenchResult.atMost("memory.heap_growth_" + rows + "_unconfirmed", growthMib, "MiB", 32,
        "max heap used after GC while running over " + rows + " unconfirmed rows, minus an idle ledger", c));
  }

  private static LedgerBuilder ledger(BenchEnv.Database db, Path root) {
    return Ledger.builder().stateStore(db.store()).objectSink(new DiscardingSink()).allowedRoot(root)
        .sweepInterval(Duration.ofMillis(50));
  }

  /** The largest heap-used-after-GC seen in samples taken once a second over {@code window}. */
  private static long sampleMax(Duration window) throws InterruptedException {
    long end = System.nanoTime() + window.toNanos();
    long max = 0;
    do {
      Thread.sleep(1_000);
      max = Math.max(max, usedAfterGc());
    } while (System.nanoTime() < end);
    return max;
  }

  static long usedAfterGc() {
    System.gc();
    System.gc();
    return ManagementFactory.getMemoryMXBean().getHeapMemoryUsage().getUsed();
  }
}
