package dev.segmentledger.it.browser;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.segmentledger.core.Axis;
import dev.segmentledger.core.BroadcastStatus;
import dev.segmentledger.core.ClosedFile;
import dev.segmentledger.core.ItemId;
import dev.segmentledger.core.ItemState;
import dev.segmentledger.core.Ledger;
import dev.segmentledger.core.LedgerItem;
import dev.segmentledger.core.MediaFormat;
import dev.segmentledger.core.ObjectKeys;
import dev.segmentledger.ffmpeg.Cli;
import dev.segmentledger.ffmpeg.FfmpegRepackager;
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
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.jdbi.v3.core.Jdbi;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;
import software.amazon.awssdk.services.s3.S3Client;

/**
 * Originals that are not MPEG-TS, on PostgreSQL, S3Proxy and ffmpeg, no browser: a recorder writing each chunk as a
 * fragmented MP4 (made here by ffmpeg from the recorded MPEG-TS chunks, timeline kept) registers
 * them as {@link MediaFormat#MP4} originals with their recording times. The originals land under
 * {@code .mp4} keys served as {@code video/mp4}; the {@link FfmpegRepackager} makes the PLAYBACK
 * segments from them; the media playlist the ledger publishes, read from the S3 server over plain
 * HTTP, gives every segment its {@code #EXT-X-PROGRAM-DATE-TIME}, and ffprobe reads it over HTTP as
 * the whole broadcast.
 */
class NonTsOriginalsOverHttpTest {
  @RegisterExtension static final PostgresExtension PG = PostgresExtension.create();
  private static final Duration BROADCAST = Duration.ofSeconds(20);
  private static final Duration CHUNK = Duration.ofSeconds(5);
  private static final String BROADCAST_ID = "browser-playback-mp4";
  private static final String RENDITION = "360p";
  private static final Instant RECORDED = Instant.parse("2026-11-30T17:00:00.040Z");

  @Test
  @Timeout(180)
  void mp4OriginalsWithRecordingTimesArePublishedWithProgramDateTimes(@TempDir Path dir) throws Exception {
    Cli.requireFfmpeg();
    Path root = Files.createDirectories(dir.resolve("root")).toRealPath();
    List<Path> ts = TestMedia.recordChunks(Cli.FFMPEG, dir.resolve("ts"), BROADCAST, CHUNK);
    assertEquals(4, ts.size(), "chunks recorded: " + ts);
    List<Path> mp4 = new ArrayList<>();
    for (int i = 0; i < ts.size(); i++) {
      Path out = Files.createDirectories(root.resolve("rec")).resolve(String.format("%05d.mp4", i));
      Cli.Result r = Cli.run(List.of(Cli.FFMPEG.toString(), "-nostdin", "-hide_banner", "-loglevel", "error", "-y",
          "-copyts", "-i", ts.get(i).toString(), "-c", "copy", "-bsf:a", "aac_adtstoasc", "-use_editlist", "0",
          "-avoid_negative_ts", "disabled", "-movflags", "+frag_keyframe+empty_moov+default_base_moof+frag_discont",
          "-f", "mp4", out.toString()));
      assertEquals(0, r.exit(), r.stderr());
      mp4.add(out);
    }
    JdbiStateStore store = JdbiStateStore.create(Jdbi.create(PG.dataSource())).migrate();

    try (PlaybackBucketServer server = PlaybackBucket.start();
        S3Client s3 = S3ProxyServer.client(server.signedEndpoint(), Duration.ofSeconds(30))) {
      String bucket = server.createBucket("ledger-mp4");
      S3ObjectSink sink = S3ObjectSink.builder().client(s3).bucket(bucket).build();
      try (PublishingLedger publishing = new PublishingLedger(store, sink, root)) {
        Ledger ledger = publishing.ledger();
        List<ClosedFile> files = new ArrayList<>();
        for (int i = 0; i < mp4.size(); i++) {
          files.add(ClosedFile.of(ItemId.original(BROADCAST_ID, RENDITION, i, MediaFormat.MP4), mp4.get(i),
              RECORDED.plus(CHUNK.multipliedBy(i))));
        }
        ledger.registerAll(files);
        ledger.endBroadcast(BROADCAST_ID);
        publishing.awaitFinalPlaylists(BROADCAST_ID, RENDITION, Duration.ofSeconds(120));
        BroadcastStatus status = ledger.broadcastStatus(BROADCAST_ID);
        assertEquals(mp4.size(), status.count(Axis.ORIGINAL, ItemState.CONFIRMED), "originals confirmed");
        assertEquals(mp4.size(), status.count(Axis.PLAYBACK, ItemState.CONFIRMED),
            "segments repackaged from the MP4 originals and confirmed");
        LedgerItem original = ledger.find(ItemId.original(BROADCAST_ID, RENDITION, 2)).orElseThrow();
        assertEquals(MediaFormat.MP4, original.id().format(), "the row names its format");
        assertEquals(RECORDED.plusSeconds(10), original.recordedAt());
        ConsistencyAssertions.assertConsistent(store, sink, BROADCAST_ID);
      }

      String mediaKey = ObjectKeys.mediaPlaylistKey(BROADCAST_ID, RENDITION);
      Map<String, String> expectedTypes = new LinkedHashMap<>();
      expectedTypes.put(BROADCAST_ID + "/" + RENDITION + "/original/0000000000.mp4", "video/mp4");
      expectedTypes.put(BROADCAST_ID + "/" + RENDITION + "/original/0000000003.mp4", "video/mp4");
      expectedTypes.put(ObjectKeys.keyOf(ItemId.playback(BROADCAST_ID, RENDITION, 0)), "video/iso.segment");
      expectedTypes.put(mediaKey, "application/vnd.apple.mpegurl");
      PlaybackBucket.assertServedAnonymously(server, bucket, expectedTypes);

      String media = PlaybackBucket.get(server.url(bucket, mediaKey));
      System.out.println("media playlist " + server.url(bucket, mediaKey) + ":\n" + media);
      Matcher m = Pattern.compile("#EXT-X-PROGRAM-DATE-TIME:(\\S+)\n#EXTINF:[0-9.]+,\n(playback/\\d+\\.m4s)\n")
          .matcher(media);
      List<String> tagged = new ArrayList<>();
      while (m.find()) {
        tagged.add(m.group(2) + " " + m.group(1));
      }
      assertEquals(List.of("playback/0000000000.m4s 2026-11-30T17:00:00.040Z",
          "playback/0000000001.m4s 2026-11-30T17:00:05.040Z", "playback/0000000002.m4s 2026-11-30T17:00:10.040Z",
          "playback/0000000003.m4s 2026-11-30T17:00:15.040Z"), tagged, media);

      URI playlist = server.url(bucket, ObjectKeys.multivariantPlaylistKey(BROADCAST_ID));
      Probe probe = FfprobeOverHttp.probe(playlist);
      System.out.println("ffprobe over HTTP of " + playlist + ": " + probe);
      assertEquals(BROADCAST.toSeconds(), probe.duration(), 0.5, "ffprobe's duration of " + playlist);
      assertTrue(probe.videoPackets() > 0, probe.toString());
    }
  }
}
