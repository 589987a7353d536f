package dev.segmentledger.benchmarks;

import dev.segmentledger.rig.FaultProxy;
import java.net.URI;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import software.amazon.awssdk.services.s3.S3Client;

/**
 * One single original uploaded where one connection is the limit, not the server: the ledger and
 * rclone reach the S3 server ({@link S3ProxyProcess}) through {@link FaultProxy} with a bandwidth cap
 * per connection ({@link FaultProxy#limitBandwidth}), as over a long path or a per-flow shaper. It
 * shows what the sink's parallel parts buy: the ledger with {@code partConcurrency(1)} (one part at a
 * time: one connection) and {@code partConcurrency(4)} (the default), and rclone with
 * {@code --s3-upload-concurrency 4}, all three with the same part size. The proxy relays every
 * request on a connection of its own, so each part in flight has the cap to itself.
 *
 * <p>After an untimed warm-up of each of the three, {@link #ROUNDS} rounds run the three in an order
 * that alternates (ledger x1, ledger x4, rclone; then rclone, ledger x4, ledger x1; ...), so the
 * ledger x4 / rclone pair and the x4 / x1 pair each change order from round to round; the ratios are
 * the medians of the rounds'. Every round's figures and the S3 server's CPU per run are in the
 * conditions.
 */
final class CappedUploadMeasure implements Measure {
  static final int ROUNDS = 3;
  static final int RCLONE_UPLOAD_CONCURRENCY = 4;
  static final long MIB = UploadMeasure.MIB;

  @Override
  public String name() {
    return "upload_capped";
  }

  @Override
  public List<BenchResult> run(BenchEnv env) throws Exception {
    int size = env.size(17 * (int) MIB, 128 * (int) MIB);
    long cap = env.size(32, 8) * MIB; // smoke: a quarter of the times, to keep BenchmarkSmokeTest short
    Path root = env.newDir(name());
    Path dir = root.resolve("rec");
    List<Path> files = MediaFiles.write(dir, 1, size);
    Path warmUpDir = root.resolve("warm-up");
    List<Path> warmUpFiles = MediaFiles.write(warmUpDir, 1, 17 * (int) MIB);
    double mib = (double) size / MIB;
    List<String> rcloneFlags = List.of("--transfers", "1", "--s3-upload-cutoff", UploadMeasure.RCLONE_CUTOFF,
        "--s3-chunk-size", UploadMeasure.RCLONE_CHUNK, "--s3-upload-concurrency",
        String.valueOf(RCLONE_UPLOAD_CONCURRENCY));
    Map<String, Object> c = env.conditions();
    c.put("file_bytes", size);
    c.put("server", S3ProxyProcess.description());
    c.put("s3proxy_version", S3ProxyProcess.version());
    c.put("raw_tool", RcloneRun.version());
    c.put("cap_bytes_per_s_per_connection", cap);
    c.put("proxy", "FaultProxy (tests/harness) in the suite's JVM, between both clients and the server: every request"
        + " on a connection of its own (Connection: close), each connection paced to "
        + cap / MIB + " MiB/s each way");
    c.put("sink", "threshold " + UploadMeasure.SINK_MULTIPART_THRESHOLD / MIB + " MiB, part "
        + UploadMeasure.SINK_PART_SIZE / MIB + " MiB, partConcurrency 1 and 4, ledger of 4 workers, registerAll");
    c.put("rclone_flags", String.join(" ", rcloneFlags));
    c.put("loadavg_start", LoadAvg.now());

    S3ProxyProcess server = env.s3Server();
    Pairs toRclone = new Pairs("rclone");
    Pairs overOneLane = new Pairs("ledger_part_concurrency_1");
    List<Double> oneLane = new ArrayList<>();
    try (FaultProxy proxy = FaultProxy.start(server.endpoint()).limitBandwidth(cap)) {
      proxy.onRequest(r -> { }, false);
      URI endpoint = proxy.uri();
      try (S3Client s3 = UploadMeasure.client(endpoint)) {
        s3.createBucket(b -> b.bucket("capped-ledger"));
        s3.createBucket(b -> b.bucket("capped-rclone"));
        RcloneRun warm = RcloneRun.copy(warmUpDir, endpoint, "capped-rclone/warm-up", UploadMeasure.ACCESS_KEY,
            UploadMeasure.SECRET_KEY, rcloneFlags);
        if (warm.failed()) {
          return List.of(BenchResult.notMeasured(name() + ".ratio_to_raw_tool", "x", ">= 1", warm.failure(), c));
        }
        for (int lanes : List.of(1, 4)) {
          UploadMeasure.ledger(env, root, warmUpFiles, "warm-up-" + lanes, s3, "capped-ledger", lanes);
        }
        UploadMeasure.emptyBuckets(env.s3Blobs());
        for (int round = 1; round <= ROUNDS; round++) {
          List<String> order = round % 2 == 1 ? List.of("ledger x1", "ledger x4", "rclone")
              : List.of("rclone", "ledger x4", "ledger x1");
          Map<String, Object> d = new LinkedHashMap<>();
          d.put("loadavg_before", LoadAvg.now());
          Map<String, Double> rate = new LinkedHashMap<>();
          for (String side : order) {
            MediaFiles.settleDisk();
            long server0 = server.cpuMillis();
            double seconds;
            if (side.equals("rclone")) {
              RcloneRun run = RcloneRun.copy(dir, endpoint, "capped-rclone/round-" + round, UploadMeasure.ACCESS_KEY,
                  UploadMeasure.SECRET_KEY, rcloneFlags);
              if (run.failed()) {
                return List.of(BenchResult.notMeasured(name() + ".ratio_to_raw_tool", "x", ">= 1", run.failure(), c));
              }
              seconds = run.seconds();
              d.put("rclone_cpu_ms", run.cpuNanos() < 0 ? "unknown" : run.cpuNanos() / 1e6);
            } else {
              int lanes = side.equals("ledger x1") ? 1 : 4;
              long cpu0 = CpuUse.processNanos();
              seconds = UploadMeasure.ledger(env, root, files, "round-" + round + "-x" + lanes, s3, "capped-ledger",
                  lanes);
              d.put(key(side) + "_jvm_cpu_ms_with_proxy", (CpuUse.processNanos() - cpu0) / 1e6);
            }
            rate.put(side, mib / seconds);
            d.put(key(side) + "_mib_per_s", mib / seconds);
            d.put(key(side) + "_server_cpu_ms", server.cpuMillis() - server0);
            UploadMeasure.emptyBuckets(env.s3Blobs());
          }
          oneLane.add(rate.get("ledger x1"));
          toRclone.add(rate.get("ledger x4"), rate.get("rclone"), String.join(", ", order), d);
          overOneLane.add(rate.get("ledger x4"), rate.get("ledger x1"), String.join(", ", order), Map.of());
          System.out.printf(Locale.ROOT, "[bench]   %s round %d: ledger x1 %.1f, ledger x4 %.1f, rclone %.1f MiB/s%n",
              name(), round, rate.get("ledger x1"), rate.get("ledger x4"), rate.get("rclone"));
        }
      }
    }
    c.put("order", ROUNDS + " rounds, the order alternating: ledger x1, ledger x4, rclone / rclone, ledger x4, ledger x1"
        + " / ...; a sync before each run; every run to keys of its own, the buckets emptied after it");
    c.put("rounds", toRclone.figures());
    c.put("loadavg_end", LoadAvg.now());
    String what = "one " + size / MIB + " MiB original through a cap of " + cap / MIB + " MiB/s per connection";
    return List.of(
        BenchResult.info(name() + ".ledger_part_concurrency_1_mib_per_s", Pairs.median(oneLane), "MiB/s",
            what + ", partConcurrency(1); median of " + ROUNDS + " runs", c),
        BenchResult.info(name() + ".ledger_mib_per_s", toRclone.medianLedger(), "MiB/s",
            what + ", partConcurrency(4); median of " + ROUNDS + " runs", c),
        BenchResult.info(name() + ".rclone_mib_per_s", toRclone.medianReference(), "MiB/s",
            what + ", rclone --s3-upload-concurrency " + RCLONE_UPLOAD_CONCURRENCY + "; median of " + ROUNDS + " runs",
            c),
        BenchResult.info(name() + ".parallel_parts_gain", overOneLane.medianRatio(), "x",
            "median of the rounds' partConcurrency(4) / partConcurrency(1) " + overOneLane.ratios(), c),
        BenchResult.atLeast(name() + ".ratio_to_raw_tool", toRclone.medianRatio(), "x", 1.0,
            "median of the rounds' ledger (partConcurrency 4) / rclone " + toRclone.ratios(), c));
  }

  private static String key(String side) {
    return side.replace(" x", "_part_concurrency_");
  }
}
