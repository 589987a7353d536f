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
