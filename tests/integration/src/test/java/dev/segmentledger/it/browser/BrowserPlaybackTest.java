package dev.segmentledger.it.browser;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.segmentledger.core.ItemId;
import dev.segmentledger.core.ObjectKeys;
import dev.segmentledger.core.PlaybackView;
import dev.segmentledger.core.spi.RepackagedFile;
import dev.segmentledger.ffmpeg.Cli;
import dev.segmentledger.ffmpeg.FfmpegRepackager;
import dev.segmentledger.it.browser.BrowserPlayback.Observation;
import dev.segmentledger.it.browser.BrowserPlayback.Tools;
import dev.segmentledger.it.browser.FfprobeOverHttp.Probe;
import dev.segmentledger.it.browser.MultivariantPlaylist.Variant;
import dev.segmentledger.s3.ObjectOptions;
import dev.segmentledger.s3.S3ProxyServer;
import dev.segmentledger.testkit.PlaybackBucketServer;
import dev.segmentledger.testkit.TestMedia;
import java.net.URI;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Random;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;
import software.amazon.awssdk.core.sync.RequestBody;
import software.amazon.awssdk.services.s3.S3Client;

/**
 * "Played, not parsed": the harness itself. A 30-second broadcast is recorded with
 * ffmpeg as MPEG-TS chunks ({@link TestMedia}), repackaged to fMP4 by the {@link FfmpegRepackager}
 * (one init, one segment per chunk, as the ledger's PLAYBACK and INIT axes do), and uploaded with
 * the AWS SDK, not yet through the ledger, to S3Proxy at the ledger's keys
 * ({@link ObjectKeys}) with the ledger's content types ({@link ObjectOptions#defaultContentType}).
 * Beside them go the media playlist that {@link PlaybackView#mediaPlaylist()} writes (VOD, with
 * {@code EXT-X-MAP} and {@code EXT-X-ENDLIST}) and a multivariant playlist over it.
 *
 * <p>Then headless Chromium with hls.js opens the multivariant playlist from the S3 server over
 * plain HTTP and must play past 20 s of media with no fatal error, and ffprobe over HTTP must
 * read the same URL as 30 s of media.
 */
@Tag("long") // an end-to-end scenario of 20 s or more: the long profile runs it (tests/README.md)
class BrowserPlaybackTest {
  private static final Duration BROADCAST = Duration.ofSeconds(30);
  private static final Duration CHUNK = Duration.ofSeconds(5);
  private static final double MUST_PLAY_PAST = 20.0;
  private static final String BROADCAST_ID = "browser-playback";
  private static final String RENDITION = "360p";

  @Test
  @Timeout(150)
  void chromiumPlaysTheBroadcastFromTheBucketPastTwentySeconds(@TempDir Path dir) throws Exception {
    Tools tools = BrowserPlayback.requireTools();
    Cli.requireFfmpeg();
    long started = System.nanoTime();
    List<Path> chunks = TestMedia.recordChunks(Cli.FFMPEG, dir.resolve("recording"), BROADCAST, CHUNK);
    assertEquals(6, chunks.size(), "chunks recorded: " + chunks);
    FfmpegRepackager repackager = PublishingLedger.repackager();

    try (PlaybackBucketServer server = PlaybackBucket.start();
        S3Client s3 = S3ProxyServer.client(server.signedEndpoint(), Duration.ofSeconds(30))) {
      String bucket = server.createBucket("playback");
      Map<String, String> expectedTypes = new LinkedHashMap<>();

      String initKey = ObjectKeys.keyOf(ItemId.init(BROADCAST_ID, RENDITION));
      RepackagedFile init = repackager.init(chunks.get(0), dir.resolve("init.mp4"));
      put(s3, bucket, initKey, init.path(), expectedTypes);
      List<PlaybackView.Segment> segments = new ArrayList<>();
      long peakBitsPerSecond = 0;
      for (int sequence = 0; sequence < chunks.size(); sequence++) {
        RepackagedFile segment = repackager.segment(chunks.get(sequence), sequence,
            dir.resolve(String.format(Locale.ROOT, "%05d.m4s", sequence)));
        String key = ObjectKeys.keyOf(ItemId.playback(BROADCAST_ID, RENDITION, sequence));
        put(s3, bucket, key, segment.path(), expectedTypes);
        segments.add(new PlaybackView.Segment(sequence, key, segment.duration(), null));
        peakBitsPerSecond = Math.max(peakBitsPerSecond,
            segment.sizeBytes() * 8 * 1000 / Math.max(1, segment.duration().toMillis()));
      }
      String mediaPlaylist = new PlaybackView(BROADCAST_ID, RENDITION, true, true, segments).mediaPlaylist()
          .orElseThrow();
      String mediaKey = BROADCAST_ID + "/" + RENDITION + "/media.m3u8";
      put(s3, bucket, mediaKey, mediaPlaylist, expectedTypes);
      String multivariant = MultivariantPlaylist.of(List.of(new Variant(RENDITION + "/media.m3u8",
          peakBitsPerSecond, "640x360", MultivariantPlaylist.codecsOf(Files.readAllBytes(init.path())))));
      String multivariantKey = BROADCAST_ID + "/master.m3u8";
      put(s3, bucket, multivariantKey, multivariant, expectedTypes);

      System.out.printf(Locale.ROOT, "recorded, repackaged and uploaded in %.1f s%n", seconds(started));
      String pageKey = BrowserPlayback.publishPlayer(s3, bucket, "player/", tools);
      expectedTypes.put(pageKey, "text/html");
      expectedTypes.put("player/" + BrowserPlayback.HLS_JS, "application/javascript");
      PlaybackBucket.assertServedAnonymously(server, bucket, expectedTypes);

      URI playlist = server.url(bucket, multivariantKey);
      System.out.println("multivariant playlist " + playlist + ":\n" + multivariant
          + "media playlist " + server.url(bucket, mediaKey) + ":\n" + mediaPlaylist);

      Observation played = BrowserPlayback.play(tools, server.url(bucket, pageKey), playlist,
          Duration.ofSeconds(60), MUST_PLAY_PAST + 1, Path.of("target", "browser-playback"));
      System.out.printf(Locale.ROOT, "browser playback of %s: observed position %.2f s%n%s%n",
          playlist, played.position(), played.report());
      BrowserPlayback.assertPlayedPast(played, MUST_PLAY_PAST);

      long probing = System.nanoTime();
      Probe probe = FfprobeOverHttp.probe(playlist);
      System.out.printf(Locale.ROOT, "ffprobe over HTTP of %s: %s (%.1f s)%n", playlist, probe, seconds(probing));
      double total = segments.stream().mapToLong(s -> s.duration().toMillis()).sum() / 1000.0;
      assertEquals(BROADCAST.toSeconds(), total, 0.5, "the segments' durations add up to the broadcast");
      assertEquals(total, probe.duration(), 0.5, "ffprobe's duration of " + playlist);
      assertEquals(total, probe.videoSeconds(), 0.5, "video ffprobe read through " + playlist);
    }
  }

  /**
   * The control: the same harness on a playlist that parses but does not play (a real init, and
   * segments of random bytes at the ledger's keys, each listed as 5 s) must not pass. A harness
   * that passed here would be checking playlists, not playback.
   */
  @Test
  @Timeout(120)
  void theHarnessDoesNotPassMediaNoBrowserCanDecode(@TempDir Path dir) throws Exception {
    Tools tools = BrowserPlayback.requireTools();
    Cli.requireFfmpeg();
    List<Path> chunks = TestMedia.recordChunks(Cli.FFMPEG, dir.resolve("recording"), CHUNK, CHUNK);
    FfmpegRepackager repackager = PublishingLedger.repackager();
    try (PlaybackBucketServer server = PlaybackBucket.start();
        S3Client s3 = S3ProxyServer.client(server.signedEndpoint(), Duration.ofSeconds(30))) {
      String bucket = server.createBucket("playback");
      Map<String, String> types = new LinkedHashMap<>();
      RepackagedFile init = repackager.init(chunks.get(0), dir.resolve("init.mp4"));
      put(s3, bucket, ObjectKeys.keyOf(ItemId.init(BROADCAST_ID, RENDITION)), init.path(), types);
      Random random = new Random(17);
      List<PlaybackView.Segment> segments = new ArrayList<>();
      for (int sequence = 0; sequence < 6; sequence++) {
        byte[] garbage = new byte[64 * 1024];
        random.nextBytes(garbage);
        Path file = Files.write(dir.resolve(sequence + ".m4s"), garbage);
        String key = ObjectKeys.keyOf(ItemId.playback(BROADCAST_ID, RENDITION, sequence));
        put(s3, bucket, key, file, types);
        segments.add(new PlaybackView.Segment(sequence, key, CHUNK, null));
      }
      put(s3, bucket, BROADCAST_ID + "/" + RENDITION + "/media.m3u8",
          new PlaybackView(BROADCAST_ID, RENDITION, true, true, segments).mediaPlaylist().orElseThrow(), types);
      String multivariantKey = BROADCAST_ID + "/master.m3u8";
      put(s3, bucket, multivariantKey, MultivariantPlaylist.of(List.of(new Variant(RENDITION + "/media.m3u8",
          1_000_000, "640x360", MultivariantPlaylist.codecsOf(Files.readAllBytes(init.path()))))), types);
      String pageKey = BrowserPlayback.publishPlayer(s3, bucket, "player/", tools);

      Observation played = BrowserPlayback.play(tools, server.url(bucket, pageKey),
          server.url(bucket, multivariantKey), Duration.ofSeconds(25), MUST_PLAY_PAST + 1,
          Path.of("target", "browser-playback-undecodable"));
      System.out.printf(Locale.ROOT, "browser playback of undecodable segments: observed position %.2f s%n%s%n",
          played.position(), played.report());
      assertTrue(!played.fatalErrors().isEmpty() || played.position() <= MUST_PLAY_PAST,
          "the harness passed media that cannot be decoded:\n" + played.report());
      // hls.js 1.7.4 gives up with a fatal fragParsingError within about a second: the error path works.
      assertFalse(played.fatalErrors().isEmpty(), "no fatal error reported:\n" + played.report());
    }
  }

  private static double seconds(long since) {
    return (System.nanoTime() - since) / 1e9;
  }

  private static void put(S3Client s3, String bucket, String key, Path file, Map<String, String> expectedTypes) {
    String type = ObjectOptions.defaultContentType(key);
    s3.putObject(b -> b.bucket(bucket).key(key).contentType(type), RequestBody.fromFile(file));
    expectedTypes.put(key, type);
  }

  private static void put(S3Client s3, String bucket, String key, String text, Map<String, String> expectedTypes) {
    String type = ObjectOptions.defaultContentType(key);
    s3.putObject(b -> b.bucket(bucket).key(key).contentType(type), RequestBody.fromString(text));
    expectedTypes.put(key, type);
  }
}
