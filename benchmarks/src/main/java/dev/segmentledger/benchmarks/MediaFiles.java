package dev.segmentledger.benchmarks;

import java.io.IOException;
import java.io.OutputStream;
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

  /** Files are written in chunks of at most this many bytes, so a 1 GiB original is not one array. */
  static final int CHUNK = 8 * 1024 * 1024;

  static List<Path> write(Path dir, int count, int sizeBytes) throws IOException {
    Files.createDirectories(dir);
    Random random = new Random(42);
    byte[] chunk = new byte[Math.min(sizeBytes, CHUNK)];
    List<Path> files = new ArrayList<>(count);
    for (int i = 0; i < count; i++) {
      Path file = dir.resolve(String.format("seg-%06d.ts", i));
      try (OutputStream out = Files.newOutputStream(file)) {
        for (int written = 0; written < sizeBytes; written += chunk.length) {
          random.nextBytes(chunk);
          out.write(chunk, 0, Math.min(chunk.length, sizeBytes - written));
        }
      }
      files.add(file);
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
