package dev.segmentledger.core.internal;

import dev.segmentledger.core.spi.StateStore;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneId;
import java.util.Optional;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The store's time as this node estimates it: the ledger's clock less the skew last measured
 * between the two ({@link StateStore#currentTime()}). The store judges leases by its own clock
 * ({@link StateStore#claimFor}, {@link StateStore#renewAllFor}); the instants this node compares
 * with the lease ends the store wrote, or writes itself beside them (registration leases, backoffs,
 * the sweep's {@code now}), are taken from this clock, so that they are on the store's time too. A
 * store without a clock of its own has no skew: this clock is the ledger's.
 *
 * <p>The skew is measured by {@link #measureIfDue} at most every {@link #MEASURE_INTERVAL}, from
 * the fastest of {@link #SAMPLES} round trips (a slow one, such as a wait for a pooled connection on
 * a loaded machine, would be taken for skew); a
 * skew beyond the warning threshold is logged once when it crosses it, and once when it is back
 * within half of it. Reading {@link #instant()} does no I/O. Thread-safe.
 */
final class StoreClock extends Clock {
  private static final Logger log = LoggerFactory.getLogger(StoreClock.class);
  /** The longest time between two measures of the skew, on the ledger's clock. */
  static final Duration MEASURE_INTERVAL = Duration.ofSeconds(30);
  /** Readings of the store's clock per measure; the one of the shortest round trip is kept. */
  static final int SAMPLES = 3;

  private final StateStore store;
  private final Clock clock;
  private final Duration warnAbove;
  private volatile Duration skew = Duration.ZERO;
  private Instant lastMeasured;
  private boolean warned;

  /** @param warnAbove the skew (either way) beyond which a warning is logged */
  StoreClock(StateStore store, Clock clock, Duration warnAbove) {
    this.store = store;
    this.clock = clock;
    this.warnAbove = warnAbove;
  }

  /** The warning threshold for {@code leaseDuration}: a tenth of it, at least a second. */
  static Duration warningThresholdFor(Duration leaseDuration) {
    Duration tenth = leaseDuration.dividedBy(10);
    return tenth.compareTo(Duration.ofSeconds(1)) < 0 ? Duration.ofSeconds(1) : tenth;
  }

  /** How far the ledger's clock runs ahead of the store's (negative: behind), as last measured. */
  Duration skew() {
    return skew;
  }

  /** Measures the skew if it was last measured {@link #MEASURE_INTERVAL} ago or more, or never. */
  void measureIfDue() {
    synchronized (this) {
      Instant now = clock.instant();
      if (lastMeasured != null && now.isBefore(lastMeasured.plus(MEASURE_INTERVAL))
          && !now.isBefore(lastMeasured)) {
        return;
      }
      lastMeasured = now;
    }
    measure();
  }

  /**
   * Takes {@link #SAMPLES} readings of the store's clock and keeps the one of the shortest round
   * trip: a reading is off by up to half its round trip, which includes any wait for a connection.
   */
  private void measure() {
    Duration measured = null;
    Duration shortest = null;
    for (int sample = 0; sample < SAMPLES; sample++) {
      Instant before = clock.instant();
      Optional<Instant> storeTime;
      try {
        storeTime = store.currentTime();
      } catch (RuntimeException e) {
        log.debug("the store's clock could not be read; the skew is measured again later", e);
        return;
      }
      if (storeTime.isEmpty()) {
        return;
      }
      Duration roundTrip = Duration.between(before, clock.instant());
      if (shortest == null || roundTrip.compareTo(shortest) < 0) {
        shortest = roundTrip;
        measured = Duration.between(storeTime.get(), before.plus(roundTrip.dividedBy(2)));
      }
    }
    skew = measured;
    synchronized (this) {
      boolean beyond = measured.abs().compareTo(warnAbove) > 0;
      if (beyond && !warned) {
        warned = true;
        log.warn("this node's clock runs {} {} the store's (more than {}); leases are judged by the store's clock, "
            + "but correct this node's time (NTP)", measured.abs(), measured.isNegative() ? "behind" : "ahead of",
            warnAbove);
      } else if (warned && measured.abs().compareTo(warnAbove.dividedBy(2)) <= 0) {
        warned = false;
        log.info("this node's clock is back within {} of the store's ({})", warnAbove.dividedBy(2), measured);
      }
    }
  }

  /**
   * The ledger's own clock, without the skew: for durations measured on this node alone (an
   * attempt's idle time), which a new measure of the skew must not lengthen or shorten.
   */
  Instant ledgerInstant() {
    return clock.instant();
  }

  @Override
  public Instant instant() {
    return clock.instant().minus(skew);
  }

  @Override
  public ZoneId getZone() {
    return clock.getZone();
  }

  @Override
  public Clock withZone(ZoneId zone) {
    throw new UnsupportedOperationException("the store's clock has the ledger clock's zone");
  }
}
