package dev.segmentledger.core.spi;

import dev.segmentledger.core.LedgerItem;
import java.util.Objects;

/**
 * The outcome of {@link StateStore#claimRow}: the {@link Claim}, and the row as the claim left it
 * (leased to the claimant) if the claim holds the lease. Immutable.
 *
 * @param claim what {@link StateStore#claim} would have returned
 * @param row the row as claimed; {@code null} exactly when the claim was refused, or if the row was
 *     gone by the time a store that reads it separately read it
 */
public record ClaimedRow(Claim claim, LedgerItem row) {
  /** A refused claim, without a row. */
  public static final ClaimedRow REFUSED = new ClaimedRow(Claim.REFUSED, null);

  public ClaimedRow {
    Objects.requireNonNull(claim, "claim");
    if (!claim.held() && row != null) {
      throw new IllegalArgumentException("a refused claim has no row");
    }
  }
}
