package dev.segmentledger.core.internal;

import dev.segmentledger.core.Backoff;
import dev.segmentledger.core.LedgerItem;
import dev.segmentledger.core.Reason;
import dev.segmentledger.core.spi.Claim;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.concurrent.ThreadLocalRandom;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * What an attempt does with a row whose earlier attempts ended without an outcome (their process
 * died or froze past the lease; the claim counts them, weighed by their evidence: see
 * {@link Claim}).
 *
 * <p>Design note. A death of the process is evidence against the rows in flight only when nothing
 * else explains it. An attempt that stored more of its object before it died made progress: it is
 * counted, never held against the row. One that made no progress makes the row a suspect once
 * there were {@value #SUSPECT_AFTER} of them; a suspect's next attempts run alone in the process
 * ({@link IsolationGate}), and only a death during such a lone run without progress is
 * <em>blamed</em> on the row. A lone run starts only once its process has been up for a lease
 * duration: a death is evidence against a row only when the process was otherwise healthy, and one
 * killed from outside again and again soon after each start (a crash loop) never gets that far, so
 * its suspects wait (their leases given back, nothing counted) instead of being blamed. Past {@code maxAbandonedAttempts} blamed deaths the row is a poison:
 * before it is rejected with {@link Reason#REPEATEDLY_ABANDONED}, the bucket is asked whether an
 * identical object is stored already (an attempt may have stored it and died before its confirm),
 * and if so the row is confirmed instead. That lookup hashes the file, and is run like a suspect's
 * upload: under a lease kept by the heartbeat, alone, in a settled process; a death during it is
 * blamed as well, and a row blamed past the limit is rejected without a lookup, so the reject path
 * is bounded. A blamed row backs off with the usual delay for that
 * many blamed deaths; a suspect without blame is retried at once (alone), so recovery after
 * random kills is not delayed. Thread-safe.
 */
final class AbandonedAttempts {
  private static final Logger log = LoggerFactory.getLogger(AbandonedAttempts.class);

  /** From this many abandoned attempts without progress on, a row is a suspect and runs alone. */
  static final int SUSPECT_AFTER = 2;

  /** What follows a claim. */
  enum Verdict {
    /** Upload now, beside other work. */
    GO_ON,
    /** Upload now, alone in the process. */
    GO_ON_ALONE,
    /** Not now: the lease was given back with a delay. */
    WAIT,
    /**
     * A poison: reject the row, unless an identical object is stored already; the lookup runs as a
     * lone attempt (lease, heartbeat, isolation), so a death during it is blamed too.
     */
    REJECT,
    /** A poison whose lookup for an identical object died once already: reject it without one. */
    REJECT_WITHOUT_LOOKUP
  }

  private final int maxAbandonedAttempts;
  private final Backoff backoff;
  private final Leases leases;
  private final Events events;
  private final Clock clock;
  private final Instant settledAt;

  /**
   * @param settledAt when this process is past its start-up: one lease duration after the ledger was
   *     built; a suspect runs alone only from then on
   */
  AbandonedAttempts(int maxAbandonedAttempts, Backoff backoff, Leases leases, Events events, Clock clock,
      Instant settledAt) {
    this.clock = clock;
    this.settledAt = settledAt;
    this.maxAbandonedAttempts = maxAbandonedAttempts;
    this.backoff = backoff;
    this.leases = leases;
    this.events = events;
  }

  /** What the attempt that took {@code claim} on {@code item} does next. */
  Verdict verdict(LedgerItem item, Claim claim) {
    if (claim.tookOverAbandoned()) {
      events.onFailed(item, Reason.ATTEMPT_ABANDONED, "attempt ended without an outcome", false);
    }
    if (claim.blamedAttempts() > maxAbandonedAttempts) {
      return Verdict.REJECT_WITHOUT_LOOKUP; // the lone lookup was blamed too: the reject path never loops
    }
    if (claim.blamedAttempts() == maxAbandonedAttempts) {
      return settled(item) ? Verdict.REJECT : Verdict.WAIT;
    }
    boolean suspect = claim.abandonedAttempts() >= SUSPECT_AFTER;
    if (suspect && claim.tookOverAbandoned() && claim.blamedAttempts() > 0) {
      Duration delay = backoff.delayAfter(claim.blamedAttempts(), ThreadLocalRandom.current());
      log.warn("{}: {} attempts ended without an outcome, {} of them alone in their process (the process died or"
          + " froze while it worked on this row only); next attempt, alone, in {}", item.id(),
          claim.abandonedAttempts(), claim.blamedAttempts(), delay);
      leases.release(item, delay);
      return Verdict.WAIT;
    }
    if (suspect && !settled(item)) {
      return Verdict.WAIT;
    }
    return suspect ? Verdict.GO_ON_ALONE : Verdict.GO_ON;
  }

  /**
   * Whether this process is settled enough for a lone run of a suspect to be evidence: it has been
   * up for a lease duration. If not, the lease on {@code item} is given back until then (nothing is
   * counted): a process killed from outside in its first seconds (a crash loop, during start-up,
   * reading or digesting files) dies whatever it runs, and its death must not be blamed on a row.
   */
  private boolean settled(LedgerItem item) {
    Duration untilSettled = Duration.between(clock.instant(), settledAt);
    if (untilSettled.isNegative() || untilSettled.isZero()) {
      return true;
    }
    log.info("{}: a suspect (attempts ended without an outcome); it runs alone once this process has been up for a"
        + " lease duration, in {}", item.id(), untilSettled);
    leases.release(item, untilSettled);
    return false;
  }

  /** The detail of the rejection of a poison row. */
  String rejection(Claim claim) {
    return claim.blamedAttempts() + " attempts ended without an outcome while each ran alone in its process and"
        + " stored nothing (the process died or froze while it worked on this row only), and no identical object is"
        + " stored; fix the cause, then re-open the row";
  }

  /** The limit of blamed attempts. */
  int limit() {
    return maxAbandonedAttempts;
  }
}
