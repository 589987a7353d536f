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
import java.util.Properties;
import java.util.concurrent.TimeUnit;
import org.gaul.s3proxy.AuthenticationType;
import org.gaul.s3proxy.S3Proxy;
import org.jclouds.ContextBuilder;
import org.jclouds.blobstore.BlobStoreContext;
import software.amazon.awssdk.auth.credentials.AwsBasicCredentials;
import software.amazon.awssdk.auth.credentials.StaticCredentialsProvider;
import software.amazon.awssdk.core.checksums.RequestChecksumCalculation;
import software.amazon.awssdk.core.checksums.ResponseChecksumValidation;
import software.amazon.awssdk.http.apache5.Apache5HttpClient;
import software.amazon.awssdk.regions.Region;
import software.amazon.awssdk.services.s3.S3Client;
import software.amazon.awssdk.services.s3.S3Configuration;

/**
 * Measure 3: real uploads of M files through S3ObjectSink (ledger on PostgreSQL, 4 workers) to
 * S3Proxy in-process on its filesystem blobstore, against {@code rclone copy} (4 transfers) of the
 * same files to the same server in the same run. Throughput in MiB/s, first byte to last confirm
 * for the ledger, process start to exit for rclone.
 *
 * <p>Both are measured warm, as a recorder runs for hours: an untimed round of 2,000 small files
 * goes through rclone and through another ledger first. It has the JIT compile the per-request
 * code of the ledger, the SDK and the in-process server (rclone is compiled ahead of time); after
 * a warm-up of only 100 files the first ledger run was still 10 to 15 % slower than the next.
 * Dirty pages are written out ({@code sync}) before each timed run, so that no run pays for the
 * writeback of the one before.
 *
 * <p>The timed runs go in the order rclone, ledger, ledger, rclone, each to keys of its own, and
 * each side's rate is its total bytes over its total time. With one run each, the order alone
 * moved the ratio: on the same code, rclone first gave 0.75 and 0.76, the ledger first 0.96 and
 * 1.22.
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
  static final int WARM_UP_FILES = 2_000;
  static final int WARM_UP_FILE_BYTES = 64 * 1024;

  @Override
  public String name() {
    return "upload";
  }

  @Override
  public List<BenchResult> run(BenchEnv env) throws Exception {
    int count = env.size(10, 1_000);
    int size = env.size(256 * 1024, 2 * 1024 * 1024);
    Path root = env.newDir("upload");
    Path dir = root.resolve("rec");
    List<Path> files = MediaFiles.write(dir, count, size);
    Path warmUpDir = root.resolve("warm-up");
    List<Path> warmUpFiles = MediaFiles.write(warmUpDir, env.size(2, WARM_UP_FILES), WARM_UP_FILE_BYTES);
    double mib = (double) count * size / (1024 * 1024);
    Map<String, Object> c = env.conditions();
    c.put("files", count);
    c.put("file_bytes", size);
    c.put("server", "S3Proxy 2.9.0 in-process, jclouds filesystem blobstore, SigV4");
    c.put("workers_and_transfers", WORKERS);

    Properties props = new Properties();
    Path blobs = env.newDir("s3-blobs");
    props.setProperty("jclouds.filesystem.basedir", blobs.toString());
    try (BlobStoreContext context = ContextBuilder.newBuilder("filesystem").overrides(props)
        .build(BlobStoreContext.class)) {
      S3Proxy proxy = S3Proxy.builder().blobStore(context.getBlobStore())
          .awsAuthentication(AuthenticationType.AWS_V4, ACCESS_KEY, SECRET_KEY)
          .endpoint(URI.create("http://127.0.0.1:0")).build();
      proxy.start();
      try {
        URI endpoint = URI.create("http://127.0.0.1:" + proxy.getPort());
        try (S3Client s3 = client(endpoint)) {
          s3.createBucket(b -> b.bucket("ledger"));
          s3.createBucket(b -> b.bucket("rclone"));
          rclone(warmUpDir, endpoint, "rclone/warm-up", warmUpFiles.size());
          ledger(env, root, warmUpFiles, "warm-up", s3);
          c.put("warm_up_not_counted", warmUpFiles.size() + " files of " + WARM_UP_FILE_BYTES + " bytes through each");
          List<Double> rawSeconds = new ArrayList<>();
          List<Double> ledgerSeconds = new ArrayList<>();
          RawTool raw = null;
          for (String side : List.of("rclone", "ledger", "ledger", "rclone")) {
            settleDisk();
            String run = side + "-" + (side.equals("rclone") ? rawSeconds.size() + 1 : ledgerSeconds.size() + 1);
            if (side.equals("ledger")) {
              ledgerSeconds.add(ledger(env, root, files, run, s3));
            } else {
              RawTool timed = rclone(dir, endpoint, "rclone/" + run, count);
              raw = raw == null || raw.seconds >= 0 ? timed : raw; // the first failure, if any, is the one told
              rawSeconds.add(timed.seconds);
            }
            emptyBuckets(blobs); // the next run writes fresh keys; this keeps the disk use to one run's objects
          }
          c.put("raw_tool", raw.version);
          c.put("timed_runs", "rclone, ledger, ledger, rclone");
          c.put("ledger_run_mib_per_s", ledgerSeconds.stream().map(sec -> round(mib / sec)).toList());
          double ledgerMibs = 2 * mib / (ledgerSeconds.get(0) + ledgerSeconds.get(1));
          c.put("ledger_mib_per_s", ledgerMibs);
          c.put("total_mib", mib);
          if (rawSeconds.stream().anyMatch(sec -> sec < 0)) {
            return List.of(BenchResult.info("upload.ledger_mib_per_s", ledgerMibs, "MiB/s", "ledger only", c),
                BenchResult.notMeasured("upload.ratio_to_raw_tool", "x", ">= 0.9", "raw tool failed: " + raw.version, c));
          }
          c.put("raw_tool_run_mib_per_s", rawSeconds.stream().map(sec -> round(mib / sec)).toList());
          double rawMibs = 2 * mib / (rawSeconds.get(0) + rawSeconds.get(1));
          c.put("raw_tool_mib_per_s", rawMibs);
          return List.of(
              BenchResult.info("upload.ledger_mib_per_s", ledgerMibs, "MiB/s",
                  "S3ObjectSink via the ledger, 2 runs, first register to last confirm", c),
              BenchResult.info("upload.rclone_mib_per_s", rawMibs, "MiB/s", "rclone copy, 2 runs, same files and server", c),
              BenchResult.atLeast("upload.ratio_to_raw_tool", ledgerMibs / rawMibs, "x", 0.9,
                  "ledger MiB/s / rclone MiB/s, same run, timed in the order rclone, ledger, ledger, rclone", c));
        }
      } finally {
        proxy.stop();
      }
    }
  }

  private static double round(double value) {
    return Math.round(value * 10) / 10.0;
  }

  /** Uploads the files through a ledger of its own; returns the seconds from first register to last confirm. */
  private static double ledger(BenchEnv env, Path root, List<Path> files, String broadcastId, S3Client s3)
      throws Exception {
    try (BenchEnv.Database db = env.newDatabase("upload", WORKERS + 4)) {
      S3ObjectSink sink = S3ObjectSink.builder().client(s3).bucket("ledger").build();
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

  /** Writes all dirty pages out, so that no timed run pays for the writeback of what came before it. */
  private static void settleDisk() throws InterruptedException {
    try {
      new ProcessBuilder("sync").inheritIO().start().waitFor();
    } catch (java.io.IOException e) {
      // No sync command (not a Unix): the runs are only less comparable.
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
        "--transfers", String.valueOf(WORKERS), "--s3-upload-cutoff", "200M", "--no-check-dest",
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

  private static S3Client client(URI endpoint) {
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
