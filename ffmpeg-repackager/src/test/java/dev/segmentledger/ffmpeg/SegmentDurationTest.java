package dev.segmentledger.ffmpeg;

import static org.junit.jupiter.api.Assertions.assertEquals;

import dev.segmentledger.core.spi.RepackagedFile;
import dev.segmentledger.ffmpeg.LongOriginals.Container;
import java.io.IOException;
import java.io.OutputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * The duration a segment is recorded with (the playlist's {@code #EXTINF}) is the duration of the
 * media in the segment, for long originals in every container. The media is read back as a player
 * reads it: the init segment followed by the segment, through ffprobe, every packet listed.
 */
class SegmentDurationTest {
  private static final double TOLERANCE_SECONDS = 0.1;

  @TempDir static Path work;
  private static Map<Integer, Path> tsOriginals;
  private static FfmpegRepackager repackager;

  @TempDir Path dir;

  @BeforeAll
  static void recordLongOriginals() throws IOException {
    Cli.requireFfmpeg();
    tsOriginals = Map.of(
        2, LongOriginals.recordTs(work.resolve("two-minutes.ts"), Duration.ofMinutes(2)),
        10, LongOriginals.recordTs(work.resolve("ten-minutes.ts"), Duration.ofMinutes(10)));
    repackager = FfmpegRepackager.builder().ffmpeg(Cli.FFMPEG).timeout(Duration.ofMinutes(1)).build();
  }

  @ParameterizedTest(name = "{0}-minute {1} original")
  @CsvSource({"2, MPEG_TS", "2, MP4", "2, FRAGMENTED_MP4", "10, MPEG_TS", "10, MP4", "10, FRAGMENTED_MP4"})
  void theRecordedDurationIsTheDurationOfTheProducedSegment(int minutes, Container container) throws Exception {
    Path original = LongOriginals.in(container, tsOriginals.get(minutes), dir);

    RepackagedFile init = repackager.init(original, dir.resolve("init.mp4"));
    RepackagedFile segment = repackager.segment(original, 0, dir.resolve("0000000000.m4s"));

    double probed = packetSpanSeconds(playable(init, segment));
    double recorded = segment.duration().toNanos() / 1e9;
    System.out.printf("%d-minute %s original: recorded %.3f s, ffprobe reads %.3f s from the segment%n",
        minutes, container, recorded, probed);
    assertEquals(probed, recorded, TOLERANCE_SECONDS, "recorded duration against the produced segment's");
    assertEquals(minutes * 60.0, probed, 0.5, "the segment holds the whole original");
  }

  /** The init segment followed by the media segment: what a player decodes. */
  private Path playable(RepackagedFile init, RepackagedFile segment) throws IOException {
    Path playable = dir.resolve("played.mp4");
    try (OutputStream out = Files.newOutputStream(playable)) {
      Files.copy(init.path(), out);
      Files.copy(segment.path(), out);
    }
    return playable;
  }

  /**
   * From the earliest packet start to the latest packet end, all streams, ffprobe's whole output.
   * ffprobe gives the first audio packet of a fragmented MP4 no duration: it ends where it starts.
   */
  private static double packetSpanSeconds(Path media) throws IOException {
    Cli.Result probe = Cli.run(List.of(Cli.FFPROBE.toString(), "-v", "error",
        "-show_entries", "packet=pts_time,duration_time", "-of", "csv=p=0", media.toString()));
    assertEquals(0, probe.exit(), probe.stderr());
    assertEquals("", probe.stderr().strip());
    double first = Double.MAX_VALUE;
    double end = -Double.MAX_VALUE;
    for (String line : probe.stdout().lines().filter(l -> !l.isBlank()).toList()) {
      String[] cells = line.split(",");
      double pts = Double.parseDouble(cells[0]);
      first = Math.min(first, pts);
      end = Math.max(end, pts + (cells[1].equals("N/A") ? 0 : Double.parseDouble(cells[1])));
    }
    return end - first;
  }
}
