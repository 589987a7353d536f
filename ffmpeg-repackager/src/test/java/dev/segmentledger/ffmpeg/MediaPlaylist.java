package dev.segmentledger.ffmpeg;

import dev.segmentledger.core.spi.RepackagedFile;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Locale;

/** Writes an HLS (version 7, fMP4) VOD media playlist for segments lying beside it. */
final class MediaPlaylist {
  private MediaPlaylist() {}

  static Path write(Path playlist, String initName, List<RepackagedFile> segments) throws IOException {
    long target = segments.stream().map(RepackagedFile::duration)
        .mapToLong(d -> (long) Math.ceil(d.toNanos() / 1e9)).max().orElse(1);
    StringBuilder text = new StringBuilder()
        .append("#EXTM3U\n")
        .append("#EXT-X-VERSION:7\n")
        .append("#EXT-X-TARGETDURATION:").append(target).append('\n')
        .append("#EXT-X-MEDIA-SEQUENCE:0\n")
        .append("#EXT-X-PLAYLIST-TYPE:VOD\n")
        .append("#EXT-X-MAP:URI=\"").append(initName).append("\"\n");
    for (RepackagedFile segment : segments) {
      text.append("#EXTINF:").append(seconds(segment.duration())).append(",\n")
          .append(playlist.getParent().relativize(segment.path())).append('\n');
    }
    text.append("#EXT-X-ENDLIST\n");
    return Files.writeString(playlist, text);
  }

  private static String seconds(Duration duration) {
    return String.format(Locale.ROOT, "%.3f", duration.toNanos() / 1e9);
  }
}
