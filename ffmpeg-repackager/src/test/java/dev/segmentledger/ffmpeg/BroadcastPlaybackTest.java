package dev.segmentledger.ffmpeg;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.segmentledger.core.spi.RepackagedFile;
import dev.segmentledger.testkit.TestMedia;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A 60-second broadcast recorded as 15 MPEG-TS chunks of 4 s, each repackaged on its own, must
 * play as one HLS fMP4 stream behind a single init segment.
 */
class BroadcastPlaybackTest {
  private static final Duration TOTAL = Duration.ofSeconds(60);
  private static final Duration CHUNK = Duration.ofSeconds(4);
  private static final double FRAME_SECONDS = 1.0 / 25;

  @TempDir static Path work;
  private static List<Path> chunks;
  private static FfmpegRepackager repackager;

  @BeforeAll
  static void recordBroadcast() throws IOException {
    Cli.requireFfmpeg();
    chunks = TestMedia.recordChunks(Cli.FFMPEG, work.resolve("original"), TOTAL, CHUNK);
    repackager = FfmpegRepackager.builder().ffmpeg(Cli.FFMPEG).timeout(Duration.ofSeconds(30)).build();
  }

  @Test
  void recorderProducesFifteenChunks() {
    assertEquals(15, chunks.size(), chunks.toString());
  }

  @Test
  void separatelyRepackagedChunksPlayAsOneStream() throws Exception {
    Path out = Files.createDirectories(work.resolve("hls"));
    Files.createDirectories(out.resolve("playback"));
    RepackagedFile init = repackager.init(chunks.get(0), out.resolve("init.mp4"));
    assertEquals(Duration.ZERO, init.duration());
    List<RepackagedFile> segments = new ArrayList<>();
    for (int seq = 0; seq < chunks.size(); seq++) {
      Path target = out.resolve("playback").resolve(String.format("%010d.m4s", seq));
      RepackagedFile segment = repackager.segment(chunks.get(seq), seq, target);
      assertEquals(Files.size(target), segment.sizeBytes());
      assertTrue(segment.duration().compareTo(Duration.ofMillis(3900)) > 0
          && segment.duration().compareTo(Duration.ofMillis(4100)) < 0, "segment " + seq + ": " + segment);
      segments.add(segment);
    }
    Path playlist = MediaPlaylist.write(out.resolve("playlist.m3u8"), "init.mp4", segments);

    Cli.Result decode = Cli.run(List.of(Cli.FFMPEG.toString(), "-nostdin", "-hide_banner", "-v", "warning",
        "-protocol_whitelist", "file", "-i", playlist.toString(), "-f", "null", "-"));
    assertEquals(0, decode.exit(), decode.stderr());
    assertEquals("", decode.stderr().strip(), "decoding the playlist must not warn (errors, non-monotonic DTS...)");

    double[] video = packetTimes(playlist, "v:0");
    assertEquals(1500, video.length, "60 s at 25 fps");
    for (int i = 1; i < video.length; i++) {
      assertEquals(FRAME_SECONDS, video[i] - video[i - 1], 1e-6, "video timestamps must continue across segments at " + i);
    }
    double videoSpan = video[video.length - 1] - video[0] + FRAME_SECONDS;
    assertEquals(TOTAL.toSeconds(), videoSpan, CHUNK.toSeconds(), "played video duration");
    assertEquals(TOTAL.toSeconds(), videoSpan, 0.001, "played video duration, exactly");

    double[] audio = packetTimes(playlist, "a:0");
    for (int i = 1; i < audio.length; i++) {
      assertTrue(audio[i] > audio[i - 1], "audio timestamps must increase across segments at " + i);
    }
    assertEquals(TOTAL.toSeconds(), audio[audio.length - 1] - audio[0], 0.1, "played audio duration");
    System.out.printf("played %s: %d video frames spanning %.3f s, audio spanning %.3f s%n",
        playlist, video.length, videoSpan, audio[audio.length - 1] - audio[0]);
  }

  @Test
  void initFromAnyChunkIsByteIdentical() throws Exception {
    byte[] first = Files.readAllBytes(repackager.init(chunks.get(0), work.resolve("init-0.mp4")).path());
    byte[] middle = Files.readAllBytes(repackager.init(chunks.get(7), work.resolve("init-7.mp4")).path());
    byte[] last = Files.readAllBytes(repackager.init(chunks.get(14), work.resolve("init-14.mp4")).path());
    assertArrayEquals(first, middle);
    assertArrayEquals(first, last);
    assertEquals("ftyp", new String(Arrays.copyOfRange(first, 4, 8), java.nio.charset.StandardCharsets.ISO_8859_1));
  }

  @Test
  void rerunProducesIdenticalBytes() throws Exception {
    Path target = work.resolve("rerun.m4s");
    RepackagedFile once = repackager.segment(chunks.get(3), 3, target);
    byte[] first = Files.readAllBytes(target);
    RepackagedFile again = repackager.segment(chunks.get(3), 3, target);
    assertArrayEquals(first, Files.readAllBytes(target));
    assertEquals(once, again);

    byte[] init = Files.readAllBytes(repackager.init(chunks.get(3), work.resolve("rerun-init.mp4")).path());
    assertArrayEquals(init, Files.readAllBytes(repackager.init(chunks.get(3), work.resolve("rerun-init.mp4")).path()));
  }

  @Test
  void segmentStartsWithMediaFragmentAndLeavesNoTemporaryFiles() throws Exception {
    Path dir = Files.createDirectories(work.resolve("clean"));
    RepackagedFile segment = repackager.segment(chunks.get(1), 1, dir.resolve("0000000001.m4s"));
    byte[] bytes = Files.readAllBytes(segment.path());
    assertEquals("moof", new String(Arrays.copyOfRange(bytes, 4, 8), java.nio.charset.StandardCharsets.ISO_8859_1));
    try (var files = Files.list(dir)) {
      assertEquals(List.of(segment.path()), files.toList());
    }
  }

  /** Presentation timestamps of one stream of the playlist, in decode order. */
  private static double[] packetTimes(Path playlist, String stream) throws IOException {
    Cli.Result probe = Cli.run(List.of(Cli.FFPROBE.toString(), "-v", "error", "-protocol_whitelist", "file",
        "-select_streams", stream, "-show_entries", "packet=pts_time", "-of", "csv=p=0", playlist.toString()));
    assertEquals(0, probe.exit(), probe.stderr());
    assertEquals("", probe.stderr().strip());
    return probe.stdout().lines().filter(l -> !l.isBlank()).mapToDouble(l -> Double.parseDouble(l.replace(",", "")))
        .toArray();
  }
}
