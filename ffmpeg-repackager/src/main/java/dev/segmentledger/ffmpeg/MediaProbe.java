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

  /**
   * The streams and duration of {@code media}. The duration is the container's, except for an MP4
   * (an original recorded as fragmented MP4, issue 17): there ffprobe's container duration counts
   * from time zero rather than from the first sample when the fragments carry the recording's
   * timeline ({@code tfdt}), so the duration is measured over the packets instead: the end of the
   * last one minus the start of the first.
   */
  ProbedMedia probe(Path media) throws RepackageException {
    String output = runner.run(List.of(
        ffprobe, "-v", "error",
        "-show_entries", "stream=index,codec_type,codec_name:format=duration,format_name",
        "-of", "compact",
        media.toString()));
    ProbedMedia probed = parse(output, media);
    if (!isMp4(output)) {
      return probed;
    }
    String packets = runner.run(List.of(
        ffprobe, "-v", "error",
        "-show_entries", "packet=pts_time,duration_time",
        "-of", "csv=p=0",
        media.toString()));
    return new ProbedMedia(probed.streams(), packetSpan(packets, media));
  }

  /** Whether ffprobe's compact output names the MP4 family of containers ({@code mov,mp4,m4a,...}). */
  static boolean isMp4(String output) {
    for (String line : output.split("\\R")) {
      if (line.startsWith("format|") && "mov,mp4,m4a,3gp,3g2,mj2".equals(fields(line).get("format_name"))) {
        return true;
      }
    }
    return false;
  }

  /**
   * The span of packets listed as {@code pts_time,duration_time} lines: the latest
   * {@code pts + duration} minus the earliest {@code pts}. Lines without a time are skipped.
   */
  static Duration packetSpan(String csv, Path media) throws RepackageException {
    BigDecimal first = null;
    BigDecimal end = null;
    for (String line : csv.split("\\R")) {
      String[] cells = line.strip().split(",");
      if (cells.length < 2 || cells[0].isEmpty() || cells[0].equals("N/A") || cells[1].equals("N/A")) {
        continue;
      }
      BigDecimal pts = new BigDecimal(cells[0]);
      BigDecimal until = pts.add(new BigDecimal(cells[1]));
      first = first == null || pts.compareTo(first) < 0 ? pts : first;
      end = end == null || until.compareTo(end) > 0 ? until : end;
    }
    if (first == null) {
      throw new RepackageException("ffprobe reports no timed packet in " + media);
    }
    return Duration.ofNanos(end.subtract(first).movePointRight(9).setScale(0, java.math.RoundingMode.HALF_UP)
        .longValueExact());
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
