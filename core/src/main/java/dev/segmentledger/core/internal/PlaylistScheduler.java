package dev.segmentledger.core.internal;

import java.time.Duration;
import java.util.concurrent.CancellationException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Runs the {@link PlaylistPublisher}'s rounds on a thread of its own: at the sweep interval (which
 * also picks up playlists other nodes left behind, or whose backoff ended), shortly after this node
 * confirmed or failed a PLAYBACK or INIT row (a nudge), and at once after a round that claimed a
 * whole batch (more are due: with many broadcasts live, publication keeps pace instead of waiting
 * an interval per batch). Nudges coalesce: at most one round waits to run. A round's publications
 * run on {@value #PUBLISHERS} threads of their own, so that the PUTs of different playlists overlap.
 * While the {@link SinkBreaker} is open no round runs. A failed round is logged and the next one
 * runs as planned. Thread-safe; started and stopped once.
 */
final class PlaylistScheduler {
  private static final Logger log = LoggerFactory.getLogger(PlaylistScheduler.class);
  /** The publications of a round that run at once (each is a few statements and one or two PUTs). */
  static final int PUBLISHERS = 4;

  private final PlaylistPublisher publisher;
  private final SinkBreaker breaker;
  private final Duration interval;
  private final AtomicBoolean roundWaiting = new AtomicBoolean();
  private volatile ScheduledExecutorService thread;
  private volatile ExecutorService publications;

  PlaylistScheduler(PlaylistPublisher publisher, SinkBreaker breaker, Duration interval) {
    this.publisher = publisher;
    this.breaker = breaker;
    this.interval = interval;
  }

  void start() {
    publications = Executors.newFixedThreadPool(PUBLISHERS, DaemonThreads.named("segment-ledger-playlist-put-"));
    thread = Executors.newSingleThreadScheduledExecutor(DaemonThreads.named("segment-ledger-playlists-"));
    thread.scheduleWithFixedDelay(this::roundSafely, 0, interval.toMillis(), TimeUnit.MILLISECONDS);
  }

  /**
   * Stops the round thread and the publication pool together: a round in flight, and its
   * publications, may finish for 5 s; both are then interrupted (their leases expire; nothing is
   * lost) and waited for, at most {@code timeout} each.
   */
  void stop(Duration timeout) {
    ScheduledExecutorService current = thread;
    ExecutorService pool = publications;
    if (current == null) {
      return;
    }
    // Let a round in flight finish its PUTs rather than interrupt them half-written; bounded.
    current.shutdown();
    pool.shutdown();
    try {
      if (!current.awaitTermination(5, TimeUnit.SECONDS)) {
        pool.shutdownNow();
        DaemonThreads.stopAndAwait(current, timeout);
      }
    } catch (InterruptedException e) {
      current.shutdownNow();
      pool.shutdownNow();
      Thread.currentThread().interrupt();
      return;
    }
    DaemonThreads.stopAndAwait(pool, timeout); // idle unless the round was interrupted with publications in flight
  }

  /**
   * A round soon (after a quarter of the interval, at most 250 ms, so that the changes of a burst of
   * confirms are published together), unless one is already waiting; does nothing unless started.
   */
  void nudge() {
    schedule(Math.min(250, interval.toMillis() / 4));
  }

  private void schedule(long delayMillis) {
    ScheduledExecutorService current = thread;
    if (current != null && roundWaiting.compareAndSet(false, true)) {
      try {
        current.schedule(this::roundSafely, delayMillis, TimeUnit.MILLISECONDS);
      } catch (RejectedExecutionException e) {
        roundWaiting.set(false); // stopping: the records wait in the store
      }
    }
  }

  private void roundSafely() {
    roundWaiting.set(false);
    if (!breaker.pause().isZero()) {
      return;
    }
    try {
      PlaylistPublisher.RoundResult round = publisher.round(publications);
      if (round.published() > 0) {
        log.debug("published {} playlists", round.published());
      }
      if (round.full()) {
        schedule(0); // more are due now
      }
    } catch (CancellationException e) {
      log.debug("playlist round interrupted (stopping): {}", e.getMessage());
    } catch (RuntimeException | LinkageError | AssertionError e) {
      log.warn("playlist round failed; retrying next round", e);
    }
  }
}
