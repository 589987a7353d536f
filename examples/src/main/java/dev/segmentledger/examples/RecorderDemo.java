package dev.segmentledger.examples;

import dev.segmentledger.core.Axis;
import dev.segmentledger.core.ItemState;
import dev.segmentledger.core.ObjectKeys;
import dev.segmentledger.core.Reconciler;
import dev.segmentledger.core.ReconciliationReport;
import dev.segmentledger.core.spi.StateStore;
import dev.segmentledger.jdbi.JdbiStateStore;
import dev.segmentledger.s3.S3ObjectSink;
import dev.segmentledger.testkit.PlaybackBucketServer;
import dev.segmentledger.testkit.TestMedia;
import dev.segmentledger.testkit.crash.ChildJvm;
import io.zonky.test.db.postgres.embedded.EmbeddedPostgres;
import java.io.IOException;
import java.net.URI;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.time.LocalDateTime;
import java.time.format.DateTimeFormatter;
import java.util.ArrayList;
import java.util.EnumMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import org.jdbi.v3.core.Jdbi;
import software.amazon.awssdk.services.s3.S3Client;

/**
 * The recorder demo: a 60-second broadcast recorded as 15 chunks, repackaged and uploaded on all
 * three axes by an uploader process that is killed with SIGKILL after storing an object and
 * before confirming it, then restarted; the ledger also publishes the broadcast's HLS playlists to
 * the bucket. Prints progress, the per-axis table and the HTTP URL of the multivariant playlist on
 * the S3 server, which ffprobe then reads over HTTP. Exits 0 only if the ledger and the bucket agree
 * (difference 0) and, with ffmpeg, ffprobe reads the whole broadcast from that URL (else 1 and 3).
 * With {@code --serve} it keeps the embedded servers up afterwards, for a player, until stopped.
 *
 * <p>Embedded defaults: PostgreSQL 16 (zonky) and S3Proxy storing under the data folder. See
 * {@link DemoOptions} to point it at a real PostgreSQL and S3 instead.
 */
public final class RecorderDemo {
  private static final int CHUNKS = 15;
  private static final Duration BROADCAST = Duration.ofSeconds(60);
  private static final int KILL_AT_STORED_ORIGINAL = 8;

  private RecorderDemo() {}

  public static void main(String[] args) throws Exception {
    int exit = run(DemoOptions.parse(List.of(args), System.getenv()));
    System.exit(exit);
  }

  /** Runs the demo; returns the process exit code. */
  static int run(DemoOptions options) throws Exception {
    String broadcast = "demo-" + LocalDateTime.now().format(DateTimeFormatter.ofPattern("yyyyMMdd-HHmmss"));
    Path root = Files.createDirectories(options.dataDir().resolve("recordings")).toRealPath();
    say("Segment Ledger demo: broadcast %s, data under %s", broadcast, options.dataDir());
    EmbeddedPostgres embeddedPg = null;
    PlaybackBucketServer embeddedS3 = null;
    try {
      String jdbcUrl = options.jdbcUrl();
      if (jdbcUrl == null) {
        embeddedPg = EmbeddedPostgres.builder().start();
        jdbcUrl = embeddedPg.getJdbcUrl("postgres", "postgres");
        say("PostgreSQL: embedded PostgreSQL 16 (pass --jdbc-url=... for your own)");
      } else {
        say("PostgreSQL: %s", jdbcUrl);
      }
      boolean embedded = options.s3Endpoint() == null;
      String endpoint;
      if (embedded) {
        embeddedS3 = PlaybackBucketServer.onDisk(options.dataDir().resolve("bucket-store"), S3Clients.ACCESS_KEY,
            S3Clients.SECRET_KEY);
        endpoint = embeddedS3.signedEndpoint().toString();
        say("S3: in-process S3Proxy at %s (signed, for the uploader) and %s (anonymous reads, for players),"
            + " objects under %s (pass --s3-endpoint=... for your own)", endpoint, embeddedS3.anonymousEndpoint(),
            options.dataDir().resolve("bucket-store"));
      } else {
        endpoint = options.s3Endpoint().toString();
        say("S3: %s, bucket %s", endpoint, options.bucket());
      }
      try (S3Client s3 = S3Clients.create(URI.create(endpoint), options.region(), embedded)) {
        if (embedded && s3.listBuckets().buckets().stream().noneMatch(b -> b.name().equals(options.bucket()))) {
          s3.createBucket(b -> b.bucket(options.bucket()));
        }
        boolean ffmpeg = record(root.resolve("rec").resolve(broadcast));
        List<String> uploaderArgs = List.of("--jdbc-url=" + jdbcUrl, "--jdbc-user=" + options.jdbcUser(),
            "--jdbc-password=" + options.jdbcPassword(), "--s3-endpoint=" + endpoint, "--bucket=" + options.bucket(),
            "--region=" + options.region(), "--embedded-s3=" + embedded, "--root=" + root, "--broadcast=" + broadcast,
            "--ffmpeg=" + ffmpeg);
        Map<Axis, long[]> events = new EnumMap<>(Axis.class);

        say("Uploader 1: starting; it will be killed with SIGKILL after storing original #%d, before its confirm",
            KILL_AT_STORED_ORIGINAL);
        List<String> firstArgs = new ArrayList<>(uploaderArgs);
        firstArgs.add("--crash-after-stored=" + KILL_AT_STORED_ORIGINAL);
        try (ChildJvm first = ChildJvm.start(Uploader.class, firstArgs)) {
          String marker = first.awaitCrashPoint(Duration.ofMinutes(5));
          first.killHard();
          say("Uploader 1: SIGKILL at %s", marker.substring(marker.indexOf(' ') + 1));
          count(first.output(), events);
        }
        say("Uploader 2: restarting on the same database and bucket");
        try (ChildJvm second = ChildJvm.start(Uploader.class, uploaderArgs)) {
          int code = second.awaitExit(Duration.ofMinutes(5));
          count(second.output(), events);
          if (code != 0 || !second.output().contains(Uploader.COMPLETE)) {
            say("Uploader 2 failed with exit code %d", code);
            return 2;
          }
        }

        Jdbi jdbi = options.jdbcUser().isEmpty() ? Jdbi.create(jdbcUrl)
            : Jdbi.create(jdbcUrl, options.jdbcUser(), options.jdbcPassword());
        StateStore store = JdbiStateStore.create(jdbi);
        S3ObjectSink sink = S3ObjectSink.builder().client(s3).bucket(options.bucket()).build();
        ReconciliationReport report = Reconciler.create(store, sink, Clock.systemUTC()).reconcile(broadcast);
        printTable(broadcast, store, report, events);
        say(report.isConsistent() ? "Reconciler: difference 0, every confirmed row has its object, every object its row."
            : "Reconciler: DIFFERENCES FOUND:%n%s", report.describe());
        URI url = playbackUrl(embeddedS3, options.s3Endpoint(), options.bucket(),
            ObjectKeys.multivariantPlaylistKey(broadcast));
        boolean plays = printPlaybackUrl(url, ffmpeg);
        if (options.serve()) {
          serveUntilStopped(url);
        }
        return !report.isConsistent() ? 1 : plays ? 0 : 3;
      }
    } finally {
      if (embeddedS3 != null) {
        embeddedS3.close();
      }
      if (embeddedPg != null) {
        embeddedPg.close();
      }
    }
  }

  /** Records the broadcast: real MPEG-TS from ffmpeg's test source if ffmpeg is present. */
  private static boolean record(Path dir) throws Exception {
    Files.createDirectories(dir);
    if (ffmpegPresent()) {
      TestMedia.recordChunks(Path.of("ffmpeg"), dir, BROADCAST, Duration.ofSeconds(4));
      say("Recorder: 60 s of test pattern with audio recorded by ffmpeg as %d MPEG-TS chunks in %s", CHUNKS, dir);
      return true;
    }
    Random random = new Random(42);
    for (int i = 0; i < CHUNKS; i++) {
      byte[] bytes = new byte[256 * 1024 + i];
      random.nextBytes(bytes);
      Files.write(dir.resolve(String.format("chunk%05d.ts", i)), bytes);
    }
    say("Recorder: ffmpeg not found, so %d synthetic chunks stand in for the recording and a fake repackager for"
        + " ffmpeg (install ffmpeg for real, playable media)", CHUNKS);
    return false;
  }

  private static boolean ffmpegPresent() {
    try {
      Process p = new ProcessBuilder("ffmpeg", "-version").redirectErrorStream(true)
          .redirectOutput(ProcessBuilder.Redirect.DISCARD).start();
      return p.waitFor() == 0;
    } catch (IOException | InterruptedException e) {
      return false;
    }
  }

  private static void count(List<String> output, Map<Axis, long[]> events) {
    for (String line : output) {
      if (line.startsWith(Uploader.EVENT)) {
        String[] parts = line.split(" ");
        long[] counts = events.computeIfAbsent(Axis.valueOf(parts[2]), a -> new long[3]);
        counts[switch (parts[1]) {
          case "accepted" -> 0;
          case "stored" -> 1;
          default -> 2;
        }]++;
      }
    }
  }

  private static void printTable(String broadcast, StateStore store, ReconciliationReport report,
      Map<Axis, long[]> events) {
    Map<Axis, Long> expected = Map.of(Axis.ORIGINAL, (long) CHUNKS, Axis.PLAYBACK, (long) CHUNKS, Axis.INIT, 1L);
    System.out.println();
    System.out.printf("%-9s %6s %10s %8s %9s %7s %10s %11s%n", "axis", "files", "confirmed", "objects", "accepted",
        "stored", "confirms", "difference");
    for (Axis axis : Axis.values()) {
      long confirmed = store.findByBroadcast(broadcast).stream()
          .filter(r -> r.id().axis() == axis && r.state() == ItemState.CONFIRMED).count();
      long[] e = events.getOrDefault(axis, new long[3]);
      ReconciliationReport.AxisReport a = report.axis(axis);
      System.out.printf("%-9s %6d %10d %8d %9d %7d %10d %11d%n", axis, expected.get(axis), confirmed, a.objects(), e[0],
          e[1], e[2], a.differences().size());
    }
    System.out.println("(accepted, stored and confirms are the events both uploader processes printed. The killed one"
        + " stored an object it never confirmed, and may have committed a confirm it did not live to print:"
        + " the rows, not the events, are the truth.)");
    System.out.println();
  }

  /**
   * Prints the URL of the broadcast's multivariant playlist, which the ledger itself published to
   * the bucket, as a player reads it: over plain HTTP from the S3 server (the embedded server's
   * anonymous port; for your own S3 the path-style URL, which plays if the bucket or a CDN in front
   * of it allows anonymous reads). With ffmpeg present, ffprobe reads that URL, over HTTP only, and
   * must find the broadcast's duration. Returns whether it did (true without ffmpeg: nothing to
   * check against synthetic files).
   */
  private static boolean printPlaybackUrl(URI url, boolean ffmpeg) throws IOException, InterruptedException {
    say("HLS: %s plays from the S3 server over HTTP (the playlists are the ones the ledger published)", url);
    if (!ffmpeg) {
      say("ffprobe: skipped, the synthetic chunks are not media (install ffmpeg)");
      return true;
    }
    Process probe = new ProcessBuilder("ffprobe", "-v", "error", "-protocol_whitelist", "http,tcp", "-show_entries",
        "format=duration", "-of", "csv=p=0", url.toString()).redirectErrorStream(true).start();
    String out = new String(probe.getInputStream().readAllBytes()).strip();
    boolean exited = probe.waitFor() == 0;
    double seconds = -1;
    try {
      seconds = Double.parseDouble(out);
    } catch (NumberFormatException e) {
      // not a duration: reported below
    }
    boolean plays = exited && Math.abs(seconds - BROADCAST.toSeconds()) < 1.0;
    say(plays ? "ffprobe over HTTP: %s s of media at that URL" : "ffprobe over HTTP could NOT read %s s: %s",
        plays ? out : BROADCAST.toSeconds(), out);
    return plays;
  }

  /** The path-style HTTP URL of {@code key}: the anonymous port of the embedded server, or {@code endpoint}. */
  private static URI playbackUrl(PlaybackBucketServer embedded, URI endpoint, String bucket, String key) {
    if (embedded != null) {
      return embedded.url(bucket, key);
    }
    String base = endpoint == null ? "https://" + bucket + ".s3.amazonaws.com/" : endpoint + "/" + bucket + "/";
    return URI.create(base + key);
  }

  /** Blocks until the process is stopped, for {@code --serve}: the URL keeps playing meanwhile. */
  private static void serveUntilStopped(URI url) throws InterruptedException {
    say("Serving %s until you stop the demo (Ctrl-C)", url);
    new java.util.concurrent.CountDownLatch(1).await();
  }

  private static void say(String format, Object... args) {
    System.out.printf("[demo] " + format + "%n", args);
  }
}
