package dev.segmentledger.core.internal;

import dev.segmentledger.core.Backoff;
import dev.segmentledger.core.LedgerItem;
import dev.segmentledger.core.Reason;
import dev.segmentledger.core.spi.Claim;
import java.time.Duration;
import java.util.concurrent.Semaphore;
import java.util.concurrent.ThreadLocalRandom;
import java.util.function.Supplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * What an attempt does with a row whose previous attempts ended without an outcome (their process
 * died or hung past the lease; the claim counts them). A single abandoned attempt (a restart, an
 * unrelated crash) is retried at once, so that recovery after a kill is not delayed; from the
 * second one on the row is a suspect: it backs off, with a delay that grows with their number, and
 * is uploaded only while no other suspect is in flight in this process, so that when the process
 * dies again the death is charged to one suspect, not to every item that happened to be in flight
 * with it. Past {@code maxAbandonedAttempts} the row is rejected. Thread-safe.
 */
final class AbandonedAttempts {
  private static final Logger log = LoggerFactory.getLogger(AbandonedAttempts.class);

  /** From this many abandoned attempts on, a row is a suspect: backed off, and uploaded alone. */
  static final int SUSPECT_AFTER = 2;

  private final int maxAbandonedAttempts;
  private final Backoff backoff;
  private final Duration suspectWait;
  private final Leases leases;
  private final Failures failures;
  private final Events events;
  /** The one slot for a suspect in this process. */
  private final Semaphore suspects = new Semaphore(1);

  /** @param suspectWait how long a suspect that finds the slot taken waits (the sweep interval) */
  AbandonedAttempts(int maxAbandonedAttempts, Backoff backoff, Duration suspectWait, Leases leases,
      Failures failures, Events events) {
    this.maxAbandonedAttempts = maxAbandonedAttempts;
    this.backoff = backoff;
    this.suspectWait = suspectWait;
    this.leases = leases;
    this.failures = failures;
    this.events = events;
  }

  /**
   * Whether the attempt that took {@code claim} on {@code item} may go on: if it took over an
   * abandoned attempt, the row may instead be rejected, or given back with a backoff.
   */
  boolean mayGoOn(LedgerItem item, Claim claim) {
    return !claim.tookOverAbandoned() || mayRetryAbandoned(item, claim.abandonedAttempts());
  }

  /**
   * Runs {@code upload} for a row claimed with {@code claim}: at once for a row that is no suspect;
   * for a suspect only in the suspect slot. A suspect that finds the slot taken gives its lease
   * back (so that nothing is counted) and waits; then {@code upload} is not run and the result is
   * {@code null}.
   */
  <T> T uploadAlone(LedgerItem item, Claim claim, Supplier<T> upload) {
    boolean suspect = claim.abandonedAttempts() >= SUSPECT_AFTER;
    if (suspect && !suspects.tryAcquire()) {
      // Another suspect is in flight here: were this one uploaded beside it and the process died,
      // both would be charged. It waits, without its lease, until the suspect slot is free.
      leases.release(item, suspectWait);
      return null;
    }
    try {
      return upload.get();
    } finally {
      if (suspect) {
        suspects.release();
      }
    }
  }

  /**
   * Rejects the row once there were too many abandoned attempts, and otherwise, from the second one
   * on, gives the lease back with a backoff that grows with their number, instead of running into
   * the same death at once.
   */
  private boolean mayRetryAbandoned(LedgerItem item, int abandoned) {
    events.onFailed(item, Reason.ATTEMPT_ABANDONED, "attempt ended without an outcome", false);
    if (abandoned >= maxAbandonedAttempts) {
      failures.record(item, Reason.REPEATEDLY_ABANDONED, abandoned + " attempts ended without an outcome (the"
          + " process died or hung past its lease while it held the row); fix the cause, then re-open the row");
      return false;
    }
    if (abandoned < SUSPECT_AFTER) {
      return true;
    }
    Duration delay = backoff.delayAfter(abandoned - 1, ThreadLocalRandom.current());
    log.warn("{}: {} attempts ended without an outcome (the process died or hung); next attempt in {}", item.id(),
        abandoned, delay);
    leases.release(item, delay);
    return false;
  }
}
