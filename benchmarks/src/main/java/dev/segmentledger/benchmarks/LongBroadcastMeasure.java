package dev.segmentledger.benchmarks;

import dev.segmentledger.core.ItemId;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * {@code long_broadcast}: what a new segment costs at the start of a long live broadcast and at its
 * end. One broadcast of 3 renditions ({@link BroadcastRig}: durable PostgreSQL, S3 server in its own
 * process, FakeRepackager), at compressed time: sequence {@code n} of the three renditions is
 * registered once a playlist of each rendition lists sequence {@code n - 1}, so every segment gets
 * publications of its own, as at real time, where a 2 s segment lasts far longer than its
 * publication. Per segment (one sequence, 3 renditions) in a window at the start and one at the end:
 * rows read from the ledger's tables (PostgreSQL's statistics), playlist PUT bytes and count, this
 * JVM's CPU (ledger, S3 client and the harness's own registering), PostgreSQL's CPU, wall time, and
 * the publication lag p50/p99 (confirm to the first playlist PUT listing the segment).
 *
 * <p>An untimed warm-up broadcast first, on a schema and bucket of its own
 * ({@code -Dbench.long_broadcast.warm_up_segments}, default 200; smoke 10), so that the start window
 * is not measured on a cold JVM. Sizes: {@code -Dbench.long_broadcast.segments} (default 21,600, 12
 * hours of 2 s segments; smoke 60); {@code -Dbench.long_broadcast.sweep_interval_ms} (default 1000, the ledger's default: a confirm
 * nudges a playlist round after a quarter of it).
 */
final class LongBroadcastMeasure implements Measure {
  static final String NAME = "long_broadcast";
  static final List<String> RENDITIONS = List.of("1080p", "720p", "360p");
  private static final String BROADCAST = "long";
  private static final int WORKERS = 4;

  @Override
  public String name() {
    return NAME;
  }

  @Override
  public List<BenchResult> run(BenchEnv env) throws Exception {
    int segments = Integer.getInteger("bench.long_broadcast.segments", env.smoke() ? 60 : 21_600);
    Duration sweep = Duration.ofMillis(Long.getLong("bench.long_broadcast.sweep_interval_ms", 1_000));
    int window = Math.max(5, Math.min(100, segments / 4));
    int startFrom = window / 2;
    int endFrom = segments - window;
    if (endFrom < startFrom + window) {
      throw new IllegalArgumentException("too few segments for two windows of " + window + ": " + segments);
    }
    int warmUp = Integer.getInteger("bench.long_broadcast.warm_up_segments", env.smoke() ? 10 : 200);
    long warmUpStart = System.nanoTime();
    if (warmUp > 0) { // JIT and S3 server warm, so that the start window is not a cold JVM's
      try (BroadcastRig rig = BroadcastRig.start(env, NAME + "_warm", WORKERS + 4,
          b -> b.workers(WORKERS).sweepInterval(sweep))) {
        for (int sequence = 0; sequence < warmUp; sequence++) {
          for (String rendition : RENDITIONS) {
            rig.register(ItemId.original(BROADCAST, rendition, sequence));
          }
          for (String rendition : RENDITIONS) {
            rig.bucket().awaitListed(BROADCAST, rendition, sequence, Duration.ofMinutes(2));
          }
        }
      }
    }
    double warmUpSeconds = (System.nanoTime() - warmUpStart) / 1e9;
    long started = System.nanoTime();
    Map<String, Object> c = env.conditions();
    List<Window> windows = new ArrayList<>();
    long[] lags = new long[segments * RENDITIONS.size()];
    try (BroadcastRig rig = BroadcastRig.start(env, NAME, WORKERS + 4,
        b -> b.workers(WORKERS).sweepInterval(sweep))) {
      Mark from = null;
      for (int sequence = 0; sequence < segments; sequence++) {
        if (sequence == startFrom || sequence == endFrom) {
          from = Mark.take(sequence, rig, env, true);
        }
        for (String rendition : RENDITIONS) {
          rig.register(ItemId.original(BROADCAST, rendition, sequence));
        }
        for (String rendition : RENDITIONS) {
          rig.bucket().awaitListed(BROADCAST, rendition, sequence, Duration.ofMinutes(2));
        }
        if (sequence + 1 == startFrom + window || sequence + 1 == segments) {
          windows.add(new Window(from, Mark.take(sequence + 1, rig, env, false), lags));
        }
        if (sequence % 500 == 499) {
          System.out.printf(Locale.ROOT, "[bench]   long_broadcast: %d segments in %.0f s%n", sequence + 1,
              (System.nanoTime() - started) / 1e9);
        }
      }
      for (int sequence = 0; sequence < segments; sequence++) { // once done: a live window's PUT is preferred
        for (int r = 0; r < RENDITIONS.size(); r++) {
          lags[sequence * RENDITIONS.size() + r] = rig.bucket().lagNanos(BROADCAST, RENDITIONS.get(r), sequence)
              .orElse(-1L);
        }
      }
      rig.describe(c);
      c.put("broadcast_playlists_by_file_name", describe(rig.bucket().byFileName()));
      c.put("first_listings_by_file_name", rig.bucket().firstListingsByFileName().toString());
    }
    Window start = windows.get(0);
    Window end = windows.get(1);
    c.put("segments", segments);
    c.put("renditions", RENDITIONS);
    c.put("segment", "one sequence of every rendition (3 PLAYBACK rows)");
    c.put("pace", "compressed: the next sequence is registered once a playlist of each rendition lists this one");
    c.put("workers", WORKERS);
    c.put("sweep_interval_ms", sweep.toMillis());
    c.put("window_start", start.describe());
    c.put("window_end", end.describe());
    c.put("elapsed_s", (System.nanoTime() - started) / 1e9);
    c.put("warm_up", warmUp + " segments of another broadcast on a schema and bucket of their own, not counted, "
        + String.format(Locale.ROOT, "%.1f s", warmUpSeconds));
    String startRange = " (segments " + start.from.sequence + "-" + start.to.sequence + ")";
    String endRange = " (segments " + end.from.sequence + "-" + end.to.sequence + ")";
    List<BenchResult> results = new ArrayList<>();
    results.add(BenchResult.info(NAME + ".rows_read_per_segment.start", start.rowsPerSegment(), "rows",
        "rows read from the ledger's tables per segment" + startRange, c));
    results.add(BenchResult.info(NAME + ".rows_read_per_segment.end", end.rowsPerSegment(), "rows",
        "rows read from the ledger's tables per segment" + endRange, c));
    results.add(BenchResult.atMost(NAME + ".rows_read_ratio_end_to_start", end.rowsPerSegment()
        / start.rowsPerSegment(), "x", 2, "rows read per segment at the end ÷ at the start, same run", c));
    results.add(BenchResult.info(NAME + ".playlist_bytes_per_segment.start", start.bytesPerSegment(), "B",
        String.format(Locale.ROOT, "bytes of .m3u8 PUTs per segment, %.2f PUTs", start.putsPerSegment()) + startRange,
        c));
    results.add(BenchResult.info(NAME + ".playlist_bytes_per_segment.end", end.bytesPerSegment(), "B",
        String.format(Locale.ROOT, "bytes of .m3u8 PUTs per segment, %.2f PUTs", end.putsPerSegment()) + endRange, c));
    results.add(BenchResult.info(NAME + ".playlist_bytes_ratio_end_to_start", end.bytesPerSegment()
        / start.bytesPerSegment(), "x", "playlist bytes per segment at the end ÷ at the start", c));
    results.add(BenchResult.info(NAME + ".jvm_cpu_us_per_segment.start", start.jvmCpuMicrosPerSegment(), "µs",
        "this JVM's CPU per segment (ledger, S3 client, the harness's file writes and registers)" + startRange, c));
    results.add(BenchResult.info(NAME + ".jvm_cpu_us_per_segment.end", end.jvmCpuMicrosPerSegment(), "µs",
        "this JVM's CPU per segment" + endRange, c));
    results.add(BenchResult.info(NAME + ".postgres_cpu_us_per_segment.start", start.serverCpuMicrosPerSegment(), "µs",
        "PostgreSQL's CPU per segment (ServerCpu; n/a for a remote server)" + startRange, c));
    results.add(BenchResult.info(NAME + ".postgres_cpu_us_per_segment.end", end.serverCpuMicrosPerSegment(), "µs",
        "PostgreSQL's CPU per segment" + endRange, c));
    for (Window w : List.of(start, end)) {
      String at = w == start ? "start" : "end";
      String range = w == start ? startRange : endRange;
      results.add(BenchResult.info(NAME + ".publication_lag_p50_ms." + at, w.lagMillis(0.50), "ms",
          "confirm of a PLAYBACK row to the first playlist PUT listing it, all renditions" + range, c));
      results.add(BenchResult.info(NAME + ".publication_lag_p99_ms." + at, w.lagMillis(0.99), "ms",
          "as p50" + range, c));
    }
    return results;
  }

  static String describe(Map<String, long[]> byName) {
    StringBuilder s = new StringBuilder();
    byName.forEach((name, counts) -> s.append(name).append(": ").append(counts[1]).append(" PUTs, ")
        .append(counts[0]).append(" B; "));
    return s.toString().strip();
  }

  /**
   * The counters before a segment, taken while the ledger is idle (the previous segment is listed).
   * The rows are settled before the CPU and clock readings of a window's start and after those of
   * its end, so the windows' CPU and time leave out the settling itself (the pool's fresh
   * connections, opened meanwhile, stay in).
   */
  private record Mark(int sequence, long rowsRead, long playlistBytes, long playlistPuts, long jvmCpuNanos,
      long serverCpuNanos, long nanos) {
    static Mark take(int sequence, BroadcastRig rig, BenchEnv env, boolean windowStart) throws Exception {
      long rows = windowStart ? rig.rowsRead() : -1;
      long serverCpu = env.serverCpuNanos();
      long jvmCpu = CpuUse.processNanos();
      long nanos = System.nanoTime();
      if (!windowStart) {
        rows = rig.rowsRead();
      }
      return new Mark(sequence, rows, rig.bucket().playlistBytes(), rig.bucket().playlistPuts(), jvmCpu, serverCpu,
          nanos);
    }
  }

  /** The segments from one mark to the next. */
  private record Window(Mark from, Mark to, long[] allLags) {
    int segments() {
      return to.sequence - from.sequence;
    }

    double rowsPerSegment() {
      return (double) (to.rowsRead - from.rowsRead) / segments();
    }

    double bytesPerSegment() {
      return (double) (to.playlistBytes - from.playlistBytes) / segments();
    }

    double putsPerSegment() {
      return (double) (to.playlistPuts - from.playlistPuts) / segments();
    }

    double jvmCpuMicrosPerSegment() {
      return (to.jvmCpuNanos - from.jvmCpuNanos) / 1e3 / segments();
    }

    double serverCpuMicrosPerSegment() {
      return from.serverCpuNanos < 0 ? Double.NaN : (to.serverCpuNanos - from.serverCpuNanos) / 1e3 / segments();
    }

    double lagMillis(double p) {
      int per = RENDITIONS.size();
      double[] millis = Arrays.stream(allLags, from.sequence * per, to.sequence * per).filter(n -> n >= 0)
          .mapToDouble(n -> n / 1e6).sorted().toArray();
      return millis.length == 0 ? Double.NaN : LatencyMeasure.percentile(millis, p);
    }

    String describe() {
      return String.format(Locale.ROOT, "segments %d-%d: %.1f rows read, %.0f playlist B in %.2f PUTs, %.0f µs JVM"
              + " CPU, %.0f µs PostgreSQL CPU, %.1f ms wall per segment; lag p50 %.1f ms, p99"
              + " %.1f ms", from.sequence, to.sequence, rowsPerSegment(), bytesPerSegment(), putsPerSegment(),
          jvmCpuMicrosPerSegment(), serverCpuMicrosPerSegment(), (to.nanos - from.nanos) / 1e6 / segments(),
          lagMillis(0.5), lagMillis(0.99));
    }
  }
}
