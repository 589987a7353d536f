package dev.segmentledger.benchmarks;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.Arrays;
import java.util.Locale;

/**
 * How long a flush to the suite's disk takes: {@value #WRITES} appends of 8 KiB (a WAL page), each
 * followed by {@code force(false)}, in the work directory (PostgreSQL's data directory when
 * embedded). With {@code synchronous_commit=on} every commit waits for such a flush, so this bounds
 * what a ledger transaction can cost on this machine at this moment; it is recorded with every
 * result.
 */
final class FsyncProbe {
  static final int WRITES = 100;

  private FsyncProbe() {}

  /** "p50 X ms, p99 Y ms (100 x 8 KiB write + fdatasync)", or the failure. */
  static String measure(Path dir) {
    Path file = dir.resolve("fsync-probe");
    double[] millis = new double[WRITES];
    try (FileChannel out = FileChannel.open(file, StandardOpenOption.CREATE, StandardOpenOption.WRITE)) {
      ByteBuffer page = ByteBuffer.allocate(8192);
      for (int i = 0; i < WRITES; i++) {
        page.clear();
        long start = System.nanoTime();
        while (page.hasRemaining()) {
          out.write(page);
        }
        out.force(false);
        millis[i] = (System.nanoTime() - start) / 1e6;
      }
    } catch (IOException e) {
      return "not measured: " + e;
    } finally {
      try {
        Files.deleteIfExists(file);
      } catch (IOException e) {
        // the work directory is deleted at the end anyway
      }
    }
    Arrays.sort(millis);
    return String.format(Locale.ROOT, "p50 %.2f ms, p99 %.2f ms (%d x 8 KiB append + fdatasync)",
        LatencyMeasure.percentile(millis, 0.50), LatencyMeasure.percentile(millis, 0.99), WRITES);
  }
}
