package dev.segmentledger.it;

import java.io.IOException;
import java.io.OutputStream;
import java.nio.ByteBuffer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.SplittableRandom;

/** Files of pseudo-random bytes, as large as a test needs, written without holding them in memory. */
final class RandomFiles {
  private static final int BLOCK = 64 * 1024;

  private RandomFiles() {}

  /**
   * Writes {@code size} bytes of {@code random}'s longs to {@code file}, in blocks of 64 KiB: the
   * same random gives the same bytes, and takes the same draws from it (a block's unused longs
   * included), so that a seeded test that also draws its sizes from it stays the same run.
   */
  static void write(Path file, long size, SplittableRandom random) throws IOException {
    ByteBuffer block = ByteBuffer.allocate(BLOCK);
    try (OutputStream out = Files.newOutputStream(file)) {
      for (long left = size; left > 0; left -= block.capacity()) {
        block.clear();
        while (block.hasRemaining()) {
          block.putLong(random.nextLong());
        }
        out.write(block.array(), 0, (int) Math.min(left, block.capacity()));
      }
    }
  }
}
