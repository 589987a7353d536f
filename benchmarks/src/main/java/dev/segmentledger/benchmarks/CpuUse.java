package dev.segmentledger.benchmarks;

import java.lang.management.GarbageCollectorMXBean;
import java.lang.management.ManagementFactory;
import java.lang.management.ThreadInfo;
import java.lang.management.ThreadMXBean;
import java.util.Map;
import java.util.TreeMap;

/**
 * Where this JVM's CPU goes: in total, per group of live threads (the thread name without its
 * digits, so the four workers are one group), and the time of the JIT compilers and the GC. A
 * throughput figure on 2 cores is only explained by these.
 */
final class CpuUse {
  private CpuUse() {}

  /** CPU time of the whole JVM, or 0 where the platform does not report it. */
  static long processNanos() {
    return ManagementFactory.getOperatingSystemMXBean() instanceof com.sun.management.OperatingSystemMXBean os
        ? os.getProcessCpuTime() : 0;
  }

  /** CPU time of the live threads whose name matches {@code namePrefix}, by group, in microseconds. */
  static Map<String, Long> threadMicros(String namePrefix) {
    ThreadMXBean threads = ManagementFactory.getThreadMXBean();
    Map<String, Long> byGroup = new TreeMap<>();
    for (long id : threads.getAllThreadIds()) {
      ThreadInfo info = threads.getThreadInfo(id);
      long cpu = threads.getThreadCpuTime(id);
      if (info != null && cpu > 0 && info.getThreadName().startsWith(namePrefix)) {
        byGroup.merge(info.getThreadName().replaceAll("[0-9]+", "N"), cpu / 1_000, Long::sum);
      }
    }
    return byGroup;
  }

  /**
   * CPU time (user + system) of this JVM's child processes that have exited and been waited for
   * (Linux {@code /proc/self/stat}, {@code cutime + cstime}), in nanoseconds; -1 where unknown. The
   * difference over the run of a child (rclone) is that child's CPU, once it has exited: the JDK
   * waits for every child it started.
   */
  static long reapedChildrenNanos() {
    try {
      String line = java.nio.file.Files.readString(java.nio.file.Path.of("/proc/self/stat"));
      String[] fields = line.substring(line.lastIndexOf(')') + 2).split(" ");
      // fields[0] is field 3 (state); cutime and cstime are fields 16 and 17 (1-based)
      long ticks = Long.parseLong(fields[13]) + Long.parseLong(fields[14]);
      return ticks * 10_000_000L; // USER_HZ is 100 on Linux
    } catch (java.io.IOException | RuntimeException e) {
      return -1;
    }
  }

  /** Accumulated time of the JIT compilers, in milliseconds (elapsed time of compile tasks). */
  static long jitMillis() {
    return ManagementFactory.getCompilationMXBean().getTotalCompilationTime();
  }

  /** Accumulated time of all collections, in milliseconds. */
  static long gcMillis() {
    return ManagementFactory.getGarbageCollectorMXBeans().stream()
        .mapToLong(GarbageCollectorMXBean::getCollectionTime).sum();
  }
}
