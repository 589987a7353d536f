package dev.segmentledger.core;

import java.time.Duration;
import java.util.Objects;
import java.util.random.RandomGenerator;

/**
 * Exponential backoff with jitter, capped, for retries that must survive restarts: the delay is
 * turned into a {@code next_attempt_at} on the row, and the sweeper skips rows until then.
 * Immutable and thread-safe.
 *
 * @param initial the delay after the first failure
 * @param max the cap of the delay
 * @param multiplier the growth factor per failed attempt, {@code >= 1}
 * @param jitter the fraction of the delay that is randomised, in {@code [0, 1]}
 */
public record Backoff(Duration initial, Duration max, double multiplier, double jitter) {

  /** 1 s doubling to 5 min, with 20% jitter. */
  public static final Backoff DEFAULT = new Backoff(Duration.ofSeconds(1), Duration.ofMinutes(5), 2.0, 0.2);

  public Backoff {
    Objects.requireNonNull(initial, "initial");
    Objects.requireNonNull(max, "max");
    if (initial.isNegative() || max.compareTo(initial) < 0) {
      throw new IllegalArgumentException("need 0 <= initial <= max, got " + initial + ", " + max);
    }
    if (!(multiplier >= 1.0)) {
      throw new IllegalArgumentException("multiplier must be >= 1, got " + multiplier);
    }
    if (!(jitter >= 0.0 && jitter <= 1.0)) {
      throw new IllegalArgumentException("jitter must be in [0, 1], got " + jitter);
    }
  }

  /** The delay before the next attempt after {@code failedAttempts} failures ({@code >= 1}). */
  public Duration delayAfter(int failedAttempts, RandomGenerator random) {
    double base = initial.toMillis() * Math.pow(multiplier, Math.max(0, failedAttempts - 1));
    double capped = Math.min(base, max.toMillis());
    double factor = 1.0 - jitter + random.nextDouble() * jitter;
    return Duration.ofMillis(Math.round(capped * factor));
  }
}
