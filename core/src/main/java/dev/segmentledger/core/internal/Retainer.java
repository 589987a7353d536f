package dev.segmentledger.core.internal;

import dev.segmentledger.core.spi.Purged;
import dev.segmentledger.core.spi.StateStore;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Retention: removes the rows of complete broadcasts that ended more than {@code retention} ago
 * ({@link StateStore#purge}; the policy is the SPI's). A round purges, by the ledger's clock, up to
 * the instant the round started, {@value #BATCH} rows per call (one short transaction each), with
 * a pause of {@link #PAUSE} between calls so that registrations and confirms keep the database's
 * attention, until a call removes nothing. Rounds run on a thread of their own every
 * {@code interval}; a failed round is logged and the next one runs as planned.
 *
 * <p>Every node of a store may run it at once: no coordination is needed because each call is
 * idempotent and its deletes are conditional (a row is deleted only if terminal when deleted, and
 * only while its broadcast is complete), and a database store has concurrent purges take
 * different broadcasts. Thread-safe; the thread is started and stopped once.
 */
final class Retainer {
  private static final Logger log = LoggerFactory.getLogger(Retainer.class);

  /**
   * The most rows one purge call deletes: one short transaction. With 5,000 the registrations'
   * p99 tripled during a purge on a durable PostgreSQL (benchmarks/results/retention.md): each
   * commit waits for the WAL of the delete before it to be flushed.
   */
  static final int BATCH = 1_000;

  /** The pause between two purge calls of a round. */
  static final Duration PAUSE = Duration.ofMillis(50);

  private final StateStore store;
  private final Clock clock;
  private final Duration retention;
  private final Duration interval;
  private final Signals signals;
  private volatile ScheduledExecutorService thread;

  /**
   * @param signals whether the ledger runs: a round stops between two calls once it does not
   */
  Retainer(StateStore store, Clock clock, Duration retention, Duration interval, Signals signals) {
    this.store = store;
    this.clock = clock;
    this.retention = retention;
    this.interval = interval;
    this.signals = signals;
  }

  /**
   * Checks that the store implements retention: a purge with a cutoff before any broadcast ended,
   * which removes nothing.
   *
   * @throws UnsupportedOperationException if the store does not implement {@link StateStore#purge}
   */
  void requireSupported() {
    store.purge(Instant.EPOCH, 1);
  }

  /** Starts the rounds, the first one {@code interval} from now. */
  void start() {
    thread = Executors.newSingleThreadScheduledExecutor(DaemonThreads.named("segment-ledger-retention-"));
    thread.scheduleWithFixedDelay(this::roundSafely, interval.toMillis(), interval.toMillis(), TimeUnit.MILLISECONDS);
  }

  /** Stops the thread, interrupting a round in progress, and waits (at most {@code timeout}) until it has ended (between two calls). */
  void stop(Duration timeout) {
    ScheduledExecutorService current = thread;
    if (current != null) {
      DaemonThreads.stopAndAwait(current, timeout);
    }
  }

  /**
   * One round now, on the caller's thread: purges up to the current instant minus the retention
   * until a call removes nothing, or the ledger stops, or the thread is interrupted.
   *
   * @return the rows deleted
   */
  long round(boolean paced) {
    Instant completedBefore = clock.instant().minus(retention);
    long rows = 0;
    long broadcasts = 0;
    while (true) {
      Purged purged = store.purge(completedBefore, BATCH);
      rows += purged.rows();
      broadcasts += purged.broadcastsEmptied().size();
      if (purged.isEmpty() || Thread.currentThread().isInterrupted()) {
        break;
      }
      if (paced) {
        if (!signals.running()) {
          break;
        }
        try {
          Thread.sleep(PAUSE.toMillis()); // pacing: leave the database to the upload path between calls
        } catch (InterruptedException e) {
          Thread.currentThread().interrupt();
          break;
        }
      }
    }
    if (rows > 0 || broadcasts > 0) {
      log.info("retention: deleted {} rows, emptied {} broadcasts that ended before {}", rows, broadcasts,
          completedBefore);
    }
    return rows;
  }

  private void roundSafely() {
    try {
      round(true);
    } catch (RuntimeException | LinkageError | AssertionError e) {
      // A throwing task would silently cancel the schedule: log and go on.
      log.warn("retention round failed; retrying next round", e);
    }
  }
}
