package dev.segmentledger.core.spi;

/**
 * The outcome of {@link StateStore#claim}: whether the claimant holds the row's lease now, and
 * what the claim found of an attempt whose holder never recorded an outcome. Immutable.
 *
 * <p>The three counts weigh an abandoned attempt by its evidence (see the design, "Long work"):
 * every abandoned attempt counts once in {@code attempts} of the row; one that stored nothing
 * more of the object than was stored when it began (no durable progress) also counts as
 * {@code abandonedAttempts}, which makes the row a suspect; one that in addition ran alone in its
 * process (isolated) is blamed on the row ({@code blamedAttempts}): nothing else the process did
 * can explain its death. Both counts restart whenever the row makes durable progress: they count
 * the deaths since its last progress, and a poison never makes any.
 *
 * @param held whether the claimant holds the lease now
 * @param tookOverAbandoned whether the row carried an expired lease of an attempt, that is an
 *     attempt that ended without confirming the row or recording a failure (its process died or
 *     froze past the lease)
 * @param abandonedAttempts how many abandoned attempts on the row made no durable progress since
 *     it was registered, last re-opened or last made durable progress (any attempt that stores more
 *     of the object clears this count and the next), counting the one this claim found
 * @param blamedAttempts how many of those ran isolated in their process: the deaths the row is
 *     blamed for, counting the one this claim found
 */
public record Claim(boolean held, boolean tookOverAbandoned, int abandonedAttempts, int blamedAttempts) {
  /** A claim that failed: another owner holds a valid lease, or the row is not due or not PENDING. */
  public static final Claim REFUSED = new Claim(false, false, 0, 0);
  /** A claim that holds the lease of a row with no abandoned attempt, found now or counted before. */
  public static final Claim HELD = new Claim(true, false, 0, 0);

  public Claim {
    if (abandonedAttempts < 0 || blamedAttempts < 0) {
      throw new IllegalArgumentException("counts must be >= 0, got " + abandonedAttempts + ", " + blamedAttempts);
    }
    if (blamedAttempts > abandonedAttempts) {
      throw new IllegalArgumentException("blamed attempts are abandoned attempts: " + blamedAttempts + " > "
          + abandonedAttempts);
    }
    if (!held && (tookOverAbandoned || abandonedAttempts > 0)) {
      throw new IllegalArgumentException("a refused claim takes nothing over");
    }
  }

  /**
   * A claim that holds the lease now, having found an abandoned attempt if {@code tookOver}, with
   * the row's counts after it.
   */
  public static Claim held(boolean tookOver, int abandonedAttempts, int blamedAttempts) {
    return new Claim(true, tookOver, abandonedAttempts, blamedAttempts);
  }

}
