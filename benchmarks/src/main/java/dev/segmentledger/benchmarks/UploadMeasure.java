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
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
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
 * a JVM of its own ({@link S3ProxyProcess}), as a real endpoint is another process: it no longer
 * shares the ledger's heap, GC and JIT. Four scenarios, each a measure of its own:
 * {@code upload} (1,000 x 2 MiB, MiB/s), {@code upload_small} (3,000 x 64 KiB, files/s),
 * {@code upload_large} (8 x 256 MiB multipart, MiB/s) and {@code upload_single} (one single 1 GiB
 * original, alone: what its parts sent in parallel give, MiB/s).
 *
 * <p>Both are measured warm, as a recorder runs for hours: an untimed round of 8,000 small files
 * goes through rclone and through another ledger first. It has the JIT compile the per-request
 * code of the ledger, the SDK and the server (rclone is compiled ahead of time); after a warm-up of
 * only 100 files the first ledger run was still 10 to 15 % slower than the next, and after 2,000
 * as well when the measure ran alone (small files: 557 to 626 files/s in the first ledger run,
 * 666 to 784 in the second, four runs). Dirty pages are
 * written out ({@code sync}) before each timed run, so that no run pays for the writeback of the
 * one before.
 *
 * <p>The timed runs go in the order rclone, ledger, ledger, rclone, each to keys of its own, and
 * each side's rate is its total over its total time. With one run each, the order alone moved the
 * ratio: on the same code, rclone first gave 0.75 and 0.76, the ledger first 0.96 and 1.22.
 */
final class UploadMeasure implements Measure {
  static final String ACCESS_KEY = "segment-ledger-bench";
  static final String SECRET_KEY = "segment-ledger-bench-secret";
  static final int WORKERS = 4;
  /**
   * The files are all closed when the run starts, as rclone is handed a whole directory: they are
   * registered the way a recorder hands over a burst, with {@code registerAll}. One registration per
   * file costs a transaction each, which competes for the disk with the blob store's writes.
   */
  static final int REGISTER_BATCH = 100;
  /**
   * Files of the untimed warm-up round, through each of the two: many small ones, because the JIT
   * compiles the per-request code after thousands of requests, not after many bytes.
   */
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

  /** One scenario: its measure name, sizes, the unit compared and the goal of the ratio. */
  private final String name;
  private final int smokeCount;
  private final int fullCount;
  private final int smokeBytes;
  private final int fullBytes;
  private final boolean filesPerSecond;
  private final double goal;

  private UploadMeasure(String name, int smokeCount, int fullCount, int smokeBytes, int fullBytes,
      boolean filesPerSecond, double goal) {
    this.name = name;
    this.smokeCount = smokeCount;
    this.fullCount = fullCount;
    this.smokeBytes = smokeBytes;
    this.fullBytes = fullBytes;
    this.filesPerSecond = filesPerSecond;
    this.goal = goal;
  }

  /** 1,000 x 2 MiB, MiB/s, ledger >= 0.9 x rclone (round one's measure). */
  static UploadMeasure medium() {
    return new UploadMeasure("upload", 10, 1_000, 256 * 1024, 2 * 1024 * 1024, false, 0.9);
  }

  /** 3,000 x 64 KiB, files/s, ledger >= 1.0 x rclone. */
  static UploadMeasure small() {
    return new UploadMeasure("upload_small", 30, 3_000, 64 * 1024, 64 * 1024, true, 1.0);
  }

  /** 8 x 256 MiB (multipart), MiB/s, ledger >= 1.0 x rclone. */
  static UploadMeasure large() {
    return new UploadMeasure("upload_large", 2, 8, 17 * 1024 * 1024, 256 * 1024 * 1024, false, 1.0);
  }

  /**
   * One single 1 GiB original uploaded alone (multipart, its parts in parallel on both sides), MiB/s,
   * ledger >= 1.0 x rclone: a recorder's long original, where only parallel parts can use more
   * than one connection.
   */
  static UploadMeasure single() {
    return new UploadMeasure("upload_single", 1, 1, 17 * 1024 * 1024, 1024 * 1024 * 1024, false, 1.0);
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
    double mib = (double) count * size / MIB;
    double amount = filesPerSecond ? count : mib;
    String unit = filesPerSecond ? "files/s" : "MiB/s";
    Map<String, Object> c = env.conditions();
    c.put("files", count);
    c.put("file_bytes", size);
    c.put("server", S3ProxyProcess.description());
    c.put("workers_and_transfers", WORKERS);
    c.put("loadavg_start", LoadAvg.now());
    if (size >= SINK_MULTIPART_THRESHOLD) {
      c.put("sink_multipart", "threshold " + (SINK_MULTIPART_THRESHOLD / MIB) + " MiB, part " + (SINK_PART_SIZE / MIB)
          + " MiB, up to " + SINK_PART_CONCURRENCY + " parts of one upload at once (partConcurrency, the default)");
      c.put("sink_memory_bound_per_upload", "part concurrency x (64 KiB read buffer + one HTTP connection's buffers)"
          + " = " + SINK_PART_CONCURRENCY + " streams per upload, " + (WORKERS * SINK_PART_CONCURRENCY) + " for "
          + WORKERS + " workers; each part body is streamed from the file in 64 KiB reads (ContentRange), never"
          + " buffered whole");
      c.put("rclone_multipart", "--s3-upload-cutoff " + RCLONE_CUTOFF + " --s3-chunk-size " + RCLONE_CHUNK
          + " --s3-upload-concurrency " + RCLONE_UPLOAD_CONCURRENCY + " (buffers chunk x concurrency x transfers = "
          + 8 * RCLONE_UPLOAD_CONCURRENCY * WORKERS + " MiB)");
    }

    S3ProxyProcess server = env.s3Server();
    Path blobs = env.s3Blobs();
    String ledgerBucket = name.replace('_', '-') + "-ledger";
    String rcloneBucket = name.replace('_', '-') + "-rclone";
    URI endpoint = server.endpoint();
    try (S3Client s3 = client(endpoint)) {
      s3.createBucket(b -> b.bucket(ledgerBucket));
      s3.createBucket(b -> b.bucket(rcloneBucket));
      rclone(warmUpDir, endpoint, rcloneBucket + "/warm-up", warmUpFiles.size());
      ledger(env, root, warmUpFiles, "warm-up", s3, ledgerBucket);
      emptyBuckets(blobs);
      c.put("warm_up_not_counted", warmUpFiles.size() + " files of " + WARM_UP_FILE_BYTES + " bytes through each");
      List<Double> rawSeconds = new ArrayList<>();
      List<Double> ledgerSeconds = new ArrayList<>();
      long ledgerJvmCpuNanos = 0;
      long ledgerServerCpuMillis = 0;
      RawTool raw = null;
      for (String side : List.of("rclone", "ledger", "ledger", "rclone")) {
        MediaFiles.settleDisk();
        String run = side + "-" + (side.equals("rclone") ? rawSeconds.size() + 1 : ledgerSeconds.size() + 1);
        if (side.equals("ledger")) {
          long cpu0 = CpuUse.processNanos();
          long server0 = server.cpuMillis();
          ledgerSeconds.add(ledger(env, root, files, run, s3, ledgerBucket));
          ledgerJvmCpuNanos += CpuUse.processNanos() - cpu0;
          ledgerServerCpuMillis += server.cpuMillis() - server0;
        } else {
          RawTool timed = rclone(dir, endpoint, rcloneBucket + "/" + run, count);
          raw = raw == null || raw.seconds >= 0 ? timed : raw; // the first failure, if any, is the one told
          rawSeconds.add(timed.seconds);
        }
        emptyBuckets(blobs); // the next run writes fresh keys; this keeps the disk use to one run's objects
      }
      c.put("raw_tool", raw.version);
      c.put("timed_runs", "rclone, ledger, ledger, rclone");
      c.put("ledger_run_" + unit.replace('/', '_'), ledgerSeconds.stream().map(sec -> round(amount / sec)).toList());
      double ledgerRate = 2 * amount / (ledgerSeconds.get(0) + ledgerSeconds.get(1));
      c.put("ledger_rate", ledgerRate);
      c.put("ledger_mib_per_s", 2 * mib / (ledgerSeconds.get(0) + ledgerSeconds.get(1)));
      c.put("total_mib", mib);
      // Where the CPU went during the two ledger runs: this JVM (ledger, SDK, PostgreSQL driver) and
      // the server's JVM; PostgreSQL's own processes are not counted.
      c.put("ledger_jvm_cpu_us_per_file", ledgerJvmCpuNanos / 1e3 / (2.0 * count));
      c.put("server_jvm_cpu_us_per_file_ledger_runs", ledgerServerCpuMillis * 1e3 / (2.0 * count));
      c.put("loadavg_end", LoadAvg.now());
      String ratioName = name + ".ratio_to_raw_tool";
      if (rawSeconds.stream().anyMatch(sec -> sec < 0)) {
        return List.of(BenchResult.info(name + ".ledger_" + unitName(), ledgerRate, unit, "ledger only", c),
            BenchResult.notMeasured(ratioName, "x", ">= " + goal, "raw tool failed: " + raw.version, c));
      }
      c.put("raw_tool_run_" + unit.replace('/', '_'), rawSeconds.stream().map(sec -> round(amount / sec)).toList());
      double rawRate = 2 * amount / (rawSeconds.get(0) + rawSeconds.get(1));
      c.put("raw_tool_rate", rawRate);
      return List.of(
          BenchResult.info(name + ".ledger_" + unitName(), ledgerRate, unit,
              count + " x " + size / 1024 + " KiB through S3ObjectSink via the ledger, 2 runs, first register to last confirm",
              c),
          BenchResult.info(name + ".rclone_" + unitName(), rawRate, unit, "rclone copy, 2 runs, same files and server", c),
          BenchResult.atLeast(ratioName, ledgerRate / rawRate, "x", goal,
              "ledger " + unit + " / rclone " + unit + ", same run and S3 process, timed rclone, ledger, ledger, rclone",
              c));
    }
  }

  private String unitName() {
    return filesPerSecond ? "files_per_s" : "mib_per_s";
  }

  private static double round(double value) {
    return Math.round(value * 10) / 10.0;
  }

  /** Uploads the files through a ledger of its own; returns the seconds from first register to last confirm. */
  private static double ledger(BenchEnv env, Path root, List<Path> files, String broadcastId, S3Client s3,
      String bucket) throws Exception {
    try (BenchEnv.Database db = env.newDatabase("upload", WORKERS + 4)) {
      S3ObjectSink sink = S3ObjectSink.builder().client(s3).bucket(bucket).partConcurrency(SINK_PART_CONCURRENCY)
          .build();
      LiveRun.Outcome o = LiveRun.run(Ledger.builder().stateStore(db.store()).objectSink(sink).allowedRoot(root)
          .workers(WORKERS).queueCapacity(files.size()), files, broadcastId, 1, REGISTER_BATCH, Duration.ofMinutes(30));
      return o.nanos() / 1e9;
    }
  }

  /** Deletes the objects of every bucket of the filesystem blob store, keeping the buckets. */
  private static void emptyBuckets(Path blobs) throws java.io.IOException {
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

  private record RawTool(String version, double seconds) {}

  /** Copies {@code dir} with rclone to {@code bucketPath} ({@code bucket/prefix}) and times it. */
  private static RawTool rclone(Path dir, URI endpoint, String bucketPath, int count) throws Exception {
    String version;
    try {
      Process p = new ProcessBuilder("rclone", "version").redirectErrorStream(true).start();
      version = new String(p.getInputStream().readAllBytes()).lines().findFirst().orElse("rclone");
      p.waitFor();
    } catch (java.io.IOException e) {
      return new RawTool("rclone not installed (apt-get install -y rclone): " + e.getMessage(), -1);
    }
    List<String> cmd = new ArrayList<>(List.of("rclone", "copy", dir.toString(), ":s3:" + bucketPath,
        "--s3-provider", "Other", "--s3-endpoint", endpoint.toString(), "--s3-access-key-id", ACCESS_KEY,
        "--s3-secret-access-key", SECRET_KEY, "--s3-region", "us-east-1", "--s3-force-path-style=true",
        "--transfers", String.valueOf(WORKERS), "--s3-upload-cutoff", RCLONE_CUTOFF, "--s3-chunk-size", RCLONE_CHUNK,
        "--s3-upload-concurrency", String.valueOf(RCLONE_UPLOAD_CONCURRENCY), "--no-check-dest",
        "--config", "/dev/null"));
    long start = System.nanoTime();
    ProcessBuilder builder = new ProcessBuilder(cmd).redirectErrorStream(true);
    // Only the flags configure it: an AWS_CA_BUNDLE or profile of the caller's shell must not leak in.
    builder.environment().keySet().removeIf(k -> k.startsWith("AWS_") || k.startsWith("RCLONE_"));
    Process p = builder.start();
    String out = new String(p.getInputStream().readAllBytes());
    boolean exited = p.waitFor(30, TimeUnit.MINUTES);
    double seconds = (System.nanoTime() - start) / 1e9;
    if (!exited || p.exitValue() != 0) {
      return new RawTool(version + " failed: " + out.strip(), -1);
    }
    return new RawTool(version + " (copy, " + count + " files, --transfers " + WORKERS + ")", seconds);
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
