package dev.segmentledger.benchmarks;

import dev.segmentledger.core.Ledger;
import dev.segmentledger.s3.ContentMd5Signing;
import dev.segmentledger.s3.S3ObjectSink;
import java.net.URI;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import software.amazon.awssdk.auth.credentials.AwsBasicCredentials;
import software.amazon.awssdk.auth.credentials.StaticCredentialsProvider;
import software.amazon.awssdk.core.checksums.RequestChecksumCalculation;
import software.amazon.awssdk.core.checksums.ResponseChecksumValidation;
import software.amazon.awssdk.http.apache5.Apache5HttpClient;
import software.amazon.awssdk.regions.Region;
import software.amazon.awssdk.services.s3.S3Client;
import software.amazon.awssdk.services.s3.S3Configuration;

/**
 * Real uploads through S3ObjectSink (ledger on PostgreSQL, 4 workers) against {@code rclone copy}
 * (4 transfers) of the same files to the same S3 server in the same run. The server is S3Proxy in
 * a JVM of its own ({@link S3ProxyProcess}), as a real endpoint is another process. Four shapes,
 * each a measure of its own: {@code upload} (1,000 x 2 MiB, MiB/s), {@code upload_small} (3,000 x
 * 64 KiB, files/s), {@code upload_large} (8 x 256 MiB multipart, MiB/s) and {@code upload_single}
 * (one single 1 GiB original, alone: what its parts sent in parallel give, MiB/s). The fifth shape,
 * one connection as the limit, is {@link CappedUploadMeasure}.
 *
 * <p>Both are measured warm, as a recorder runs for hours: an untimed round of 8,000 small files
 * goes through rclone and through another ledger first (after a warm-up of only 100 files the first
 * ledger run was still 10 to 15 % slower than the next). Dirty pages are written out ({@code sync})
 * before each timed run, so that no run pays for the writeback of the one before.
 *
 * <p>Then {@link #PAIRS} pairs, each one rclone run and one ledger run to keys of their own, the
 * order alternating from pair to pair (rclone first, then ledger first, ...): with one run each, the
 * order alone moved the ratio (rclone first 0.75 and 0.76, the ledger first 0.96 and 1.22, same code).
 * The ratio is the median of the pairs' ratios; every pair's rates, times and CPU per file (the
 * ledger's JVM, rclone's process and the S3 server's process, each over its own runs) are in the
 * conditions.
 */
final class UploadMeasure implements Measure {
  static final String ACCESS_KEY = "segment-ledger-bench";
  static final String SECRET_KEY = "segment-ledger-bench-secret";
  static final int WORKERS = 4;
  static final int PAIRS = 3;
  /**
   * The files are all closed when the run starts, as rclone is handed a whole directory: they are
   * registered the way a recorder hands over a burst, with {@code registerAll}.
   */
  static final int REGISTER_BATCH = 100;
  /** Files of the untimed warm-up round through each: the JIT compiles per request, not per byte. */
  static final int WARM_UP_FILES = 8_000;
  static final int WARM_UP_FILE_BYTES = 64 * 1024;
  static final long MIB = 1024 * 1024;
  /** The sink's defaults, stated here for the memory bound of the multipart scenarios. */
  static final long SINK_MULTIPART_THRESHOLD = 16 * MIB;
  static final long SINK_PART_SIZE = 8 * MIB;
  static final int SINK_PART_CONCURRENCY = 4;
  /** rclone's multipart settings: the same threshold and part size as the sink. */
  static final String RCLONE_CUTOFF = "16M";
  static final String RCLONE_CHUNK = "8M";
  static final int RCLONE_UPLOAD_CONCURRENCY = 4; // rclone's default --s3-upload-concurrency

  private final String name;
  private final int smokeCount;
  private final int fullCount;
  private final int smokeBytes;
  private final int fullBytes;
  private final boolean filesPerSecond;

  private UploadMeasure(String name, int smokeCount, int fullCount, int smokeBytes, int fullBytes,
      boolean filesPerSecond) {
    this.name = name;
    this.smokeCount = smokeCount;
    this.fullCount = fullCount;
    this.smokeBytes = smokeBytes;
    this.fullBytes = fullBytes;
    this.filesPerSecond = filesPerSecond;
  }

  /** 1,000 x 2 MiB, MiB/s. */
  static UploadMeasure medium() {
    return new UploadMeasure("upload", 10, 1_000, 256 * 1024, 2 * 1024 * 1024, false);
  }

  /** 3,000 x 64 KiB, files/s. */
  static UploadMeasure small() {
    return new UploadMeasure("upload_small", 30, 3_000, 64 * 1024, 64 * 1024, true);
  }

  /** 8 x 256 MiB (multipart), MiB/s. */
  static UploadMeasure large() {
    return new UploadMeasure("upload_large", 2, 8, 17 * 1024 * 1024, 256 * 1024 * 1024, false);
  }

  /** One single 1 GiB original uploaded alone (its parts in parallel on both sides), MiB/s. */
  static UploadMeasure single() {
    return new UploadMeasure("upload_single", 1, 1, 17 * 1024 * 1024, 1024 * 1024 * 1024, false);
  }

  @Override
  public String name() {
    return name;
  }

  @Override
  public List<BenchResult> run(BenchEnv env) throws Exception {
    int count = env.size(smokeCount, fullCount);
    int size = env.size(smokeBytes, fullBytes);
    Path root = env.newDir(name);
    Path dir = root.resolve("rec");
    List<Path> files = MediaFiles.write(dir, count, size);
    Path warmUpDir = root.resolve("warm-up");
    List<Path> warmUpFiles = MediaFiles.write(warmUpDir, env.size(2, WARM_UP_FILES), WARM_UP_FILE_BYTES);
    double amount = filesPerSecond ? count : (double) count * size / MIB;
    String unit = filesPerSecond ? "files/s" : "MiB/s";
    Map<String, Object> c = env.conditions();
    c.put("files", count);
    c.put("file_bytes", size);
    c.put("server", S3ProxyProcess.description());
    c.put("s3proxy_version", S3ProxyProcess.version());
    c.put("raw_tool", RcloneRun.version());
    c.put("workers_and_transfers", WORKERS);
    c.put("client", "S3Client with the s3-sink README's plain-HTTP recipe: ContentMd5Signing, no Expect:"
        + " 100-continue (SDK and Apache 5 client), checksums WHEN_REQUIRED");
    c.put("loadavg_start", LoadAvg.now());
    if (size >= SINK_MULTIPART_THRESHOLD) {
      c.put("sink_multipart", "threshold " + (SINK_MULTIPART_THRESHOLD / MIB) + " MiB, part " + (SINK_PART_SIZE / MIB)
          + " MiB, up to " + SINK_PART_CONCURRENCY + " parts of one upload at once (partConcurrency, the default)");
      c.put("sink_memory_bound_per_upload", "part concurrency x (64 KiB read buffer + one HTTP connection's buffers)"
          + " = " + SINK_PART_CONCURRENCY + " streams per upload, " + (WORKERS * SINK_PART_CONCURRENCY) + " for "
          + WORKERS + " workers; each part body is streamed from the file in 64 KiB reads, never buffered whole");
      c.put("rclone_multipart", "--s3-upload-cutoff " + RCLONE_CUTOFF + " --s3-chunk-size " + RCLONE_CHUNK
          + " --s3-upload-concurrency " + RCLONE_UPLOAD_CONCURRENCY + " (buffers chunk x concurrency x transfers = "
          + 8 * RCLONE_UPLOAD_CONCURRENCY * WORKERS + " MiB)");
    }
    List<String> rcloneFlags = List.of("--transfers", String.valueOf(WORKERS), "--s3-upload-cutoff", RCLONE_CUTOFF,
        "--s3-chunk-size", RCLONE_CHUNK, "--s3-upload-concurrency", String.valueOf(RCLONE_UPLOAD_CONCURRENCY));
    c.put("rclone_flags", String.join(" ", rcloneFlags));

    S3ProxyProcess server = env.s3Server();
    String ledgerBucket = name.replace('_', '-') + "-ledger";
    String rcloneBucket = name.replace('_', '-') + "-rclone";
    URI endpoint = server.endpoint();
    Pairs pairs = new Pairs("rclone");
    try (S3Client s3 = client(endpoint)) {
      s3.createBucket(b -> b.bucket(ledgerBucket));
      s3.createBucket(b -> b.bucket(rcloneBucket));
      RcloneRun warm = RcloneRun.copy(warmUpDir, endpoint, rcloneBucket + "/warm-up", ACCESS_KEY, SECRET_KEY,
          rcloneFlags);
      ledger(env, root, warmUpFiles, "warm-up", s3, ledgerBucket, SINK_PART_CONCURRENCY);
      emptyBuckets(env.s3Blobs());
      c.put("warm_up_not_counted", warmUpFiles.size() + " files of " + WARM_UP_FILE_BYTES + " bytes through each");
      if (warm.failed()) {
        return List.of(BenchResult.notMeasured(name + ".ratio_to_raw_tool", "x", ">= 1", warm.failure(), c));
      }
      for (int pair = 1; pair <= PAIRS; pair++) {
        boolean rcloneFirst = pair % 2 == 1;
        Map<String, Object> d = new LinkedHashMap<>();
        d.put("loadavg_before", LoadAvg.now());
        double ledgerSeconds = 0;
        double rcloneSeconds = 0;
        for (boolean ledgerTurn : rcloneFirst ? List.of(false, true) : List.of(true, false)) {
          MediaFiles.settleDisk();
          long server0 = server.cpuMillis();
          if (ledgerTurn) {
            long cpu0 = CpuUse.processNanos();
            ledgerSeconds = ledger(env, root, files, "pair-" + pair, s3, ledgerBucket, SINK_PART_CONCURRENCY);
            d.put("ledger_s", ledgerSeconds);
            d.put("ledger_jvm_cpu_us_per_file", (CpuUse.processNanos() - cpu0) / 1e3 / count);
            d.put("server_cpu_us_per_file_ledger", (server.cpuMillis() - server0) * 1e3 / count);
          } else {
            RcloneRun run = RcloneRun.copy(dir, endpoint, rcloneBucket + "/pair-" + pair, ACCESS_KEY, SECRET_KEY,
                rcloneFlags);
            if (run.failed()) {
              return List.of(BenchResult.notMeasured(name + ".ratio_to_raw_tool", "x", ">= 1", run.failure(), c));
            }
            rcloneSeconds = run.seconds();
            d.put("rclone_s", rcloneSeconds);
            d.put("rclone_cpu_us_per_file", run.cpuNanos() < 0 ? "unknown" : run.cpuNanos() / 1e3 / count);
            d.put("server_cpu_us_per_file_rclone", (server.cpuMillis() - server0) * 1e3 / count);
          }
          emptyBuckets(env.s3Blobs()); // the next run writes fresh keys; this keeps the disk use to one run's
        }
        pairs.add(amount / ledgerSeconds, amount / rcloneSeconds, rcloneFirst ? "rclone, ledger" : "ledger, rclone", d);
        System.out.printf(Locale.ROOT, "[bench]   %s pair %d: ledger %.1f, rclone %.1f %s%n", name, pair,
            amount / ledgerSeconds, amount / rcloneSeconds, unit);
      }
    }
    c.put("unit", unit);
    c.put("total_mib_per_run", (double) count * size / MIB);
    c.put("order", PAIRS + " pairs, alternating which goes first (rclone, ledger / ledger, rclone / ...); a sync"
        + " before each run; every run to keys of its own, the buckets emptied after it");
    c.put("pairs", pairs.figures());
    medianCpu(c, pairs, "ledger_jvm_cpu_us_per_file", "server_cpu_us_per_file_ledger", "rclone_cpu_us_per_file",
        "server_cpu_us_per_file_rclone");
    c.put("loadavg_end", LoadAvg.now());
    String unitName = filesPerSecond ? "files_per_s" : "mib_per_s";
    return List.of(
        BenchResult.info(name + ".ledger_" + unitName, pairs.medianLedger(), unit, count + " x " + size / 1024
            + " KiB through S3ObjectSink via the ledger, first register to last confirm; median of " + PAIRS + " runs",
            c),
        BenchResult.info(name + ".rclone_" + unitName, pairs.medianReference(), unit,
            "rclone copy, same files and server; median of " + PAIRS + " runs", c),
        BenchResult.atLeast(name + ".ratio_to_raw_tool", pairs.medianRatio(), "x", 1.0,
            "median of the pairs' ledger / rclone " + pairs.ratios() + ", same run and S3 process, order alternating",
            c));
  }

  /** The median over the pairs of each CPU figure, into the conditions under the same key. */
  static void medianCpu(Map<String, Object> c, Pairs pairs, String... keys) {
    for (String key : keys) {
      List<Double> values = new ArrayList<>();
      pairs.figures().forEach(p -> {
        if (p.get(key) instanceof Number n) {
          values.add(n.doubleValue());
        }
      });
      c.put(key, values.isEmpty() ? "unknown" : Pairs.median(values));
    }
  }

  /**
   * Uploads the files through a ledger of its own (4 workers, {@code registerAll} by 100, S3ObjectSink
   * with {@code partConcurrency}); returns the seconds from first register to last confirm.
   */
  static double ledger(BenchEnv env, Path root, List<Path> files, String broadcastId, S3Client s3, String bucket,
      int partConcurrency) throws Exception {
    try (BenchEnv.Database db = env.newDatabase("upload", WORKERS + 4)) {
      S3ObjectSink sink = S3ObjectSink.builder().client(s3).bucket(bucket).partConcurrency(partConcurrency).build();
      LiveRun.Outcome o = LiveRun.run(Ledger.builder().stateStore(db.store()).objectSink(sink).allowedRoot(root)
          .workers(WORKERS).queueCapacity(files.size()), files, broadcastId, 1, REGISTER_BATCH, Duration.ofMinutes(30));
      return o.nanos() / 1e9;
    }
  }

  /** Deletes the objects of every bucket of the filesystem blob store, keeping the buckets. */
  static void emptyBuckets(Path blobs) throws java.io.IOException {
    try (var buckets = Files.list(blobs)) {
      for (Path bucket : buckets.toList()) {
        try (var objects = Files.walk(bucket)) {
          for (Path path : objects.sorted(Comparator.reverseOrder()).toList()) {
            if (!path.equals(bucket)) {
              Files.delete(path);
            }
          }
        }
      }
    }
  }

  /** A client with the s3-sink README's plain-HTTP settings (also for {@link SinkPartConcurrencyRuns}). */
  static S3Client client(URI endpoint) {
    return S3Client.builder()
        .endpointOverride(endpoint)
        .region(Region.US_EAST_1)
        .forcePathStyle(true)
        .credentialsProvider(StaticCredentialsProvider.create(AwsBasicCredentials.create(ACCESS_KEY, SECRET_KEY)))
        .requestChecksumCalculation(RequestChecksumCalculation.WHEN_REQUIRED)
        .responseChecksumValidation(ResponseChecksumValidation.WHEN_REQUIRED)
        // The s3-sink README's recommendations for a plain-HTTP endpoint, which make the requests the
        // ones rclone sends: Content-MD5-covered bodies as UNSIGNED-PAYLOAD instead of the SDK's
        // per-chunk signing (aws-chunked), and no Expect: 100-continue round trip before each body.
        .putAuthScheme(ContentMd5Signing.authScheme())
        .serviceConfiguration(S3Configuration.builder().expectContinueEnabled(false).build())
        .httpClientBuilder(Apache5HttpClient.builder().expectContinueEnabled(false))
        .build();
  }
}
