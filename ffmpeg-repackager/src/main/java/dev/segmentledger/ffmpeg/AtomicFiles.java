package dev.segmentledger.ffmpeg;

import dev.segmentledger.core.spi.Repackager;
import java.io.IOException;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;

/** Writes a file so that readers see either the old content or the complete new content. */
final class AtomicFiles {
  private AtomicFiles() {}

  /** Fills a temporary file. */
  @FunctionalInterface
  interface Content {
    void writeTo(FileChannel out) throws IOException, Mp4FormatException;
  }

  /**
   * Writes {@code content} to a temporary file beside {@code target} (named by {@link
   * Repackager#createTemporaryBeside}), forces it to disk and atomically renames it to {@code target},
   * replacing it. On failure the temporary file is deleted and {@code target} is untouched.
   *
   * @return the size written
   */
  static long write(Path target, Content content) throws IOException, Mp4FormatException {
    Path temp = Repackager.createTemporaryBeside(target);
    try {
      try (FileChannel out = FileChannel.open(temp, StandardOpenOption.WRITE, StandardOpenOption.TRUNCATE_EXISTING)) {
        content.writeTo(out);
        out.force(true);
      }
      long size = Files.size(temp);
      Files.move(temp, target, StandardCopyOption.ATOMIC_MOVE, StandardCopyOption.REPLACE_EXISTING);
      return size;
    } finally {
      Files.deleteIfExists(temp);
    }
  }
}
