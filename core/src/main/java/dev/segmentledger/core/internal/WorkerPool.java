package dev.segmentledger.core.internal;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;

/**
 * The worker threads: each takes work from the {@link WorkQueue} and hands it to the
 * {@link ItemProcessor}, which finishes it. While the {@link SinkBreaker} is open the workers take
 * nothing (the rows stay as they are). A manual ledger has no threads: {@link #drain} processes
 * the queue in the caller. Thread-safe; started and stopped once.
 */
final class WorkerPool {
  private static final long POLL_MILLIS = 100;

  private final int size;
  private final WorkQueue queue;
  private final ItemProcessor processor;
  private final SinkBreaker breaker;
  private final Signals signals;
  private final Runnable taken;
  private final List<Thread> threads = new ArrayList<>();

  /**
   * @param signals whether the ledger runs: a worker ends its loop once it does not
   * @param taken called by a worker right after it took work from the queue (room was made)
   */
  WorkerPool(int size, WorkQueue queue, ItemProcessor processor, SinkBreaker breaker, Signals signals,
      Runnable taken) {
    this.size = size;
    this.queue = queue;
    this.processor = processor;
    this.breaker = breaker;
    this.signals = signals;
    this.taken = taken;
  }

  void start() {
    var factory = DaemonThreads.named("segment-ledger-worker-");
    for (int i = 0; i < size; i++) {
      Thread worker = factory.newThread(this::workLoop);
      threads.add(worker);
      worker.start();
    }
  }

  /**
   * Waits up to {@code timeout} in all for the workers, which end once the ledger does not run,
   * then runs {@code cancelAttempts} (which cancels the attempts still in flight, so that what they
   * fail on is not held against their rows) and interrupts the workers still busy.
   */
  void awaitStop(Duration timeout, Runnable cancelAttempts) {
    long deadline = System.nanoTime() + timeout.toNanos();
    try {
      for (Thread worker : threads) {
        long remaining = deadline - System.nanoTime();
        if (remaining > 0) {
          TimeUnit.NANOSECONDS.timedJoin(worker, remaining);
        }
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
    cancelAttempts.run();
    for (Thread worker : threads) {
      if (worker.isAlive()) {
        worker.interrupt();
      }
    }
  }

  /** Processes what is queued, in the caller; returns how many items were processed. */
  int drain() {
    int processed = 0;
    for (InFlight work = queue.poll(); work != null; work = queue.poll()) {
      processor.process(work);
      processed++;
    }
    return processed;
  }

  private void workLoop() {
    while (signals.running()) {
      Duration pause = breaker.pause();
      if (!pause.isZero()) {
        // Circuit open: take no work until a probe may run. Rows stay as they are.
        LockSupport.parkNanos(Math.min(pause.toNanos(), TimeUnit.MILLISECONDS.toNanos(POLL_MILLIS)));
        continue;
      }
      InFlight work;
      try {
        work = queue.poll(POLL_MILLIS, TimeUnit.MILLISECONDS);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        return;
      }
      if (work != null) {
        taken.run();
        processor.process(work);
      }
    }
  }
}
