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
 * Latency from register to confirmed at a steady offered rate. A pacing thread hands item i to a
 * registering pool at start + i/rate; the latency of an item runs from that scheduled instant (so
 * a stalled registration counts against the ledger, no coordinated omission) to its onConfirmed
 * event. FakeObjectSink, real (durable) PostgreSQL. Three scenarios, each a measure: 1,000/s
 * ({@code latency}), 5,000/s ({@code latency_5000}) and 1,000/s while a {@link BackgroundWriter}
 * puts 50 MB/s of media files on the same disk as PostgreSQL's data ({@code latency_disk}).
 */
final class LatencyMeasure implements Measure {
  static final int REGISTER_THREADS = 16;
  static final long BACKGROUND_BYTES_PER_S = 50_000_000L;
  private final String name;
  private final int rate;
  private final double goalP99;
  private final long backgroundBytesPerSecond;

  private LatencyMeasure(String name, int rate, double goalP99, long backgroundBytesPerSecond) {
    this.name = name;
    this.rate = rate;
    this.goalP99 = goalP99;
    this.backgroundBytesPerSecond = backgroundBytesPerSecond;
  }

  static LatencyMeasure at1000() {
    return new LatencyMeasure("latency", 1_000, 5, 0);
  }

  static LatencyMeasure at5000() {
    return new LatencyMeasure("latency_5000", 5_000, 20, 0);
  }

  static LatencyMeasure at1000WithDiskWriter() {
    return new LatencyMeasure("latency_disk", 1_000, 20, BACKGROUND_BYTES_PER_S);
  }

  @Override
  public String name() {
    return name;
  }

  @Override
  public List<BenchResult> run(BenchEnv env) throws Exception {
    // Smoke mode checks the harness, not the goal: a tenth of the rate keeps it short on a busy machine.
    int rate = env.size(Math.max(100, this.rate / 10), this.rate);
    int seconds = env.size(2, 20);
    // The first seconds at the same rate warm the JIT, the pool and the plans, and are not counted:
    // a cold JVM registers its first items through the interpreter, builds a backlog and reports
    // that, not the ledger's steady latency.
    int warmupSeconds = env.size(1, 10);
    int counted = rate * seconds;
    int warmup = rate * warmupSeconds;
    int items = warmup + counted;
    Path root = env.newDir(name);
    List<Path> files = MediaFiles.write(root.resolve("rec"), items, 1024);
    long[] scheduled = new long[items];
    long[] entered = new long[items];
    long[] registered = new long[items];
    AtomicInteger failed = new AtomicInteger();
    ConfirmTracker tracker = new ConfirmTracker(items).withStages();
    String loadStart = LoadAvg.now();
    long cpuBefore = CpuUse.processNanos();
    BackgroundWriter writer = backgroundBytesPerSecond > 0
        ? new BackgroundWriter(root.resolve("background-recorder"), backgroundBytesPerSecond).start() : null;
    double writerBytesPerSecond;
    try (BenchEnv.Database db = env.newDatabase("latency", REGISTER_THREADS + 6);
        Ledger ledger = Ledger.builder().stateStore(db.store()).objectSink(new FakeObjectSink())
            .allowedRoot(root).listener(tracker).build()) {
      ledger.start();
      ExecutorService pool = Executors.newFixedThreadPool(REGISTER_THREADS);
      long start = System.nanoTime() + 50_000_000L;
      for (int i = 0; i < items; i++) {
        scheduled[i] = start + i * 1_000_000_000L / rate;
        long wait = scheduled[i] - System.nanoTime();
        if (wait > 0) {
          LockSupport.parkNanos(wait);
        }
        int n = i;
        pool.execute(() -> {
          entered[n] = System.nanoTime();
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
    } finally {
      if (writer != null) {
        writer.close();
      }
    }
    writerBytesPerSecond = writer == null ? 0 : writer.achievedBytesPerSecond();
    // Where the CPU went: this JVM over the whole run (warm-up included; the background writer's
    // thread too), and the ledger's own threads by group.
    double cpuPerItem = (CpuUse.processNanos() - cpuBefore) / 1e3 / items;
    double[] millis = new double[counted];
    for (int i = 0; i < counted; i++) {
      millis[i] = (tracker.confirmedAt(warmup + i) - scheduled[warmup + i]) / 1e6;
    }
    Arrays.sort(millis);
    double[] registerMillis = new double[counted];
    for (int i = 0; i < counted; i++) {
      registerMillis[i] = (registered[warmup + i] - scheduled[warmup + i]) / 1e6;
    }
    Arrays.sort(registerMillis);
    Map<String, Object> c = env.conditions();
    c.put("loadavg_start", loadStart);
    c.put("rows", counted);
    c.put("rate_per_s", rate);
    c.put("duration_s", seconds);
    c.put("warmup_s_not_counted", warmupSeconds);
    c.put("register_threads", REGISTER_THREADS);
    c.put("ledger", "workers 4, queue 256 (defaults), FakeObjectSink");
    c.put("p999_ms", percentile(millis, 0.999));
    c.put("max_ms", millis[counted - 1]);
    c.put("saturated", tracker.saturated());
    c.put("register_p50_ms", percentile(registerMillis, 0.50));
    c.put("register_p99_ms", percentile(registerMillis, 0.99));
    if (writer != null) {
      c.put("background_writer", "segments of " + BackgroundWriter.SEGMENT_BYTES / (1024 * 1024) + " MiB in 1 MiB"
          + " writes paced to " + backgroundBytesPerSecond / 1_000_000 + " MB/s, each fsync'd and renamed, in the"
          + " suite's work directory (same disk as PostgreSQL's data directory when embedded)");
      c.put("background_writer_mb_per_s_achieved", writerBytesPerSecond / 1e6);
    }
    stages(c, warmup, counted, scheduled, entered, registered, tracker);
    c.put("jvm_cpu_us_per_item", cpuPerItem);
    c.put("loadavg_end", LoadAvg.now());
    String what = "scheduled instant -> onConfirmed at " + rate + " items/s"
        + (writer == null ? "" : ", " + backgroundBytesPerSecond / 1_000_000 + " MB/s of media written meanwhile");
    return List.of(
        BenchResult.info(name + ".p50", percentile(millis, 0.50), "ms", what, c),
        BenchResult.atMost(name + ".p99", percentile(millis, 0.99), "ms", goalP99, what, c));
  }

  /**
   * Where an item's latency went, stage by stage (p50/p99 of each, ms): waiting for a registering
   * thread; register() until the row was committed and offered (onAccepted); offered until the sink
   * stored it (queue wait, worker's checks, PUT: onStored); stored until confirmed (the confirm
   * group commit: onConfirmed); and register() returning after the offer.
   */
  private static void stages(Map<String, Object> c, int warmup, int counted, long[] scheduled, long[] entered,
      long[] registered, ConfirmTracker tracker) {
    double[][] stage = new double[5][counted];
    for (int i = 0; i < counted; i++) {
      int n = warmup + i;
      long accepted = tracker.acceptedAt(n);
      long stored = tracker.storedAt(n);
      long confirmed = tracker.confirmedAt(n);
      stage[0][i] = (entered[n] - scheduled[n]) / 1e6;
      stage[1][i] = (accepted - entered[n]) / 1e6;
      stage[2][i] = (stored - accepted) / 1e6;
      stage[3][i] = (confirmed - stored) / 1e6;
      stage[4][i] = (registered[n] - accepted) / 1e6;
    }
    String[] names = {"stage_scheduled_to_register_call", "stage_register_to_offered", "stage_offered_to_stored",
        "stage_stored_to_confirmed", "stage_offered_to_register_return"};
    for (int s = 0; s < names.length; s++) {
      Arrays.sort(stage[s]);
      c.put(names[s] + "_ms", String.format(java.util.Locale.ROOT, "p50 %.2f, p99 %.2f, max %.2f",
          percentile(stage[s], 0.50), percentile(stage[s], 0.99), stage[s][counted - 1]));
    }
  }

  static double percentile(double[] sorted, double p) {
    int index = (int) Math.ceil(p * sorted.length) - 1;
    return sorted[Math.max(0, Math.min(sorted.length - 1, index))];
  }
}
