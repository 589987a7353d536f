package dev.segmentledger.ffmpeg;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.segmentledger.core.spi.RepackageException;
import dev.segmentledger.core.spi.RepackagedFile;
import dev.segmentledger.testkit.TestMedia;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
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
 * Originals that are not MPEG-TS: a recorder writing each chunk as a fragmented MP4
 * with its own {@code moov} (the ledger's {@code MediaFormat.MP4}), made here by ffmpeg from the
 * recorded MPEG-TS chunks with their timeline kept, is repackaged like MPEG-TS: one init, segments
 * that play as one stream. A bare fMP4 media segment ({@code MediaFormat.FMP4}: {@code moof mdat}
 * without the init it needs) cannot be read alone, and its repackaging fails with a
 * {@link RepackageException} (the ledger's {@code REPACKAGE_FAILED} on the derived rows).
 */
class NonTsOriginalTest {
  private static final Duration TOTAL = Duration.ofSeconds(12);
  private static final Duration CHUNK = Duration.ofSeconds(4);
  private static final double FRAME_SECONDS = 1.0 / 25;

  @TempDir static Path work;
  private static List<Path> mp4Chunks;
  private static FfmpegRepackager repackager;

  @BeforeAll
  static void recordAsFragmentedMp4() throws IOException {
    Cli.requireFfmpeg();
    List<Path> ts = TestMedia.recordChunks(Cli.FFMPEG, work.resolve("ts"), TOTAL, CHUNK);
    Path dir = Files.createDirectories(work.resolve("mp4"));
    mp4Chunks = new ArrayList<>();
    for (int i = 0; i < ts.size(); i++) {
      Path out = dir.resolve(String.format("%010d.mp4", i));
      Cli.Result r = Cli.run(List.of(Cli.FFMPEG.toString(), "-nostdin", "-hide_banner", "-loglevel", "error", "-y",
          "-copyts", "-i", ts.get(i).toString(), "-c", "copy", "-bsf:a", "aac_adtstoasc", "-use_editlist", "0",
          "-avoid_negative_ts", "disabled", "-movflags", "+frag_keyframe+empty_moov+default_base_moof+frag_discont",
          "-f", "mp4", out.toString()));
      assertEquals(0, r.exit(), r.stderr());
      mp4Chunks.add(out);
    }
    repackager = FfmpegRepackager.builder().ffmpeg(Cli.FFMPEG).timeout(Duration.ofSeconds(30)).build();
  }

  @Test
  void fragmentedMp4OriginalsAreRepackagedIntoSegmentsThatPlayAsOneStream() throws Exception {
    Path out = Files.createDirectories(work.resolve("hls"));
    Files.createDirectories(out.resolve("playback"));
    RepackagedFile init = repackager.init(mp4Chunks.get(0), out.resolve("init.mp4"));
    assertEquals("ftyp", type(Files.readAllBytes(init.path()), 0));
    List<RepackagedFile> segments = new ArrayList<>();
    for (int seq = 0; seq < mp4Chunks.size(); seq++) {
      RepackagedFile segment = repackager.segment(mp4Chunks.get(seq), seq,
          out.resolve("playback").resolve(String.format("%010d.m4s", seq)));
      assertEquals("moof", type(Files.readAllBytes(segment.path()), 0));
      assertTrue(segment.duration().compareTo(Duration.ofMillis(3900)) > 0
          && segment.duration().compareTo(Duration.ofMillis(4100)) < 0, "segment " + seq + ": " + segment);
      segments.add(segment);
    }
    Path playlist = MediaPlaylist.write(out.resolve("playlist.m3u8"), "init.mp4", segments);

    Cli.Result decode = Cli.run(List.of(Cli.FFMPEG.toString(), "-nostdin", "-hide_banner", "-v", "warning",
        "-protocol_whitelist", "file", "-i", playlist.toString(), "-f", "null", "-"));
    assertEquals(0, decode.exit(), decode.stderr());
    assertEquals("", decode.stderr().strip(), "decoding the playlist must not warn");
    Cli.Result probe = Cli.run(List.of(Cli.FFPROBE.toString(), "-v", "error", "-protocol_whitelist", "file",
        "-select_streams", "v:0", "-show_entries", "packet=pts_time", "-of", "csv=p=0", playlist.toString()));
    assertEquals(0, probe.exit(), probe.stderr());
    double[] video = probe.stdout().lines().filter(l -> !l.isBlank())
        .mapToDouble(l -> Double.parseDouble(l.replace(",", ""))).toArray();
    assertEquals(300, video.length, "12 s at 25 fps");
    for (int i = 1; i < video.length; i++) {
      assertEquals(FRAME_SECONDS, video[i] - video[i - 1], 1e-6, "video continues across segments at " + i);
    }
  }

  @Test
  void aBareFragmentWithoutItsInitCannotBeRepackaged() throws Exception {
    byte[] mp4 = Files.readAllBytes(mp4Chunks.get(1));
    int moof = 0;
    while (!type(mp4, moof).equals("moof")) {
      moof += ByteBuffer.wrap(mp4, moof, 4).getInt();
    }
    Path bare = Files.write(work.resolve("0000000001.m4s"), Arrays.copyOfRange(mp4, moof, mp4.length));

    assertThrows(RepackageException.class, () -> repackager.segment(bare, 1, work.resolve("bare-out.m4s")));
    assertThrows(RepackageException.class, () -> repackager.init(bare, work.resolve("bare-init.mp4")));
  }

  private static String type(byte[] bytes, int box) {
    return new String(bytes, box + 4, 4, StandardCharsets.ISO_8859_1);
  }
}
