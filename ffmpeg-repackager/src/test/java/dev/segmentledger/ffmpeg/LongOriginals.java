package dev.segmentledger.ffmpeg;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.io.IOException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

/**
 * Long originals made by ffmpeg at a very low bitrate but a realistic packet rate: a 96x54 test
 * pattern at 25 fps (H.264, a keyframe every 2 s) and an 8 kHz tone (mono AAC), 33 packets a
 * second. Ten minutes take about 3 s to record on a quiet machine and 6.5 MB as MPEG-TS (2 MB as
 * MP4), yet list as many packets as a full-size recording of the same frame rate.
 */
final class LongOriginals {
  private LongOriginals() {}

  /** The three containers a recorder may close an original in. */
  enum Container { MPEG_TS, MP4, FRAGMENTED_MP4 }

  /** Records {@code duration} as MPEG-TS (its timeline starts at 1.4 s, as ffmpeg's TS muxer does). */
  static Path recordTs(Path file, Duration duration) throws IOException {
    ffmpeg(List.of("-f", "lavfi", "-i", "testsrc=size=96x54:rate=25",
        "-f", "lavfi", "-i", "sine=frequency=440:sample_rate=8000",
        "-t", String.valueOf(duration.toSeconds()), "-map", "0:v", "-map", "1:a",
        "-c:v", "libx264", "-preset", "ultrafast", "-crf", "40", "-pix_fmt", "yuv420p", "-g", "50",
        "-c:a", "aac", "-b:a", "12k", "-ac", "1",
        "-f", "mpegts", file.toString()));
    return file;
  }

  /** The same media in {@code container}: as is, or remuxed by ffmpeg as a recorder would write it. */
  static Path in(Container container, Path ts, Path dir) throws IOException {
    String name = ts.getFileName().toString().replaceFirst("\\.ts$", "");
    return switch (container) {
      case MPEG_TS -> ts;
      // A finished MP4 (moov after the media), its timeline moved to start at zero.
      case MP4 -> ffmpeg(List.of("-i", ts.toString(), "-c", "copy", "-bsf:a", "aac_adtstoasc",
          "-f", "mp4", dir.resolve(name + ".mp4").toString()), dir.resolve(name + ".mp4"));
      // Fragments carrying the recording's timeline (tfdt from 1.4 s): ffprobe's container
      // duration of such a file counts from zero.
      case FRAGMENTED_MP4 -> ffmpeg(List.of("-copyts", "-i", ts.toString(), "-c", "copy",
          "-bsf:a", "aac_adtstoasc", "-use_editlist", "0", "-avoid_negative_ts", "disabled",
          "-movflags", "+frag_keyframe+empty_moov+default_base_moof+frag_discont",
          "-f", "mp4", dir.resolve(name + ".fmp4.mp4").toString()), dir.resolve(name + ".fmp4.mp4"));
    };
  }

  private static Path ffmpeg(List<String> arguments, Path output) throws IOException {
    ffmpeg(arguments);
    return output;
  }

  private static void ffmpeg(List<String> arguments) throws IOException {
    List<String> command = new ArrayList<>(List.of(Cli.FFMPEG.toString(), "-nostdin", "-hide_banner",
        "-loglevel", "error", "-y"));
    command.addAll(arguments);
    Cli.Result result = Cli.run(command);
    assertEquals(0, result.exit(), result.stderr());
  }
}
