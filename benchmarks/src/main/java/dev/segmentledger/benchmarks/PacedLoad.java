package dev.segmentledger.benchmarks;

import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import java.util.concurrent.locks.LockSupport;

/**
 * A steady offered load: the calling thread hands item {@code i} to a pool of threads at
 * {@code start + i / rate}, whether or not the items before it are done, so a stalled item delays
 * no schedule (no coordinated omission). Keeps, per item, its scheduled instant, when a thread
 * started it and when its action returned (System.nanoTime), in arrays by item number, so the load
 * leaves no per-item objects for the collector. Not thread-safe; one load at a time.
 */
final class PacedLoad {
  /** What is done for item {@code n}, on one of the pool's threads. */
  interface Action {
    void run(int n) throws Exception;
  }

  final long[] scheduled;
  final long[] entered;
  final long[] returned;

  private PacedLoad(int items) {
    scheduled = new long[items];
    entered = new long[items];
    returned = new long[items];
  }

  /**
   * Runs {@code items} items at {@code rate} per second on {@code threads} threads and waits for the
   * last action to return; throws if an action threw (the first failure, with the count) or they did
   * not all return within 5 minutes of the last schedule.
   */
  static PacedLoad run(int rate, int items, int threads, String threadName, Action action) throws Exception {
    PacedLoad load = new PacedLoad(items);
    AtomicInteger failed = new AtomicInteger();
    AtomicReference<Exception> firstFailure = new AtomicReference<>();
    AtomicInteger names = new AtomicInteger();
    ExecutorService pool = Executors.newFixedThreadPool(threads,
        r -> new Thread(r, threadName + "-" + names.incrementAndGet()));
    try {
      long start = System.nanoTime() + 50_000_000L;
      for (int i = 0; i < items; i++) {
        load.scheduled[i] = start + i * 1_000_000_000L / rate;
        long wait = load.scheduled[i] - System.nanoTime();
        if (wait > 0) {
          LockSupport.parkNanos(wait);
        }
        int n = i;
        pool.execute(() -> {
          load.entered[n] = System.nanoTime();
          try {
            action.run(n);
            load.returned[n] = System.nanoTime();
          } catch (Exception e) {
            failed.incrementAndGet();
            firstFailure.compareAndSet(null, e);
          }
        });
      }
      pool.shutdown();
      if (!pool.awaitTermination(5, TimeUnit.MINUTES)) {
        throw new IllegalStateException("the paced items did not all return within 5 minutes of the last schedule");
      }
    } finally {
      pool.shutdownNow();
    }
    if (failed.get() > 0) {
      throw new IllegalStateException(failed.get() + " of " + items + " paced items failed", firstFailure.get());
    }
    return load;
  }
}
