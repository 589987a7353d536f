package dev.segmentledger.core.internal;

import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneId;
import java.time.ZoneOffset;
import java.util.Optional;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

/**
 * The skew between the node's clock and the store's is measured from the fastest of a few round
 * trips: one slow round trip (a wait for a pooled connection on a loaded machine) is not skew.
 */
class StoreClockTest {
  private static final Instant T0 = Instant.parse("2026-01-01T00:00:00Z");

  /** A clock that moves only when told. */
  private static final class ManualClock extends Clock {
    private volatile Instant now = T0;

    void advance(Duration by) {
      now = now.plus(by);
    }

    @Override
    public Instant instant() {
      return now;
    }

    @Override
    public ZoneId getZone() {
      return ZoneOffset.UTC;
    }

    @Override
    public Clock withZone(ZoneId zone) {
      throw new UnsupportedOperationException();
    }
  }

  @Test
  void oneSlowRoundTripIsNotTakenForSkew() {
    ManualClock clock = new ManualClock();
    AtomicInteger reads = new AtomicInteger();
    StubStore store = new StubStore() {
      @Override
      public Optional<Instant> currentTime() {
        if (reads.getAndIncrement() == 0) {
          clock.advance(Duration.ofSeconds(20)); // the first read waited 20 s for a connection
        }
        return Optional.of(clock.instant()); // the store's clock agrees with the node's
      }
    };
    StoreClock storeClock = new StoreClock(store, clock, Duration.ofSeconds(1));

    storeClock.measureIfDue();

    assertTrue(storeClock.skew().abs().compareTo(Duration.ofSeconds(1)) < 0,
        "a 20 s round trip was taken for a skew of " + storeClock.skew());
  }
}
