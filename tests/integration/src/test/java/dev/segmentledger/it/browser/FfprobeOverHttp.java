package dev.segmentledger.it.browser;

import dev.segmentledger.ffmpeg.Cli;
import java.io.IOException;
import java.net.URI;
import java.util.List;
import java.util.Locale;

/**
 * ffprobe on an HLS playlist over plain HTTP, as a second, independent reader of what a browser
 * plays: the playlist's total duration (the sum of its {@code #EXTINF}s, as ffprobe's HLS demuxer
 * reports it) and the media actually read through it (every video packet of every segment,
 * downloaded over HTTP: first timestamp to last timestamp plus its duration).
 */
public final class FfprobeOverHttp {
  private FfprobeOverHttp() {}

  /**
   * What ffprobe found.
   *
   * @param duration the format duration in seconds (for HLS: the playlist's total)
   * @param videoSeconds seconds of video from the first packet to the end of the last
   * @param videoPackets video packets read
   */
  public record Probe(double duration, double videoSeconds, long videoPackets) {
    @Override
    public String toString() {
      return String.format(Locale.ROOT, "duration %.3f s, video %.3f s in %d packets", duration, videoSeconds,
          videoPackets);
    }
  }

  /** Probes {@code url} (a multivariant or media playlist; ffprobe takes the first video stream). */
  public static Probe probe(URI url) throws IOException {
    Cli.Result format = Cli.run(List.of(Cli.FFPROBE.toString(), "-v", "error",
        "-show_entries", "format=duration", "-of", "default=noprint_wrappers=1:nokey=1", url.toString()));
    if (format.exit() != 0) {
      throw new IOException("ffprobe " + url + " failed: exit " + format.exit() + ": " + format.stderr());
    }
    double duration = Double.parseDouble(format.stdout().strip());
    Cli.Result packets = Cli.run(List.of(Cli.FFPROBE.toString(), "-v", "error", "-select_streams", "v:0",
        "-show_entries", "packet=pts_time,duration_time", "-of", "csv=p=0", url.toString()));
    if (packets.exit() != 0) {
      throw new IOException("ffprobe packets of " + url + " failed: exit " + packets.exit() + ": " + packets.stderr());
    }
    double first = Double.POSITIVE_INFINITY;
    double end = Double.NEGATIVE_INFINITY;
    long count = 0;
    for (String line : packets.stdout().split("\n")) {
      String[] fields = line.strip().split(",");
      if (fields.length < 2 || fields[0].isEmpty() || "N/A".equals(fields[0])) {
        continue;
      }
      double pts = Double.parseDouble(fields[0]);
      double packetDuration = "N/A".equals(fields[1]) || fields[1].isEmpty() ? 0 : Double.parseDouble(fields[1]);
      first = Math.min(first, pts);
      end = Math.max(end, pts + packetDuration);
      count++;
    }
    if (count == 0) {
      throw new IOException("ffprobe read no video packet through " + url + ": " + packets.stderr());
    }
    return new Probe(duration, end - first, count);
  }
}
