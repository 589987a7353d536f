package dev.segmentledger.core.spi;

import java.nio.file.Path;
import java.time.Duration;
import java.util.Objects;

/**
 * A file written by a {@link Repackager}.
 *
 * @param path where it was written
 * @param sizeBytes its size
 * @param duration the media duration it covers ({@link Duration#ZERO} for an init segment)
 */
public record RepackagedFile(Path path, long sizeBytes, Duration duration) {
  public RepackagedFile {
    Objects.requireNonNull(path, "path");
    Objects.requireNonNull(duration, "duration");
    if (sizeBytes < 0) {
      throw new IllegalArgumentException("sizeBytes must be >= 0, got " + sizeBytes);
    }
  }
}
