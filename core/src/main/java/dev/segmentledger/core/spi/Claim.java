package dev.segmentledger.core.spi;

/**
 * The outcome of {@link StateStore#claim}: whether the claimant holds the row's lease now, and
 * whether the claim took over a lease whose holder never recorded an outcome. Immutable.
 *
 * @param held whether the claimant holds the lease now
 * @param tookOverAbandoned whether the row carried an expired lease, that is an attempt that
 *     ended without confirming the row or recording a failure (its process died or hung past
 *     the lease); the store counted it in {@code abandonedAttempts}
 * @param abandonedAttempts how many attempts on the row have ended without an outcome since it
 *     was registered or last re-opened, counting the one this claim found
 */
public record Claim(boolean held, boolean tookOverAbandoned, int abandonedAttempts) {
  /** A claim that failed: another owner holds a valid lease, or the row is not due or not PENDING. */
  public static final Claim REFUSED = new Claim(false, false, 0);

  public Claim {
    if (abandonedAttempts < 0) {
      throw new IllegalArgumentException("abandonedAttempts must be >= 0, got " + abandonedAttempts);
    }
    if (!held && (tookOverAbandoned || abandonedAttempts > 0)) {
      throw new IllegalArgumentException("a refused claim takes nothing over");
    }
  }

  /** A claim that holds the lease now, taking over {@code abandonedAttempts} if {@code tookOver}. */
  public static Claim held(boolean tookOver, int abandonedAttempts) {
    return new Claim(true, tookOver, abandonedAttempts);
  }
}
