package dev.segmentledger.it.browser;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.segmentledger.core.ClosedFile;
import dev.segmentledger.core.ItemId;
import dev.segmentledger.core.Ledger;
import dev.segmentledger.core.ObjectKeys;
import dev.segmentledger.ffmpeg.Cli;
import dev.segmentledger.it.browser.BrowserPlayback.Observation;
import dev.segmentledger.it.browser.BrowserPlayback.Tools;
import dev.segmentledger.jdbi.JdbiStateStore;
import dev.segmentledger.s3.S3ObjectSink;
import dev.segmentledger.s3.S3ProxyServer;
import dev.segmentledger.testkit.PlaybackBucketServer;
import dev.segmentledger.testkit.PostgresExtension;
import dev.segmentledger.testkit.TestMedia;
import java.net.URI;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.jdbi.v3.core.Jdbi;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;
import software.amazon.awssdk.services.s3.S3Client;

/**
 * A broadcast watched live: 40 s recorded with ffmpeg as twenty 2-second chunks is registered one
 * chunk every 2 s, as a recorder closes them, with a ledger on PostgreSQL that repackages with
 * ffmpeg, uploads to S3Proxy and publishes the playlists. While it is still being recorded,
 * headless Chromium with hls.js opens the live multivariant playlist ({@code {broadcast}/live.m3u8},
 * which points at each rendition's live window) over plain HTTP and must play it as a live stream,
 * staying within three target durations of the live edge (hls.js's own latency estimate) once it has
 * joined (at most {@link #JOIN} after it starts playing), but for a tenth of the samples (a stall on
 * a loaded machine moves hls.js's estimate for a moment), and never falling out of the window. After the end, the full playlist
 * ({@code master.m3u8}, VOD) must play to its end.
 */
@Tag("long") // an end-to-end scenario of 20 s or more: the long profile runs it (tests/README.md)
class LiveBrowserPlaybackTest {
  @RegisterExtension static final PostgresExtension PG = PostgresExtension.create();
  private static final Duration BROADCAST = Duration.ofSeconds(40);
  private static final Duration CHUNK = Duration.ofSeconds(2);
  private static final String BROADCAST_ID = "live-watch";
  private static final String RENDITION = "360p";
  private static final Instant RECORDED = Instant.parse("2026-12-04T10:00:00Z");
  /**
   * Segments listed in the live window before the player opens it: the window's full size, as a
   * viewer joining a running broadcast finds it.
   */
  private static final int LISTED_BEFORE_PLAYING = 6;
  /**
   * How long the player may take to reach its distance from the edge after it starts playing.
   * hls.js sometimes starts at the window's first segment (its start is computed before its own
   * latency estimate exists) and seeks to its sync distance at the next playlist reload, as the
   * player page asks it to; from then on every sample must be within three target durations.
   */
  private static final Duration JOIN = Duration.ofSeconds(8);

  @Test
  @Timeout(300)
  void chromiumPlaysTheLiveWindowNearItsEdgeAndTheFullPlaylistToItsEnd(@TempDir Path dir) throws Exception {
    Tools tools = BrowserPlayback.requireTools();
    Cli.requireFfmpeg();
    Path root = Files.createDirectories(dir.resolve("root")).toRealPath();
    List<Path> chunks = TestMedia.recordChunks(Cli.FFMPEG, root.resolve("rec"), BROADCAST, CHUNK);
    assertEquals(20, chunks.size(), "chunks recorded: " + chunks);
    JdbiStateStore store = JdbiStateStore.create(Jdbi.create(PG.dataSource())).migrate();

    try (PlaybackBucketServer server = PlaybackBucket.start();
        S3Client s3 = S3ProxyServer.client(server.signedEndpoint(), Duration.ofSeconds(30))) {
      String bucket = server.createBucket("ledger-live");
      S3ObjectSink sink = S3ObjectSink.builder().client(s3).bucket(bucket).build();
      String pageKey = BrowserPlayback.publishPlayer(s3, bucket, "player/", tools);
      URI liveMedia = server.url(bucket, ObjectKeys.liveMediaPlaylistKey(BROADCAST_ID, RENDITION));
      URI live = server.url(bucket, ObjectKeys.liveMultivariantPlaylistKey(BROADCAST_ID));
      try (PublishingLedger publishing = new PublishingLedger(store, sink, root)) {
        Ledger ledger = publishing.ledger();
        CompletableFuture<Void> recorder = CompletableFuture.runAsync(() -> record(ledger, chunks));
        publishing.events().awaitUntil("the live window lists " + LISTED_BEFORE_PLAYING + " segments",
            () -> segmentsListed(published(liveMedia)) >= LISTED_BEFORE_PLAYING, Duration.ofSeconds(60));

        List<String> late = new ArrayList<>();
        List<Double> latencies = new ArrayList<>();
        long[] playingSince = {0};
        boolean[] joined = {false};
        int[] joinedSamples = {0};
        Observation watched = BrowserPlayback.watch(tools, server.url(bucket, pageKey), live, "&liveSync=2",
            Duration.ofSeconds(40), snapshot -> recorder.isDone(), snapshot -> {
              double latency = BrowserPlayback.number(snapshot.get("latency"));
              double target = BrowserPlayback.number(snapshot.get("targetDuration"));
              double position = BrowserPlayback.number(snapshot.get("position"));
              if (position > 0 && latency >= 0 && target > 0) { // playing, with an estimate of the edge
                latencies.add(latency);
                long now = System.nanoTime();
                playingSince[0] = latencies.size() == 1 ? now : playingSince[0];
                joined[0] |= latency <= 3 * target;
                boolean joining = !joined[0] && now - playingSince[0] <= JOIN.toNanos();
                if (!joining) {
                  joinedSamples[0]++;
                }
                if (latency > 3 * target && !joining) {
                  late.add(String.format(Locale.ROOT, "at %.2f s: %.2f s behind the edge (target %.0f s)",
                      position, latency, target));
                }
              }
            }, Path.of("target", "browser-playback-live"));
        System.out.printf(Locale.ROOT, "live playback of %s: %s%nlatency samples %s%n", live, watched.report(),
            latencies);
        assertTrue(watched.fatalErrors().isEmpty(), "fatal errors while playing live:\n" + watched.report());
        assertTrue(latencies.size() >= 20, "the player reported its latency while playing only "
            + latencies.size() + " times:\n" + watched.report());
        assertTrue(late.size() <= joinedSamples[0] / 10, "the live player was more than three target durations"
            + " behind the edge in more than a tenth of " + joinedSamples[0] + " samples once it had joined: " + late
            + "\n" + watched.report());
        double windowSeconds = LISTED_BEFORE_PLAYING * CHUNK.toMillis() / 1000.0;
        assertTrue(latencies.stream().allMatch(latency -> latency <= windowSeconds + CHUNK.toSeconds() + 1),
            "the live player fell out of the live window (" + windowSeconds + " s, plus the playlist's age): " + latencies
            + "\n" + watched.report());

        recorder.get(60, TimeUnit.SECONDS);
        ledger.endBroadcast(BROADCAST_ID);
        publishing.awaitFinalPlaylists(BROADCAST_ID, RENDITION, Duration.ofSeconds(120));
        String window = PlaybackBucket.get(liveMedia);
        assertTrue(window.strip().endsWith("#EXT-X-ENDLIST"), "the live window ends the list at the end:\n" + window);
      }

      URI full = server.url(bucket, ObjectKeys.multivariantPlaylistKey(BROADCAST_ID));
      Observation replayed = BrowserPlayback.watch(tools, server.url(bucket, pageKey), full, "&rate=4",
          Duration.ofSeconds(60), snapshot -> Boolean.TRUE.equals(snapshot.get("ended")), snapshot -> { },
          Path.of("target", "browser-playback-full"));
      System.out.printf(Locale.ROOT, "playback of the full playlist %s: %s%n", full, replayed.report());
      BrowserPlayback.assertPlayedPast(replayed, BROADCAST.toSeconds() - 1.0);
      assertTrue(replayed.ended(), "the full playlist played to its end:\n" + replayed.report());
    }
  }

  /** Registers chunk {@code i} at {@code i} chunk lengths after the first, as a live recorder closes them. */
  private static void record(Ledger ledger, List<Path> chunks) {
    long start = System.nanoTime();
    for (int i = 0; i < chunks.size(); i++) {
      long due = start + CHUNK.multipliedBy(i).toNanos();
      long wait = due - System.nanoTime();
      if (wait > 0) {
        try {
          TimeUnit.NANOSECONDS.sleep(wait); // the recorder's pace, not a wait for the ledger
        } catch (InterruptedException e) {
          Thread.currentThread().interrupt();
          return;
        }
      }
      ledger.register(ClosedFile.of(ItemId.original(BROADCAST_ID, RENDITION, i), chunks.get(i),
          RECORDED.plus(CHUNK.multipliedBy(i))));
    }
  }

  private static int segmentsListed(String playlist) {
    return (int) playlist.lines().filter(line -> line.startsWith("#EXTINF:")).count();
  }

  private static String published(URI playlist) {
    try {
      return PlaybackBucket.get(playlist);
    } catch (Exception | AssertionError e) { // not published yet (404), or the server is busy
      return "";
    }
  }
}
