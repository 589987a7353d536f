package dev.segmentledger.benchmarks;

import dev.segmentledger.core.ClosedFile;
import dev.segmentledger.core.ItemId;
import dev.segmentledger.core.Ledger;
import dev.segmentledger.core.LedgerBuilder;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * Registers files into a started ledger from several threads at full speed and waits until every
 * one is confirmed: the time from the first registration to the last confirm.
 */
final class LiveRun {
  private LiveRun() {}

  /**
   * @param threadCpuMicros CPU of the registering threads and of the ledger's own threads, by
   *     thread group, in microseconds (empty where the platform does not report thread CPU)
   */
  record Outcome(int items, long nanos, long registerNanos, long failed, long saturated,
      Map<String, Long> threadCpuMicros) {
    double itemsPerSecond() {
      return items * 1e9 / nanos;
    }

    double registerPerSecond() {
      return items * 1e9 / registerNanos;
    }
  }

  static Outcome run(LedgerBuilder builder, List<Path> files, String broadcastId, int threads, Duration timeout)
      throws Exception {
    return run(builder, files, broadcastId, threads, 1, timeout);
  }

  /**
   * As {@link #run(LedgerBuilder, List, String, int, Duration)}, each thread registering
   * {@code batchSize} files per {@link Ledger#registerAll} call ({@code 1}: {@link Ledger#register}).
   */
  static Outcome run(LedgerBuilder builder, List<Path> files, String broadcastId, int threads, int batchSize,
      Duration timeout) throws Exception {
    Map<String, Long> cpu = new TreeMap<>();
    ConfirmTracker tracker = new ConfirmTracker(files.size());
    try (Ledger ledger = builder.listener(tracker).build()) {
      ledger.start();
      AtomicInteger names = new AtomicInteger();
      ExecutorService pool = Executors.newFixedThreadPool(threads,
          r -> new Thread(r, "bench-register-" + names.incrementAndGet()));
      long start = System.nanoTime();
      try {
        List<Future<?>> done = new ArrayList<>();
        for (int t = 0; t < threads; t++) {
          int first = t;
          done.add(pool.submit(() -> {
            for (int from = first * batchSize; from < files.size(); from += threads * batchSize) {
              if (batchSize == 1) {
                ledger.register(ItemId.original(broadcastId, "720p", from), files.get(from));
                continue;
              }
              List<ClosedFile> batch = new ArrayList<>(batchSize);
              for (int i = from; i < Math.min(from + batchSize, files.size()); i++) {
                batch.add(ClosedFile.of(ItemId.original(broadcastId, "720p", i), files.get(i)));
              }
              ledger.registerAll(batch);
            }
            return null;
          }));
        }
        for (Future<?> f : done) {
          f.get();
        }
        cpu.putAll(CpuUse.threadMicros("bench-register-"));
      } finally {
        pool.shutdown();
      }
      long registered = System.nanoTime();
      tracker.await(timeout);
      cpu.putAll(CpuUse.threadMicros("segment-ledger-"));
      return new Outcome(files.size(), tracker.lastConfirmNanos() - start, registered - start, tracker.failed(),
          tracker.saturated(), cpu);
    }
  }
}
