package dev.segmentledger.it;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.segmentledger.core.Axis;
import dev.segmentledger.core.BroadcastStatus;
import dev.segmentledger.core.ItemId;
import dev.segmentledger.core.ItemState;
import dev.segmentledger.core.Ledger;
import dev.segmentledger.core.ObjectKeys;
import dev.segmentledger.core.ReconciliationReport;
import dev.segmentledger.ffmpeg.Cli;
import dev.segmentledger.ffmpeg.FfmpegRepackager;
import dev.segmentledger.jdbi.JdbiStateStore;
import dev.segmentledger.testkit.ConsistencyAssertions;
import dev.segmentledger.testkit.DirectoryObjectSink;
import dev.segmentledger.testkit.LedgerEvents;
import dev.segmentledger.testkit.PostgresExtension;
import dev.segmentledger.testkit.TestMedia;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import org.jdbi.v3.core.Jdbi;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

/**
 * The reference run of docs/design.md with real media: a 60-second broadcast recorded by ffmpeg as 15
 * MPEG-TS chunks, registered with a ledger on PostgreSQL that repackages them with ffmpeg and
 * uploads all three axes. Then the bucket is played: the ledger's playlist, written next to the
 * objects, is decoded by ffmpeg from the bucket directory alone.
 */
@Tag("long") // an end-to-end scenario of 20 s or more: the long profile runs it (tests/README.md)
class RecordedBroadcastTest {
  @RegisterExtension static final PostgresExtension PG = PostgresExtension.create();
  private static final int CHUNKS = 15;

  @TempDir Path temp;

  @Test
  void sixtySecondsInFifteenChunksAreConfirmedOnEveryAxisAndPlayFromTheBucket() throws Exception {
    Cli.requireFfmpeg();
    Path root = Files.createDirectories(temp.resolve("root")).toRealPath();
    Path bucketDir = Files.createDirectories(temp.resolve("bucket"));
    List<Path> chunks = TestMedia.recordChunks(Cli.FFMPEG, Files.createDirectories(root.resolve("rec")),
        Duration.ofSeconds(60), Duration.ofSeconds(4));
    assertEquals(CHUNKS, chunks.size());

    JdbiStateStore store = JdbiStateStore.create(Jdbi.create(PG.dataSource())).migrate();
    DirectoryObjectSink bucket = new DirectoryObjectSink(bucketDir);
    FfmpegRepackager repackager = FfmpegRepackager.builder().ffmpeg(Cli.FFMPEG).timeout(Duration.ofSeconds(60))
        .build();
    LedgerEvents events = new LedgerEvents();
    String b = "live60";
    try (Ledger ledger = Wiring.ledger(store, bucket, root, repackager, events).build()) {
      ledger.start();
      for (int i = 0; i < CHUNKS; i++) {
        ledger.register(ItemId.original(b, "720p", i), chunks.get(i));
      }
      ledger.endBroadcast(b);
      events.awaitUntil("the broadcast is complete",
          () -> ledger.broadcastStatus(b).phase() == BroadcastStatus.Phase.COMPLETE, Duration.ofSeconds(120));

      BroadcastStatus status = ledger.broadcastStatus(b);
      assertEquals(CHUNKS, status.count(Axis.ORIGINAL, ItemState.CONFIRMED));
      assertEquals(CHUNKS, status.count(Axis.PLAYBACK, ItemState.CONFIRMED));
      assertEquals(1, status.count(Axis.INIT, ItemState.CONFIRMED));
      ReconciliationReport report = ConsistencyAssertions.assertConsistent(store, bucket, b);
      assertEquals(CHUNKS, report.axis(Axis.ORIGINAL).objects());
      assertEquals(CHUNKS, report.axis(Axis.PLAYBACK).objects());
      assertEquals(1, report.axis(Axis.INIT).objects());
      System.out.println("60 s broadcast: " + report.describe());

      String m3u8 = ledger.playback(b, "720p").mediaPlaylist().orElseThrow();
      Path playlist = bucket.pathOf(ObjectKeys.broadcastPrefix(b) + "720p/index.m3u8");
      Files.writeString(playlist, m3u8);
      assertTrue(m3u8.endsWith("#EXT-X-ENDLIST\n"), m3u8);

      Cli.Result decode = Cli.run(List.of(Cli.FFMPEG.toString(), "-nostdin", "-hide_banner", "-v", "warning",
          "-protocol_whitelist", "file", "-i", playlist.toString(), "-f", "null", "-"));
      assertEquals(0, decode.exit(), decode.stderr());
      assertEquals("", decode.stderr().strip(), "the bucket's playlist decodes without warnings");
      Cli.Result frames = Cli.run(List.of(Cli.FFPROBE.toString(), "-v", "error", "-protocol_whitelist", "file",
          "-select_streams", "v:0", "-count_packets", "-show_entries", "stream=nb_read_packets", "-of", "csv=p=0",
          playlist.toString()));
      assertEquals(0, frames.exit(), frames.stderr());
      double seconds = Integer.parseInt(frames.stdout().strip().lines().findFirst().orElseThrow().replace(",", "")) / 25.0;
      System.out.printf("played from the bucket: %.3f s of video%n", seconds);
      assertEquals(60.0, seconds, 4.0, "duration within one segment");
    }
  }
}
