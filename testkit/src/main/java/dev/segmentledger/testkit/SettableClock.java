package dev.segmentledger.testkit;

import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneId;
import java.time.ZoneOffset;
import java.util.Objects;
import java.util.concurrent.atomic.AtomicReference;

/**
 * A {@link Clock} whose instant is set and advanced by the test, never by the passage of time.
 * Hand it to {@code LedgerBuilder.clock(...)} to drive backoff and cutoff deterministically.
 *
 * <p>Thread-safe: the instant is held in an atomic reference, so a test thread may advance it
 * while ledger threads read it. The zone is UTC; {@link #withZone(ZoneId)} returns a view that
 * shares the same instant.
 */
public final class SettableClock extends Clock {
  private final AtomicReference<Instant> now;
  private final ZoneId zone;

  private SettableClock(AtomicReference<Instant> now, ZoneId zone) {
    this.now = now;
    this.zone = zone;
  }

  /** A clock that reads {@code start} until it is set or advanced. */
  public static SettableClock at(Instant start) {
    return new SettableClock(new AtomicReference<>(Objects.requireNonNull(start, "start")), ZoneOffset.UTC);
  }

  /** A clock that starts at 2026-01-01T00:00:00Z. */
  public static SettableClock atFixedStart() {
    return at(Instant.parse("2026-01-01T00:00:00Z"));
  }

  /** Sets the instant every later read returns. */
  public void set(Instant instant) {
    now.set(Objects.requireNonNull(instant, "instant"));
  }

  /** Moves the instant forward (or backward, for a negative duration) and returns the new instant. */
  public Instant advance(Duration duration) {
    Objects.requireNonNull(duration, "duration");
    return now.updateAndGet(current -> current.plus(duration));
  }

  @Override
  public Instant instant() {
    return now.get();
  }

  @Override
  public ZoneId getZone() {
    return zone;
  }

  @Override
  public Clock withZone(ZoneId newZone) {
    return new SettableClock(now, Objects.requireNonNull(newZone, "zone"));
  }

  @Override
  public String toString() {
    return "SettableClock[" + now.get() + ", " + zone + "]";
  }
}
