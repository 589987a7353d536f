package dev.segmentledger.benchmarks;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;

/**
 * The machine's load average ({@code /proc/loadavg}: 1, 5 and 15 minutes), recorded with every
 * result: a figure measured while other work competes for the cores is not the library's.
 */
final class LoadAvg {
  private LoadAvg() {}

  /** "1m 5m 15m", or "unknown" where the platform has no /proc/loadavg. */
  static String now() {
    try {
      String[] parts = Files.readString(Path.of("/proc/loadavg")).trim().split("\\s+");
      return parts[0] + " " + parts[1] + " " + parts[2];
    } catch (IOException | RuntimeException e) {
      return "unknown";
    }
  }
}
