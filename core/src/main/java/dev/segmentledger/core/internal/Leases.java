package dev.segmentledger.core.internal;

import dev.segmentledger.core.ItemState;
import dev.segmentledger.core.LedgerItem;
import dev.segmentledger.core.spi.Claim;
import dev.segmentledger.core.spi.ClaimedRow;
import dev.segmentledger.core.spi.LeaseRenewal;
import dev.segmentledger.core.spi.StateStore;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.List;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * This ledger instance's leases on rows, so that instances sharing a store do not upload one item
 * at the same time. A claim is taken right before the PUT and ends with the confirm or the
 * recorded failure (the store clears it), or by {@link #release} when the attempt is not made.
 *
 * <p>A lease only saves duplicate work; it guards nothing: the confirm stays a compare-and-set on
 * state and size. If this instance dies, its leases expire after the lease duration and the rows
 * are due again for every instance's sweeper. Claims and renewals are judged by the store's clock,
 * and the lease ends are the store's; the clock given here is the store's time as this instance
 * estimates it ({@link StoreClock}), so that the ends it writes or compares itself agree with them. Thread-safe: lease extensions run one at a time, and
 * only they change the lease of queued work.
 */
final class Leases {
  private static final Logger log = LoggerFactory.getLogger(Leases.class);

  private final StateStore store;
  private final Clock clock;
  private final String owner;
  private final Duration duration;
  private final WorkQueue queue; // null: no queued leases are extended with a renewal
  private final Object renewing = new Object();
  private final Duration halfRegistrationLease;

  /** @param queue the work whose registration leases a renewal extends as well, or {@code null} */
  Leases(StateStore store, Clock clock, String owner, Duration duration, WorkQueue queue) {
    this.store = store;
    this.clock = clock;
    this.owner = owner;
    this.duration = duration;
    this.queue = queue;
    this.halfRegistrationLease = registrationLease().dividedBy(2); // once: dividedBy computes in BigDecimal
  }

  /**
   * A lease this instance holds for one attempt, or a refusal.
   *
   * @param claim what the claim found ({@link Claim#REFUSED} if this instance holds nothing)
   * @param row the row as the claim left it, or the item as given when no claim was needed;
   *     {@code null} if refused, or gone since
   * @param until the end of the lease as the store keeps it; {@code null} if refused
   */
  record Held(Claim claim, LedgerItem row, Instant until) {
    static final Held REFUSED = new Held(Claim.REFUSED, null, null);

    boolean held() {
      return claim.held();
    }
  }

  /**
   * Claims {@code item} for one attempt by this instance.
   *
   * @return refused if another instance holds a valid lease, or the row is in backoff or no
   *     longer PENDING; the caller must then leave the item alone
   */
  Held claim(LedgerItem item) {
    Held held = claimRow(item);
    return held.held() ? new Held(held.claim(), item, held.until()) : held;
  }

  /**
   * {@link #claim}, with the row as the claim left it: for a row from a sweep page, which may be
   * stale. The claim is judged by the store's clock ({@link StateStore#claimFor}), and the lease
   * ends where the store says.
   */
  Held claimRow(LedgerItem item) {
    Instant now = clock.instant();
    ClaimedRow claimed = store.claimFor(item.rowId(), owner, duration, now);
    logIfRefused(item, claimed.claim());
    if (!claimed.claim().held()) {
      return Held.REFUSED;
    }
    Instant until = claimed.row() != null ? claimed.row().nextAttemptAt()
        : now.plus(duration).truncatedTo(ChronoUnit.MICROS); // the row is gone since
    return new Held(claimed.claim(), claimed.row(), until);
  }

  private void logIfRefused(LedgerItem item, Claim claim) {
    if (!claim.held()) {
      log.debug("{} is leased to another instance or no longer pending; skipped by {}", item.id(), owner);
    }
  }

  /**
   * The lease for one attempt on {@code work}'s item: the lease this instance took at its
   * registration, if it still has half its duration to run; that lease extended, if it has less
   * (even expired, as long as no one took it over: this instance is alive and about to upload); a
   * fresh {@linkplain #claim claim} if this instance took none ({@code null}). {@code item} is the
   * item to attempt ({@code work}'s, re-read if it came from a sweep).
   *
   * <p>An extension is one {@link StateStore#renewAll} that also extends the registration leases of
   * the work waiting in the queue which has less than three quarters of its registration lease left,
   * up to {@value #MAX_RENEWAL_BATCH} rows: those are extended to a fresh registration lease and stay
   * leases of the rows' wait (a claim after this instance died does not count them as abandoned
   * attempts, and they last no longer than a registration lease), so the workers that take them
   * later find them held and need no statement of their own. One extension runs at a time; a worker
   * whose item such an extension covered finds it held once the extension is over. A lease kept
   * from registration becomes the lease of an attempt at the attempt's first heartbeat. A refused
   * extension is judged again against the row as it is now before the item is given up
   * ({@link #renewAsFoundNow}).
   */
  Held acquire(LedgerItem item, InFlight work) {
    Instant leasedUntil = work.leasedUntil();
    if (leasedUntil == null) {
      return claim(item);
    }
    if (holds(leasedUntil)) {
      return new Held(Claim.HELD, item, leasedUntil);
    }
    Instant renewedUntil;
    synchronized (renewing) {
      leasedUntil = work.leasedUntil();
      if (holds(leasedUntil)) {
        return new Held(Claim.HELD, item, leasedUntil); // extended meanwhile, with the queue, by another worker
      }
      renewedUntil = renewWithQueue(item, work, leasedUntil);
      if (renewedUntil == null) {
        renewedUntil = renewAsFoundNow(item, work);
      }
    }
    if (renewedUntil == null) {
      log.debug("{}: the lease taken at registration was taken over; skipped by {}", item.id(), owner);
      return Held.REFUSED;
    }
    return new Held(Claim.HELD, item, renewedUntil);
  }

  /**
   * Judges a refused extension again: an earlier extension of {@code work}'s lease that threw (its
   * answer lost: a socket timeout, a failover) may have moved the lease without this instance
   * knowing. Only then is the row read back (durably), and a PENDING row whose lease now ends later
   * than the known end (a lost extension only moves it forward) is renewed from that end, which the
   * store grants only to the lease's owner. A lease moved otherwise (a new process under this node
   * id ended it and claimed the row) is not this instance's. Called under {@link #renewing}.
   *
   * @return the new end of {@code item}'s lease, or {@code null} if it is not this instance's
   */
  private Instant renewAsFoundNow(LedgerItem item, InFlight work) {
    if (!work.mayHaveBeenExtendedTo(Instant.MAX)) {
      return null; // no extension threw: the lease was moved by another process
    }
    Instant foundUntil = store.findByRowIdDurably(item.rowId())
        .filter(row -> row.state() == ItemState.PENDING)
        .map(LedgerItem::nextAttemptAt)
        .filter(work::mayHaveBeenExtendedTo)
        .orElse(null);
    if (foundUntil == null) {
      return null;
    }
    Instant now = clock.instant();
    LeaseRenewal renewal = LeaseRenewal.ofAttempt(item.rowId(), item.id().broadcastId(), foundUntil,
        now.plus(duration).truncatedTo(ChronoUnit.MICROS), 0, false);
    try {
      return store.renewAllFor(owner, List.of(renewal), now)[0];
    } catch (RuntimeException e) {
      work.extensionFailed(e);
      throw e;
    }
  }

  /** Most rows one lease extension names: the item about to be attempted and the queued work. */
  static final int MAX_RENEWAL_BATCH = 1000;

  /**
   * Called under {@link #renewing}, the only lock under which queued work's leases change.
   *
   * @return the new end of {@code item}'s lease, or {@code null} if it was not renewed
   */
  private Instant renewWithQueue(LedgerItem item, InFlight work, Instant leasedUntil) {
    Instant now = clock.instant();
    Instant waitUntil = now.plus(registrationLease()).truncatedTo(ChronoUnit.MICROS);
    Instant extendBefore = now.plus(registrationLease().multipliedBy(3).dividedBy(4));
    Instant attemptUntil = now.plus(duration).truncatedTo(ChronoUnit.MICROS);
    List<LeaseRenewal> renewals = new ArrayList<>();
    List<InFlight> queued = new ArrayList<>();
    renewals.add(LeaseRenewal.ofAttempt(item.rowId(), item.id().broadcastId(), leasedUntil, attemptUntil, 0, false));
    if (queue != null) {
      queue.forEachQueued(4 * MAX_RENEWAL_BATCH, waiting -> {
        Instant until = waiting.leasedUntil();
        if (until != null && until.isBefore(extendBefore) && renewals.size() < MAX_RENEWAL_BATCH) {
          renewals.add(LeaseRenewal.ofWait(waiting.item().rowId(), waiting.item().id().broadcastId(), until, waitUntil));
          queued.add(waiting);
        }
      });
    }
    Instant[] ends;
    try {
      ends = store.renewAllFor(owner, renewals, now);
    } catch (RuntimeException e) { // written, perhaps, and the answer lost: judged again if refused later
      work.extensionFailed(e);
      queued.forEach(waiting -> waiting.extensionFailed(e));
      throw e;
    }
    for (int i = 1; i < ends.length; i++) {
      if (ends[i] != null) {
        queued.get(i - 1).leaseExtended(ends[i]);
      }
    }
    return ends[0];
  }

  /**
   * The longest lease taken at registration. Such a lease covers the row's wait in this instance's
   * queue, and it is all that delays the row if this instance dies before uploading it and comes
   * back under another name; it is therefore kept short, whatever the lease duration.
   */
  static final Duration REGISTRATION_LEASE = Duration.ofSeconds(10);

  /** The end of a lease taken now at registration, for a row this instance will upload itself. */
  Instant registrationLeaseUntil() {
    // Truncated as stores keep instants, so that renew() can name exactly the lease taken.
    return clock.instant().plus(registrationLease()).truncatedTo(ChronoUnit.MICROS);
  }

  private Duration registrationLease() {
    return duration.compareTo(REGISTRATION_LEASE) < 0 ? duration : REGISTRATION_LEASE;
  }

  /** The instance's own name as a lease owner. */
  String owner() {
    return owner;
  }

  /**
   * Whether a lease this instance took at registration, ending at {@code leasedUntil}, still has
   * at least half its duration to run, so that the claim before the PUT can be skipped (otherwise
   * the claim renews it for the full lease duration). {@code null} (no lease taken) is {@code false}.
   */
  boolean holds(Instant leasedUntil) {
    return leasedUntil != null && clock.instant().isBefore(leasedUntil.minus(halfRegistrationLease));
  }

  /**
   * Takes back, at once, every row leased to this owner: a node restarting under the same
   * {@code nodeId} does not wait for the leases of the uploads it was making when it died to
   * expire. A store failure here only delays those rows until their leases expire.
   */
  void takeBackAll() {
    try {
      int released = store.releaseAllOf(owner, clock.instant());
      if (released > 0) {
        log.info("ledger {} took back {} rows it held before a restart", owner, released);
      }
    } catch (RuntimeException e) {
      log.warn("could not take back the leases of {}; they are retried when they expire", owner, e);
    }
  }

  /**
   * Gives back the lease on {@code item} without an attempt; the row is due again after
   * {@code delay} (zero: at once).
   */
  void release(LedgerItem item, Duration delay) {
    try {
      store.release(item.rowId(), owner, clock.instant().plus(delay));
    } catch (RuntimeException e) {
      log.warn("could not release the lease on {}; it expires within {}", item.id(), duration, e);
    }
  }
}
