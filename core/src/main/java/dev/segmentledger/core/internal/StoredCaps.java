package dev.segmentledger.core.internal;

import dev.segmentledger.core.spi.StateStore;
import dev.segmentledger.core.spi.StoredUplinkCap;
import java.time.Duration;
import java.util.Objects;
import java.util.Optional;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Reads the uplink caps operators store in the ledger ({@link StateStore#uplinkCaps}) every
 * {@link #INTERVAL} and hands the one that applies to this node (its own, else the one for every
 * node, else none) to the engine, which keeps the cap in force when nothing changed, and follows
 * its configured cap's timetable at each of these ticks. A store that keeps no caps is asked once
 * (the ticks go on, with no stored cap); a failed read keeps the cap in force, logged once per run
 * of failures. Thread-safe.
 */
final class StoredCaps {
  private static final Logger log = LoggerFactory.getLogger(StoredCaps.class);
  /** How often the caps are read: a turned cap is followed within about this long. */
  static final Duration INTERVAL = Duration.ofSeconds(1);

  private final StateStore store;
  private final String nodeId;
  private final Consumer<Optional<StoredUplinkCap>> apply;
  private volatile ScheduledExecutorService thread;
  private volatile boolean unsupported;
  private boolean failing; // only on the poll's thread

  StoredCaps(StateStore store, String nodeId, Consumer<Optional<StoredUplinkCap>> apply) {
    this.store = Objects.requireNonNull(store, "store");
    this.nodeId = Objects.requireNonNull(nodeId, "nodeId");
    this.apply = Objects.requireNonNull(apply, "apply");
  }

  /** Reads the caps once now, on the caller's thread, then every {@link #INTERVAL} on a thread of its own. */
  void start() {
    poll();
    ScheduledExecutorService started = Executors.newSingleThreadScheduledExecutor(
        DaemonThreads.named("segment-ledger-uplink-caps-"));
    thread = started;
    started.scheduleWithFixedDelay(this::poll, INTERVAL.toMillis(), INTERVAL.toMillis(), TimeUnit.MILLISECONDS);
  }

  /** Stops the reads and waits, at most {@code timeout}, for one in progress. */
  void stop(Duration timeout) {
    ScheduledExecutorService current = thread;
    if (current != null) {
      DaemonThreads.stopAndAwait(current, timeout);
    }
  }

  /** One read; never throws (a throwing task would silently cancel the schedule). */
  synchronized void poll() {
    if (unsupported) {
      apply.accept(Optional.empty()); // the time goes on: a timetable's next entry
      return;
    }
    try {
      Optional<StoredUplinkCap> applying = StoredUplinkCap.applyingTo(nodeId, store.uplinkCaps());
      if (failing) {
        failing = false;
        log.info("the stored uplink caps are read again");
      }
      apply.accept(applying);
    } catch (UnsupportedOperationException e) {
      unsupported = true;
      log.debug("the state store keeps no uplink caps; the cap changes only through Ledger.uplink", e);
      apply.accept(Optional.empty());
    } catch (RuntimeException | LinkageError | AssertionError e) {
      if (!failing) {
        failing = true;
        log.warn("reading the stored uplink caps failed; the cap in force stays until a read succeeds", e);
      }
    }
  }
}
