package dev.segmentledger.ffmpeg;

import dev.segmentledger.core.Printable;
import dev.segmentledger.core.spi.RepackageException;
import java.math.BigDecimal;
import java.math.RoundingMode;
import java.nio.file.Path;
import java.time.Duration;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * Asks ffprobe for the streams of a recording and for the media duration of a file. Every answer
 * is parsed from ffprobe's whole output (never from a cut one, see {@link ProcessRunner}).
 * Thread-safe.
 */
final class MediaProbe {
  private final String ffprobe;
  private final ProcessRunner runner;

  MediaProbe(String ffprobe, ProcessRunner runner) {
    this.ffprobe = ffprobe;
    this.runner = runner;
  }

  /** One elementary stream: its input index, its type ({@code video}, {@code audio}, ...) and codec. */
  record MediaStream(int index, String type, String codec) {}

  /** The elementary streams of {@code media}: a short answer from its headers. */
  List<MediaStream> streams(Path media) throws RepackageException {
    String output = runner.run(List.of(
        ffprobe, "-v", "error",
        "-show_entries", "stream=index,codec_type,codec_name",
        "-of", "compact",
        media.toString()));
    try {
      return parseStreams(output);
    } catch (NumberFormatException e) {
      throw new RepackageException("ffprobe lists a stream without a numeric index for " + Printable.escape(media)
          + ": " + Printable.escape(output.strip()), e);
    }
  }

  /**
   * The media duration of {@code media}: from the earliest packet start to the latest packet end,
   * over all its streams ({@link PacketSpan}). The container's duration is not used: for a
   * fragmented MP4 whose fragments carry the recording's timeline ({@code tfdt}), as the
   * repackager writes them, it counts from time zero rather than from the first sample. Every
   * packet is listed, however long the file, and folded into the span as ffprobe writes it.
   */
  Duration duration(Path media) throws RepackageException {
    return runner.run(List.of(
        ffprobe, "-v", "error",
        "-show_entries", "packet=pts_time,duration_time",
        "-of", "csv=p=0",
        media.toString()), new PacketSpan(media));
  }

  /**
   * Parses ffprobe's compact output: lines such as {@code stream|index=0|codec_name=h264|...}. A
   * stream may be listed twice (once under its program).
   *
   * @throws NumberFormatException if a stream's index is not a number
   */
  static List<MediaStream> parseStreams(String output) {
    Map<Integer, MediaStream> streams = new LinkedHashMap<>();
    for (String line : output.split("\\R")) {
      Map<String, String> fields = fields(line);
      if (line.contains("stream|") && fields.containsKey("index")) {
        int index = Integer.parseInt(fields.get("index"));
        streams.putIfAbsent(index,
            new MediaStream(index, fields.getOrDefault("codec_type", ""), fields.getOrDefault("codec_name", "")));
      }
    }
    return List.copyOf(streams.values());
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

  /**
   * The span of packets listed as {@code pts_time,duration_time} lines, folded as they come: the
   * latest {@code pts + duration} minus the earliest {@code pts}. Packets may come in any order
   * (B-frames, interleaved streams). A packet without a time ({@code N/A}) and an empty line are
   * skipped; a packet of unknown duration counts from its time to its time (ffprobe reports none
   * for the first audio packet of a fragmented MP4, which is where the media starts).
   */
  static final class PacketSpan implements OutputParser<Duration> {
    private final Path media;
    private BigDecimal first;
    private BigDecimal end;

    PacketSpan(Path media) {
      this.media = media;
    }

    @Override
    public void line(String line) throws RepackageException {
      String[] cells = line.strip().split(",");
      if (cells.length < 2 || cells[0].isEmpty() || cells[0].equals("N/A")) {
        return;
      }
      BigDecimal pts;
      BigDecimal until;
      try {
        pts = new BigDecimal(cells[0]);
        until = cells[1].equals("N/A") ? pts : pts.add(new BigDecimal(cells[1]));
      } catch (NumberFormatException e) {
        throw new RepackageException("packet line '" + Printable.escape(line) + "' is not 'pts_time,duration_time'");
      }
      first = first == null || pts.compareTo(first) < 0 ? pts : first;
      end = end == null || until.compareTo(end) > 0 ? until : end;
    }

    @Override
    public Duration result() throws RepackageException {
      if (first == null) {
        throw new RepackageException("ffprobe reports no timed packet in " + Printable.escape(media));
      }
      return Duration.ofNanos(end.subtract(first).movePointRight(9).setScale(0, RoundingMode.HALF_UP).longValueExact());
    }
  }
}
