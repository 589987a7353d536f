package dev.segmentledger.benchmarks;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;

/** Writes stand-in recorded files of a given size (random bytes, so nothing compresses). */
final class MediaFiles {
  private MediaFiles() {}

  static List<Path> write(Path dir, int count, int sizeBytes) throws IOException {
    Files.createDirectories(dir);
    Random random = new Random(42);
    byte[] bytes = new byte[sizeBytes];
    List<Path> files = new ArrayList<>(count);
    for (int i = 0; i < count; i++) {
      random.nextBytes(bytes);
      files.add(Files.write(dir.resolve(String.format("seg-%06d.ts", i)), bytes));
    }
    return files;
  }
}
