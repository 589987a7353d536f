package dev.segmentledger.core.internal;

import dev.segmentledger.core.Backoff;
import dev.segmentledger.core.ItemState;
import dev.segmentledger.core.LedgerItem;
import dev.segmentledger.core.Printable;
import dev.segmentledger.core.Reason;
import dev.segmentledger.core.spi.StateStore;
import java.time.Clock;
import java.util.concurrent.ThreadLocalRandom;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Records failed attempts on rows: terminal reasons make the row REJECTED, the others schedule
 * the next attempt after the configured backoff. A failure is recorded only while the row carries
 * no lease or this instance's: a worker whose lease was taken over records nothing. Store errors
 * here are logged, never thrown: the row then stays as it was, for the sweeper. The failure event
 * is emitted only if the row was updated (not when another attempt had already confirmed or failed it). Thread-safe.
 */
final class Failures {
  private static final Logger log = LoggerFactory.getLogger(Failures.class);

  private final StateStore store;
  private final Clock clock;
  private final String nodeId;
  private final Backoff backoff;
  private final Events events;

  /** @param nodeId this instance as a lease owner: a row leased to another owner is left alone */
  Failures(StateStore store, Clock clock, String nodeId, Backoff backoff, Events events) {
    this.store = store;
    this.clock = clock;
    this.nodeId = nodeId;
    this.backoff = backoff;
    this.events = events;
  }

  /**
   * Records a failed attempt. {@code detail} becomes the row's last error and part of the log
   * line, escaped by {@link Printable}: it carries outside input (file names, a server's reply,
   * an external program's stderr).
   */
  void record(LedgerItem item, Reason reason, String rawDetail) {
    String detail = Printable.escape(rawDetail);
    boolean terminal = reason.isTerminal();
    boolean recorded = false;
    try {
      recorded = terminal
          ? store.markTerminal(item.rowId(), ItemState.PENDING, nodeId, ItemState.REJECTED, reason, detail,
              clock.instant())
          : store.recordFailure(item.rowId(), ItemState.PENDING, nodeId, reason, detail,
              clock.instant().plus(backoff.delayAfter(item.attempts() + 1, ThreadLocalRandom.current())));
    } catch (RuntimeException e) {
      log.warn("could not record failure {} of {}; the row stays unconfirmed for the sweeper", reason, item.id(), e);
    }
    if (reason == Reason.SINK_CONFIGURATION) {
      // Every row fails the same way: the circuit breaker logs the cause once per opening.
      log.debug("{} failed on {} (attempt {}): {}", item.id(), reason, item.attempts() + 1, detail);
    } else {
      log.info("{} failed on {} (attempt {}): {}{}", item.id(), reason, item.attempts() + 1, detail,
          terminal ? " (terminal)" : "");
    }
    if (recorded) {
      events.onFailed(item, reason, detail, terminal);
    }
  }
}
