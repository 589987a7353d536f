package dev.segmentledger.benchmarks;

import dev.segmentledger.core.ItemId;
import dev.segmentledger.rig.PlaylistPutLog;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicIntegerArray;
import java.util.concurrent.atomic.AtomicLong;

/**
 * {@code many_broadcasts}: B live broadcasts at once, each of 3 renditions, each registering one
 * segment (a sequence of its 3 renditions) every 2 s at real time, their starts spread evenly over
 * the first 2 s; registered by {@value #RECORDER_THREADS} threads ({@link BroadcastRig}: durable
 * PostgreSQL, S3 server in its own process, FakeRepackager; the ledger's defaults, 4 workers).
 * After a warm-up (a quarter of the run, at most 20 s), until the registrations stop: publication
 * lag p50/p99 of each segment as it is the newest of its rendition (confirm of its PLAYBACK row to
 * the first playlist PUT listing it; segments still unlisted 2 minutes after the registrations
 * stopped are counted, not guessed), PostgreSQL's CPU per segment, playlist PUTs per second, rows
 * read and playlist bytes per segment. A segment is one sequence of one broadcast (3 PLAYBACK rows).
 *
 * <p>Sizes: {@code -Dbench.many_broadcasts.broadcasts} (default 1,000; smoke 5) and
 * {@code -Dbench.many_broadcasts.seconds} (default 120; smoke 12).
 */
final class ManyBroadcastsMeasure implements Measure {
  static final String NAME = "many_broadcasts";
  static final List<String> RENDITIONS = LongBroadcastMeasure.RENDITIONS;
  private static final int RECORDER_THREADS = 4;
  private static final int WORKERS = 4;
  private static final Duration SEGMENT = Duration.ofSeconds(2);
  private static final Duration DRAIN = Duration.ofMinutes(2);

  @Override
  public String name() {
    return NAME;
  }

  @Override
  public List<BenchResult> run(BenchEnv env) throws Exception {
    int broadcasts = Integer.getInteger("bench.many_broadcasts.broadcasts", env.smoke() ? 5 : 1_000);
    int seconds = Integer.getInteger("bench.many_broadcasts.seconds", env.smoke() ? 12 : 120);
    Duration warmUp = Duration.ofSeconds(Math.min(20, seconds / 4));
    Duration run = Duration.ofSeconds(seconds);
    Map<String, Object> c = env.conditions();
    AtomicIntegerArray next = new AtomicIntegerArray(broadcasts);
    AtomicBoolean recording = new AtomicBoolean(true);
    AtomicLong registerFailures = new AtomicLong();
    AtomicLong lateTicks = new AtomicLong();
    int[] first = new int[broadcasts];
    int[] last = new int[broadcasts];
    long measuredNanos;
    long segmentsMeasured = 0;
    double rowsPerSegment;
    double bytesPerSegment;
    double putsPerSecond;
    double jvmCpuPerSegment;
    double serverCpuPerSegment;
    List<Double> lags = new ArrayList<>();
    long unlisted = 0;
    try (BroadcastRig rig = BroadcastRig.start(env, NAME, WORKERS + RECORDER_THREADS + 4, b -> b.workers(WORKERS))) {
      ScheduledExecutorService recorders = Executors.newScheduledThreadPool(RECORDER_THREADS);
      List<ScheduledFuture<?>> ticks = new ArrayList<>();
      long t0 = System.nanoTime();
      for (int i = 0; i < broadcasts; i++) {
        int broadcast = i;
        long offset = SEGMENT.toNanos() * i / broadcasts;
        ticks.add(recorders.scheduleAtFixedRate(() -> {
          if (!recording.get()) {
            return;
          }
          int sequence = next.get(broadcast);
          long due = t0 + offset + sequence * SEGMENT.toNanos();
          if (System.nanoTime() - due > SEGMENT.toNanos() / 2) {
            lateTicks.incrementAndGet();
          }
          try {
            for (String rendition : RENDITIONS) {
              rig.register(ItemId.original(id(broadcast), rendition, sequence));
            }
          } catch (Exception | Error e) {
            registerFailures.incrementAndGet();
          }
          next.set(broadcast, sequence + 1);
        }, offset, SEGMENT.toNanos(), TimeUnit.NANOSECONDS));
      }
      TimeUnit.NANOSECONDS.sleep(warmUp.toNanos()); // the recorders' real time, not a wait for an outcome
      for (int i = 0; i < broadcasts; i++) {
        first[i] = next.get(i);
      }
      long rows0 = rig.rowsRead();
      long bytes0 = rig.bucket().playlistBytes();
      long puts0 = rig.bucket().playlistPuts();
      long jvm0 = CpuUse.processNanos();
      long server0 = env.serverCpuNanos();
      long measuring = System.nanoTime();
      TimeUnit.NANOSECONDS.sleep(Math.max(0, t0 + run.toNanos() - System.nanoTime()));
      recording.set(false);
      for (int i = 0; i < broadcasts; i++) {
        last[i] = next.get(i);
      }
      measuredNanos = System.nanoTime() - measuring;
      long puts1 = rig.bucket().playlistPuts();
      long bytes1 = rig.bucket().playlistBytes();
      long jvm1 = CpuUse.processNanos();
      long server1 = env.serverCpuNanos();
      long rows1 = rig.rowsRead();
      ticks.forEach(t -> t.cancel(false));
      recorders.shutdown();
      recorders.awaitTermination(1, TimeUnit.MINUTES);
      for (int i = 0; i < broadcasts; i++) {
        segmentsMeasured += last[i] - first[i];
      }
      rowsPerSegment = (double) (rows1 - rows0) / segmentsMeasured;
      bytesPerSegment = (double) (bytes1 - bytes0) / segmentsMeasured;
      putsPerSecond = (puts1 - puts0) / (measuredNanos / 1e9);
      jvmCpuPerSegment = (jvm1 - jvm0) / 1e3 / segmentsMeasured;
      serverCpuPerSegment = server0 < 0 ? Double.NaN : (server1 - server0) / 1e3 / segmentsMeasured;
      long drainDeadline = System.nanoTime() + DRAIN.toNanos();
      PlaylistPutLog bucket = rig.bucket();
      for (int i = 0; i < broadcasts; i++) {
        for (int sequence = first[i]; sequence < last[i]; sequence++) {
          for (String rendition : RENDITIONS) {
            try {
              bucket.awaitListed(id(i), rendition, sequence, Duration.ofNanos(Math.max(1,
                  drainDeadline - System.nanoTime())));
            } catch (AssertionError e) {
              unlisted++;
            }
          }
        }
      }
      for (int i = 0; i < broadcasts; i++) { // once all are listed: a live window's PUT is preferred
        for (int sequence = first[i]; sequence < last[i]; sequence++) {
          for (String rendition : RENDITIONS) {
            bucket.lagNanos(id(i), rendition, sequence).ifPresent(n -> lags.add(n / 1e6));
          }
        }
      }
      rig.describe(c);
      c.put("broadcast_playlists_by_file_name", LongBroadcastMeasure.describe(bucket.byFileName()));
      c.put("first_listings_by_file_name", bucket.firstListingsByFileName().toString());
    }
    c.put("broadcasts", broadcasts);
    c.put("renditions", RENDITIONS);
    c.put("segment", "one sequence of one broadcast (3 PLAYBACK rows), registered every 2 s per broadcast");
    c.put("recorder_threads", RECORDER_THREADS);
    c.put("workers", WORKERS);
    c.put("sweep_interval_ms", 1000);
    c.put("run_s", seconds);
    c.put("warm_up_s", warmUp.toSeconds());
    c.put("measured_s", measuredNanos / 1e9);
    c.put("segments_measured", segmentsMeasured);
    c.put("segments_expected", (long) (broadcasts * (measuredNanos / (double) SEGMENT.toNanos())));
    c.put("late_ticks", lateTicks.get());
    c.put("register_failures", registerFailures.get());
    c.put("unlisted_after_drain", unlisted);
    double[] sorted = lags.stream().mapToDouble(Double::doubleValue).sorted().toArray();
    double p50 = sorted.length == 0 ? Double.NaN : LatencyMeasure.percentile(sorted, 0.50);
    double p99 = sorted.length == 0 ? Double.NaN : LatencyMeasure.percentile(sorted, 0.99);
    List<BenchResult> results = new ArrayList<>();
    String of = String.format(Locale.ROOT, " (%d broadcasts x %d renditions, %d segments measured)", broadcasts,
        RENDITIONS.size(), segmentsMeasured);
    results.add(BenchResult.info(NAME + ".publication_lag_p50_ms", p50, "ms",
        "confirm of the newest PLAYBACK row of a rendition to the first playlist PUT listing it" + of, c));
    results.add(BenchResult.info(NAME + ".publication_lag_p99_ms", p99, "ms", "as p50" + of, c));
    results.add(BenchResult.atMost(NAME + ".unlisted_segments", unlisted, "rows",
        0, "PLAYBACK rows of the measured segments no playlist listed " + DRAIN.toSeconds()
            + " s after the registrations stopped", c));
    results.add(BenchResult.info(NAME + ".postgres_cpu_us_per_segment", serverCpuPerSegment, "µs",
        "PostgreSQL's CPU (ServerCpu) per segment" + of, c));
    results.add(BenchResult.info(NAME + ".playlist_puts_per_s", putsPerSecond, "PUT/s", ".m3u8 PUTs per second" + of,
        c));
    results.add(BenchResult.info(NAME + ".playlist_bytes_per_segment", bytesPerSegment, "B",
        ".m3u8 PUT bytes per segment" + of, c));
    results.add(BenchResult.info(NAME + ".rows_read_per_segment", rowsPerSegment, "rows",
        "rows read from the ledger's tables per segment" + of, c));
    results.add(BenchResult.info(NAME + ".jvm_cpu_us_per_segment", jvmCpuPerSegment, "µs",
        "this JVM's CPU per segment (ledger, S3 client, the recorders' file writes and registers)" + of, c));
    return results;
  }

  private static String id(int broadcast) {
    return "b" + broadcast;
  }
}
