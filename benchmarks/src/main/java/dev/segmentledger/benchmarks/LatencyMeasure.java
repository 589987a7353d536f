package dev.segmentledger.benchmarks;

import dev.segmentledger.core.ItemId;
import dev.segmentledger.core.Ledger;
import dev.segmentledger.testkit.FakeObjectSink;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.locks.LockSupport;

/**
 * Measure 5: latency from register to confirmed at a steady offered rate. A pacing thread hands
 * item i to a registering pool at start + i/rate; the latency of an item runs from that scheduled
 * instant (so a stalled registration counts against the ledger, no coordinated omission) to its
 * onConfirmed event. FakeObjectSink, real PostgreSQL.
 */
final class LatencyMeasure implements Measure {
  static final int RATE = 1_000;
  static final int REGISTER_THREADS = 4;

  @Override
  public String name() {
    return "latency";
  }

  @Override
  public List<BenchResult> run(BenchEnv env) throws Exception {
    int seconds = env.size(2, 20);
    // The first seconds at the same rate warm the JIT, the pool and the plans, and are not counted:
    // a cold JVM registers its first items through the interpreter, builds a backlog and reports
    // that, not the ledger's steady latency.
    int warmupSeconds = env.size(1, 10);
    int counted = RATE * seconds;
    int warmup = RATE * warmupSeconds;
    int items = warmup + counted;
    Path root = env.newDir("latency");
    List<Path> files = MediaFiles.write(root.resolve("rec"), items, 1024);
    long[] scheduled = new long[items];
    long[] registered = new long[items];
    AtomicInteger failed = new AtomicInteger();
    ConfirmTracker tracker = new ConfirmTracker(items);
    try (BenchEnv.Database db = env.newDatabase("latency", 10);
        Ledger ledger = Ledger.builder().stateStore(db.store()).objectSink(new FakeObjectSink())
            .allowedRoot(root).listener(tracker).build()) {
      ledger.start();
      ExecutorService pool = Executors.newFixedThreadPool(REGISTER_THREADS);
      long start = System.nanoTime() + 50_000_000L;
      for (int i = 0; i < items; i++) {
        scheduled[i] = start + i * 1_000_000_000L / RATE;
        long wait = scheduled[i] - System.nanoTime();
        if (wait > 0) {
          LockSupport.parkNanos(wait);
        }
        int n = i;
        pool.execute(() -> {
          try {
            ledger.register(ItemId.original("lat", "720p", n), files.get(n));
            registered[n] = System.nanoTime();
          } catch (RuntimeException e) {
            failed.incrementAndGet();
          }
        });
      }
      pool.shutdown();
      if (!pool.awaitTermination(5, TimeUnit.MINUTES) || failed.get() > 0) {
        throw new IllegalStateException(failed.get() + " registrations failed, or they did not end in 5 minutes");
      }
      tracker.await(Duration.ofMinutes(5));
    }
    double[] millis = new double[counted];
    for (int i = 0; i < counted; i++) {
      millis[i] = (tracker.confirmedAt(ItemId.original("lat", "720p", warmup + i)) - scheduled[warmup + i]) / 1e6;
    }
    Arrays.sort(millis);
    double[] registerMillis = new double[counted];
    for (int i = 0; i < counted; i++) {
      registerMillis[i] = (registered[warmup + i] - scheduled[warmup + i]) / 1e6;
    }
    Arrays.sort(registerMillis);
    Map<String, Object> c = env.conditions();
    c.put("rows", counted);
    c.put("rate_per_s", RATE);
    c.put("duration_s", seconds);
    c.put("warmup_s_not_counted", warmupSeconds);
    c.put("register_threads", REGISTER_THREADS);
    c.put("ledger", "workers 4, queue 256 (defaults), FakeObjectSink");
    c.put("p999_ms", percentile(millis, 0.999));
    c.put("max_ms", millis[counted - 1]);
    c.put("saturated", tracker.saturated());
    c.put("register_p50_ms", percentile(registerMillis, 0.50));
    c.put("register_p99_ms", percentile(registerMillis, 0.99));
    return List.of(
        BenchResult.info("latency.p50", percentile(millis, 0.50), "ms", "register -> onConfirmed at "
            + RATE + " items/s", c),
        BenchResult.atMost("latency.p99", percentile(millis, 0.99), "ms", 20, "register -> onConfirmed at "
            + RATE + " items/s", c));
  }

  static double percentile(double[] sorted, double p) {
    int index = (int) Math.ceil(p * sorted.length) - 1;
    return sorted[Math.max(0, Math.min(sorted.length - 1, index))];
  }
}
