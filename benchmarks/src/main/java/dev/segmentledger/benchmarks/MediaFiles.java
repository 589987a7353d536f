package dev.segmentledger.benchmarks;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;

/**
 * Writes stand-in recorded files of a given size (random bytes, so nothing compresses), and writes
 * them out to the disk before returning: the writeback of 150,000 fixture files otherwise ran
 * during the timed run that followed and slowed its commit flushes (a latency run at 5,000 items/s
 * had a p99 of 236 ms once, 14 ms in the next run).
 */
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
    settleDisk();
    return files;
  }

  /** Writes all dirty pages out, so that no timed run pays for the writeback of what came before it. */
  static void settleDisk() {
    try {
      new ProcessBuilder("sync").inheritIO().start().waitFor();
    } catch (IOException e) {
      // No sync command (not a Unix): the runs are only less comparable.
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }
}
