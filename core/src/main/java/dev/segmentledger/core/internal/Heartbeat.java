package dev.segmentledger.core.internal;

import dev.segmentledger.core.ItemState;
import dev.segmentledger.core.LedgerItem;
import dev.segmentledger.core.Reason;
import dev.segmentledger.core.spi.LeaseRenewal;
import dev.segmentledger.core.spi.StateStore;
import dev.segmentledger.core.spi.Tracing.Span;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Executors;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Keeps the attempts in flight in this process alive in the store, and stops those that are not.
 *
 * <p>Design note. A lease used to be taken once per attempt, so an upload longer than the lease
 * was taken over by another node while it was healthy, and a takeover's retry aborted the upload
 * still being sent. Now every attempt is an {@link Attempt} registered here from its claim to its
 * confirm, and every {@link #tick()} (a tenth of the lease, at most a second apart) does three
 * things: it samples each attempt's progress and cancels one that has made none for the stall
 * timeout (its own node cancels it: the failure is recorded as {@link Reason#STALLED}, the lease
 * ends, the row is retried); it renews, in <em>one</em> {@link StateStore#renewAll} statement for
 * the whole node, the leases that have less than half the lease duration left and those whose
 * attempt has evidence to write (more bytes stored, isolation; an attempt that stores more asks
 * for a round at once, so that the evidence is written before a death could lose it); and it
 * cancels the attempts whose renewal the store refused and whose lease, read back, is not this
 * node's either (it was taken over while this node was frozen, or the row was finished by another
 * node): a renewal that was written but whose answer was lost moved the lease without this node
 * knowing, and must not cancel a healthy attempt. An expired lease therefore means a dead or frozen
 * node, never a slow one. A store failure is logged (once per minute) and the next tick tries
 * again. Thread-safe.
 */
final class Heartbeat {
  private static final Logger log = LoggerFactory.getLogger(Heartbeat.class);
  private static final Duration FAILURE_LOG_INTERVAL = Duration.ofMinutes(1);

  private final StateStore store;
  private final StoreClock clock;
  private final String owner;
  private final Duration leaseDuration;
  private final Duration renewBelow;
  private final Duration stallTimeout;
  private final Failures failures;
  private final Events events;
  private final Duration tick;
  private final Map<Long, Attempt> attempts = new ConcurrentHashMap<>();
  private final Object renewing = new Object();
  private final AtomicBoolean nudged = new AtomicBoolean();
  private volatile ScheduledExecutorService thread;
  private Instant lastFailureLogged;

  /** @param clock the store's time as this node estimates it: lease ends are compared with it */
  Heartbeat(StateStore store, StoreClock clock, String owner, Duration leaseDuration, Duration tick,
      Duration stallTimeout, Failures failures, Events events) {
    this.store = store;
    this.clock = clock;
    this.owner = owner;
    this.leaseDuration = leaseDuration;
    this.renewBelow = leaseDuration.dividedBy(2);
    this.stallTimeout = stallTimeout;
    this.failures = failures;
    this.events = events;
    this.tick = tick;
  }

  /**
   * Registers the attempt of {@code item}, which holds the lease until {@code leaseUntil}, by this
   * thread, traced by {@code span}.
   */
  Attempt begin(LedgerItem item, Instant leaseUntil, Span span) {
    Attempt attempt = new Attempt(item, Thread.currentThread(), leaseUntil, clock.ledgerInstant(), this::nudge, span);
    attempts.put(item.rowId(), attempt);
    return attempt;
  }

  /** Forgets {@code attempt} (it is over). */
  void end(Attempt attempt) {
    attempt.end();
    attempts.remove(attempt.rowId(), attempt);
  }

  /**
   * Marks {@code attempt} isolated and writes it to the store now, before the attempt does anything
   * that could bring the process down: a death from then on is blamed on its row.
   *
   * @return whether the store took it (the lease is still the attempt's)
   */
  boolean isolate(Attempt attempt) {
    attempt.isolate();
    synchronized (renewing) {
      Instant now = clock.instant();
      LeaseRenewal renewal = attempt.renewal(now.plus(leaseDuration));
      try {
        Instant end = store.renewAllFor(owner, List.of(renewal), now)[0];
        if (end != null) {
          attempt.renewed(renewal, end);
          return true;
        }
      } catch (RuntimeException e) {
        attempt.renewalFailed(e);
        log.warn("could not mark the attempt on {} isolated; it is not run now", attempt.item().id(), e);
      }
      return false;
    }
  }

  /** One round: stalls, then the renewals due, in one statement. */
  void tick() {
    clock.measureIfDue();
    Instant now = clock.instant();
    for (Attempt attempt : attempts.values()) {
      if (attempt.phase() == Attempt.Phase.ENDED) {
        attempts.remove(attempt.rowId(), attempt);
        continue;
      }
      Duration idle = attempt.idleFor(clock.ledgerInstant()); // a duration on this node: no skew in it
      if (idle.compareTo(stallTimeout) >= 0) {
        stalled(attempt, idle);
      }
    }
    List<Attempt> lost;
    synchronized (renewing) { // with isolate(): a renewal is made from the lease as the last one left it
      List<Attempt> due = new ArrayList<>();
      List<LeaseRenewal> renewals = new ArrayList<>();
      for (Attempt attempt : attempts.values()) {
        LeaseRenewal renewal = attempt.renewalIfDue(now, renewBelow, now.plus(leaseDuration));
        if (renewal != null) {
          due.add(attempt);
          renewals.add(renewal);
        }
      }
      if (renewals.isEmpty()) {
        return;
      }
      Instant[] ends;
      try {
        ends = store.renewAllFor(owner, renewals, now);
      } catch (RuntimeException e) {
        due.forEach(attempt -> attempt.renewalFailed(e));
        if (lastFailureLogged == null || !now.isBefore(lastFailureLogged.plus(FAILURE_LOG_INTERVAL))) {
          lastFailureLogged = now;
          log.warn("could not renew the leases of {} attempts in flight; retried at the next heartbeat", renewals.size(),
              e);
        }
        return;
      }
      List<Attempt> refused = new ArrayList<>();
      for (int i = 0; i < ends.length; i++) {
        if (ends[i] != null) {
          due.get(i).renewed(renewals.get(i), ends[i]);
        } else {
          refused.add(due.get(i));
        }
      }
      lost = judgedAgain(refused, now);
    }
    lost.forEach(this::leaseLost);
  }

  /**
   * Of the attempts whose renewal the store refused, those whose lease is no longer theirs. A
   * refusal names the lease end this node last knew of; an earlier renewal that threw (its answer
   * lost: a socket timeout, a failover) may have moved it. Only then is the row read back (durably),
   * and a PENDING row whose lease now ends later than the known end (a lost renewal only moves it
   * forward) is renewed once more from that end; a new process under this node id that ended the
   * lease and claimed the row moved it without this attempt knowing, so it is lost. An attempt whose
   * row cannot be read now is kept, and judged at the next round. Called under {@link #renewing}.
   */
  private List<Attempt> judgedAgain(List<Attempt> refused, Instant now) {
    List<Attempt> lost = new ArrayList<>();
    List<Attempt> again = new ArrayList<>();
    List<LeaseRenewal> renewals = new ArrayList<>();
    for (Attempt attempt : refused) {
      if (!attempt.mayHaveBeenRenewedTo(Instant.MAX)) {
        lost.add(attempt); // no renewal threw: the lease was moved by another process
        continue;
      }
      Optional<LedgerItem> row;
      try {
        row = store.findByRowIdDurably(attempt.rowId());
      } catch (RuntimeException e) {
        log.debug("{}: the lease could not be read back; judged at the next heartbeat", attempt.item().id(), e);
        continue;
      }
      LeaseRenewal renewal = row.filter(r -> r.state() == ItemState.PENDING)
          .filter(r -> attempt.mayHaveBeenRenewedTo(r.nextAttemptAt()))
          .map(r -> attempt.renewalFrom(r.nextAttemptAt(), now.plus(leaseDuration)))
          .orElse(null);
      if (renewal == null) {
        lost.add(attempt);
      } else {
        again.add(attempt);
        renewals.add(renewal);
      }
    }
    if (renewals.isEmpty()) {
      return lost;
    }
    Instant[] ends;
    try {
      ends = store.renewAllFor(owner, renewals, now);
    } catch (RuntimeException e) {
      again.forEach(attempt -> attempt.renewalFailed(e));
      log.debug("the leases of {} attempts could not be renewed again; judged at the next heartbeat", again.size(), e);
      return lost;
    }
    for (int i = 0; i < ends.length; i++) {
      if (ends[i] != null) {
        log.info("{}: the lease was found renewed by a renewal whose answer was lost; the attempt goes on",
            again.get(i).item().id());
        again.get(i).renewed(renewals.get(i), ends[i]);
      } else {
        lost.add(again.get(i));
      }
    }
    return lost;
  }

  /**
   * Runs a round soon (on the heartbeat's thread; coalesced): an attempt stored more of its object,
   * and that evidence should reach the store before a death could make it too late.
   */
  void nudge() {
    ScheduledExecutorService running = thread;
    if (running != null && nudged.compareAndSet(false, true)) {
      try {
        running.execute(() -> {
          nudged.set(false);
          tickSafely();
        });
      } catch (RejectedExecutionException e) {
        nudged.set(false); // stopping
      }
    }
  }

  private void stalled(Attempt attempt, Duration idle) {
    if (!attempt.cancel()) {
      return;
    }
    attempts.remove(attempt.rowId(), attempt);
    failures.record(attempt.item(), Reason.STALLED, "no progress for " + idle.toSeconds() + " s (stall timeout "
        + stallTimeout + "): no bytes read or stored by the sink, no repackager output; cancelled by " + owner);
  }

  private void leaseLost(Attempt attempt) {
    if (attempt.phase() == Attempt.Phase.ENDED || !attempt.cancel()) {
      return;
    }
    attempts.remove(attempt.rowId(), attempt);
    log.info("{}: the lease of {} was taken over or the row finished elsewhere; its attempt here is cancelled",
        attempt.item().id(), owner);
    events.onClaimLost(attempt.item());
  }

  /** How many attempts are registered. */
  int inFlight() {
    return attempts.size();
  }

  void start() {
    thread = Executors.newSingleThreadScheduledExecutor(DaemonThreads.named("segment-ledger-heartbeat-"));
    thread.scheduleWithFixedDelay(this::tickSafely, tick.toNanos(), tick.toNanos(), TimeUnit.NANOSECONDS);
  }

  /**
   * Cancels, as the ledger's close does, every attempt that still produces or uploads
   * ({@link Attempt#cancelOnClose}); those handed over to their confirm go on. Each stays
   * registered until its worker ends it.
   */
  void cancelOnClose() {
    attempts.values().forEach(Attempt::cancelOnClose);
  }

  void stop(Duration timeout) {
    if (thread != null) {
      DaemonThreads.stopAndAwait(thread, timeout);
    }
  }

  private void tickSafely() {
    try {
      tick();
    } catch (RuntimeException e) {
      log.warn("heartbeat round failed; the next one runs in {}", tick, e);
    }
  }
}
