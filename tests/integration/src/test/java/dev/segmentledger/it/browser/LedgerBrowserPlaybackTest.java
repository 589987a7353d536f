package dev.segmentledger.it.browser;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.segmentledger.core.Axis;
import dev.segmentledger.core.BroadcastStatus;
import dev.segmentledger.core.ClosedFile;
import dev.segmentledger.core.ItemId;
import dev.segmentledger.core.ItemState;
import dev.segmentledger.core.Ledger;
import dev.segmentledger.core.ObjectKeys;
import dev.segmentledger.ffmpeg.Cli;
import dev.segmentledger.ffmpeg.FfmpegRepackager;
import dev.segmentledger.it.browser.BrowserPlayback.Observation;
import dev.segmentledger.it.browser.BrowserPlayback.Tools;
import dev.segmentledger.it.browser.FfprobeOverHttp.Probe;
import dev.segmentledger.jdbi.JdbiStateStore;
import dev.segmentledger.s3.S3ObjectSink;
import dev.segmentledger.s3.S3ProxyServer;
import dev.segmentledger.testkit.ConsistencyAssertions;
import dev.segmentledger.testkit.PlaybackBucketServer;
import dev.segmentledger.testkit.PostgresExtension;
import dev.segmentledger.testkit.TestMedia;
import java.net.URI;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import org.jdbi.v3.core.Jdbi;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;
import software.amazon.awssdk.services.s3.S3Client;

/**
 * Playback of what the ledger published: a 30-second broadcast recorded with ffmpeg as six 5-second MPEG-TS
 * chunks is registered with a ledger on PostgreSQL that repackages it with the
 * {@link FfmpegRepackager}, uploads every axis to S3Proxy with the {@link S3ObjectSink} and
 * publishes the playlists itself: nothing in this test writes a playlist or a media object. Once
 * the broadcast is complete and its final playlists are published, headless Chromium with hls.js
 * opens {@code {broadcast}/master.m3u8} from the S3 server over plain HTTP (the anonymous port) and
 * must play past 20 s of media with no fatal error; ffprobe over HTTP must read the same URL as
 * 30 s of media. The chunks are registered with their recording times, so the media playlist gives
 * each segment its {@code #EXT-X-PROGRAM-DATE-TIME}. The harness's own control (media no browser can decode fails) is in
 * {@link BrowserPlaybackTest}.
 */
@Tag("long") // an end-to-end scenario of 20 s or more: the long profile runs it (tests/README.md)
class LedgerBrowserPlaybackTest {
  @RegisterExtension static final PostgresExtension PG = PostgresExtension.create();
  private static final Duration BROADCAST = Duration.ofSeconds(30);
  private static final Duration CHUNK = Duration.ofSeconds(5);
  private static final double MUST_PLAY_PAST = 20.0;
  private static final String BROADCAST_ID = "browser-playback-ledger";
  private static final String RENDITION = "360p";
  private static final String PLAYLIST_TYPE = "application/vnd.apple.mpegurl";
  private static final Instant RECORDED = Instant.parse("2026-11-30T17:00:00Z");

  @Test
  @Timeout(240)
  void chromiumPlaysThePlaylistsTheLedgerPublishedPastTwentySeconds(@TempDir Path dir) throws Exception {
    Tools tools = BrowserPlayback.requireTools();
    Cli.requireFfmpeg();
    long started = System.nanoTime();
    Path root = Files.createDirectories(dir.resolve("root")).toRealPath();
    List<Path> chunks = TestMedia.recordChunks(Cli.FFMPEG, root.resolve("rec"), BROADCAST, CHUNK);
    assertEquals(6, chunks.size(), "chunks recorded: " + chunks);
    JdbiStateStore store = JdbiStateStore.create(Jdbi.create(PG.dataSource())).migrate();

    try (PlaybackBucketServer server = PlaybackBucket.start();
        S3Client s3 = S3ProxyServer.client(server.signedEndpoint(), Duration.ofSeconds(30))) {
      String bucket = server.createBucket("ledger-playback");
      S3ObjectSink sink = S3ObjectSink.builder().client(s3).bucket(bucket).build();
      try (PublishingLedger publishing = new PublishingLedger(store, sink, root)) {
        Ledger ledger = publishing.ledger();
        for (int i = 0; i < chunks.size(); i++) { // with recording times: the playlist carries them
          ledger.register(ClosedFile.of(ItemId.original(BROADCAST_ID, RENDITION, i), chunks.get(i),
              RECORDED.plus(CHUNK.multipliedBy(i))));
        }
        ledger.endBroadcast(BROADCAST_ID);
        publishing.awaitFinalPlaylists(BROADCAST_ID, RENDITION, Duration.ofSeconds(150));
        BroadcastStatus status = ledger.broadcastStatus(BROADCAST_ID);
        assertEquals(chunks.size(), status.count(Axis.PLAYBACK, ItemState.CONFIRMED), "segments confirmed");
        assertEquals(1, status.count(Axis.INIT, ItemState.CONFIRMED), "init confirmed");
        System.out.printf(Locale.ROOT, "recorded, repackaged, uploaded and published by the ledger in %.1f s%n",
            seconds(started));
        ConsistencyAssertions.assertConsistent(store, sink, BROADCAST_ID);
      }

      String multivariantKey = ObjectKeys.multivariantPlaylistKey(BROADCAST_ID);
      String mediaKey = ObjectKeys.mediaPlaylistKey(BROADCAST_ID, RENDITION);
      String pageKey = BrowserPlayback.publishPlayer(s3, bucket, "player/", tools);
      Map<String, String> expectedTypes = new LinkedHashMap<>();
      expectedTypes.put(multivariantKey, PLAYLIST_TYPE);
      expectedTypes.put(mediaKey, PLAYLIST_TYPE);
      expectedTypes.put(ObjectKeys.keyOf(ItemId.init(BROADCAST_ID, RENDITION)), "video/mp4");
      expectedTypes.put(ObjectKeys.keyOf(ItemId.playback(BROADCAST_ID, RENDITION, 0)), "video/iso.segment");
      PlaybackBucket.assertServedAnonymously(server, bucket, expectedTypes);

      URI playlist = server.url(bucket, multivariantKey);
      String media = PlaybackBucket.get(server.url(bucket, mediaKey));
      System.out.println("multivariant playlist " + playlist + ":\n" + PlaybackBucket.get(playlist) + "media playlist "
          + server.url(bucket, mediaKey) + ":\n" + media);
      assertTrue(media.contains("#EXT-X-PLAYLIST-TYPE:VOD") && media.strip().endsWith("#EXT-X-ENDLIST"),
          "the final media playlist is VOD and ends the list:\n" + media);
      assertTrue(media.contains("#EXT-X-MAP:URI="), "the media playlist maps the init:\n" + media);
      assertTrue(media.contains("#EXT-X-PROGRAM-DATE-TIME:2026-11-30T17:00:00.000Z\n#EXTINF:")
          && media.contains("#EXT-X-PROGRAM-DATE-TIME:2026-11-30T17:00:25.000Z\n#EXTINF:"),
          "each segment carries its recording time:\n" + media);

      Observation played = BrowserPlayback.play(tools, server.url(bucket, pageKey), playlist,
          Duration.ofSeconds(60), MUST_PLAY_PAST + 1, Path.of("target", "browser-playback-ledger"));
      System.out.printf(Locale.ROOT, "browser playback of the ledger's %s: observed position %.2f s%n%s%n",
          playlist, played.position(), played.report());
      BrowserPlayback.assertPlayedPast(played, MUST_PLAY_PAST);

      Probe probe = FfprobeOverHttp.probe(playlist);
      System.out.printf(Locale.ROOT, "ffprobe over HTTP of the ledger's %s: %s%n", playlist, probe);
      assertEquals(BROADCAST.toSeconds(), probe.duration(), 0.5, "ffprobe's duration of " + playlist);
      assertEquals(BROADCAST.toSeconds(), probe.videoSeconds(), 0.5, "video ffprobe read through " + playlist);
    }
  }

  private static double seconds(long since) {
    return (System.nanoTime() - since) / 1e9;
  }
}
