package dev.segmentledger.ffmpeg;

import dev.segmentledger.core.spi.RepackageException;
import java.math.BigDecimal;
import java.nio.file.Path;
import java.time.Duration;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/** Asks ffprobe for the streams and the duration of a recording. Thread-safe. */
final class MediaProbe {
  private final String ffprobe;
  private final ProcessRunner runner;

  MediaProbe(String ffprobe, ProcessRunner runner) {
    this.ffprobe = ffprobe;
    this.runner = runner;
  }

  /** What ffprobe reports about a recording. */
  record ProbedMedia(List<MediaStream> streams, Duration duration) {}

  /** One elementary stream: its input index, its type ({@code video}, {@code audio}, ...) and codec. */
  record MediaStream(int index, String type, String codec) {}

  ProbedMedia probe(Path media) throws RepackageException {
    String output = runner.run(List.of(
        ffprobe, "-v", "error",
        "-show_entries", "stream=index,codec_type,codec_name:format=duration",
        "-of", "compact",
        media.toString()));
    return parse(output, media);
  }

  /**
   * Parses ffprobe's compact output: lines such as {@code stream|index=0|codec_name=h264|...} and
   * {@code format|duration=4.000000}. A stream may be listed twice (once under its program).
   */
  static ProbedMedia parse(String output, Path media) throws RepackageException {
    Map<Integer, MediaStream> streams = new LinkedHashMap<>();
    String duration = null;
    for (String line : output.split("\\R")) {
      Map<String, String> fields = fields(line);
      if (line.contains("stream|") && fields.containsKey("index")) {
        int index = Integer.parseInt(fields.get("index"));
        streams.putIfAbsent(index,
            new MediaStream(index, fields.getOrDefault("codec_type", ""), fields.getOrDefault("codec_name", "")));
      } else if (line.startsWith("format|")) {
        duration = fields.get("duration");
      }
    }
    if (duration == null || duration.equals("N/A")) {
      throw new RepackageException("ffprobe reports no duration for " + media);
    }
    return new ProbedMedia(List.copyOf(streams.values()), seconds(duration));
  }

  private static Map<String, String> fields(String line) {
    Map<String, String> fields = new HashMap<>();
    for (String part : line.split("\\|")) {
      int eq = part.indexOf('=');
      if (eq > 0) {
        fields.put(part.substring(0, eq), part.substring(eq + 1));
      }
    }
    return fields;
  }

  private static Duration seconds(String seconds) {
    return Duration.ofNanos(new BigDecimal(seconds).movePointRight(9).longValueExact());
  }
}
