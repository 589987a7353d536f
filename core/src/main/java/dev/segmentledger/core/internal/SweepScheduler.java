package dev.segmentledger.core.internal;

import dev.segmentledger.core.SweepReport;
import java.time.Duration;
import java.util.concurrent.Executors;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Runs the {@link Sweeper}'s rounds on a thread of its own, at a fixed delay, and at once when
 * asked ({@link #sweepSoon}: after an INIT confirm released waiting playback rows, after rows were
 * re-opened, and while a backlog is worked off: back to back while its pages fit in the queue, and
 * as soon as the workers made room for the next page when they do not). While the {@link SinkBreaker} is open no round
 * runs: the rows wait in the store. A failed round is logged and the next one runs as planned.
 * Thread-safe; started and stopped once.
 */
final class SweepScheduler {
  private static final Logger log = LoggerFactory.getLogger(SweepScheduler.class);

  private final Sweeper sweeper;
  private final SinkBreaker breaker;
  private final WorkQueue queue;
  private final int batchSize;
  private final Duration interval;
  private final Signals signals;
  private volatile ScheduledExecutorService thread;
  private final AtomicBoolean backlog = new AtomicBoolean(); // the last round's page did not fit

  /** @param signals whether the ledger runs ({@link #sweepSoon} does nothing once it does not); its sweep-soon signal is this scheduler's */
  SweepScheduler(Sweeper sweeper, SinkBreaker breaker, WorkQueue queue, int batchSize, Duration interval,
      Signals signals) {
    this.sweeper = sweeper;
    this.breaker = breaker;
    this.queue = queue;
    this.batchSize = batchSize;
    this.interval = interval;
    this.signals = signals;
    signals.onSweepSoon(this::sweepSoon);
  }

  void start() {
    thread = Executors.newSingleThreadScheduledExecutor(DaemonThreads.named("segment-ledger-sweeper-"));
    thread.scheduleWithFixedDelay(this::sweepSafely, 0, interval.toMillis(), TimeUnit.MILLISECONDS);
  }

  /** Stops the thread, interrupting a round in progress, and waits (at most {@code timeout}) until it has ended. */
  void stop(Duration timeout) {
    ScheduledExecutorService current = thread;
    if (current != null) {
      DaemonThreads.stopAndAwait(current, timeout);
    }
  }

  /**
   * Called by a worker that took work from the queue: if the last round left a backlog in the store
   * that did not fit in the queue, runs the next round as soon as the queue has room for a page,
   * rather than at the next tick (recovery is then paced by the workers, not by the interval).
   * Cheap when there is no backlog (one volatile read).
   */
  void roomMayHaveFreed() {
    if (backlog.get() && queue.remainingCapacity() >= batchSize && backlog.compareAndSet(true, false)) {
      sweepSoon();
    }
  }

  /** Runs a round now rather than at the next tick; does nothing unless started and running. */
  void sweepSoon() {
    ScheduledExecutorService current = thread;
    if (current != null && signals.running()) {
      try {
        current.execute(this::sweepSafely);
      } catch (RejectedExecutionException e) {
        // closing: the rows stay PENDING for the next start
      }
    }
  }

  private void sweepSafely() {
    if (!breaker.pause().isZero()) {
      return; // circuit open: accept nothing; the rows wait in the store
    }
    try {
      SweepReport report = sweeper.round();
      if (report.accepted() > 0 || report.saturated() > 0) {
        log.debug("sweep {}", report);
      }
      if (report.fullPage() && report.accepted() > 0) {
        // A backlog (recovery after a restart): read the next page now rather than after the
        // interval, as long as the queue has room for it; otherwise as soon as the workers have
        // taken enough of it (roomMayHaveFreed). Only new work re-triggers, so rows already in
        // flight never make this spin.
        if (report.saturated() == 0 && queue.remainingCapacity() >= batchSize) {
          sweepSoon();
        } else {
          backlog.set(true);
          roomMayHaveFreed(); // the workers may have emptied the queue during the round
        }
      }
    } catch (RuntimeException | LinkageError | AssertionError e) {
      // A throwing task would silently cancel the scheduled sweeper: log and go on.
      log.warn("sweep round failed; retrying next round", e);
    }
  }
}
