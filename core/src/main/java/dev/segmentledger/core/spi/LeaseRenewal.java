package dev.segmentledger.core.spi;

import java.time.Instant;
import java.util.Objects;

/**
 * One lease extension of a batch ({@link StateStore#renewAll}): the arguments of
 * {@link StateStore#renew} for one row, and whether the extended lease covers an upload attempt.
 *
 * @param rowId the row whose lease is extended
 * @param broadcastId the broadcast of that row (with the row id, its primary key; see
 *     {@link Confirmation#broadcastId()}); a row of another broadcast is left alone
 * @param heldUntil the end of the lease the caller holds, as it gave it (truncated to microseconds,
 *     as stores keep instants)
 * @param leaseUntil the new end of the lease
 * @param attempt {@code true}: the lease now covers an upload attempt, exactly as after
 *     {@link StateStore#renew}; {@code false}: it stays a lease of the row's wait in its
 *     registering instance's queue (taken at registration, {@link NewItem#leasedTo}), which a later
 *     claim does not count as abandoned. A lease that already covers an attempt keeps doing so.
 */
public record LeaseRenewal(long rowId, String broadcastId, Instant heldUntil, Instant leaseUntil,
    boolean attempt) {

  public LeaseRenewal {
    Objects.requireNonNull(broadcastId, "broadcastId");
    Objects.requireNonNull(heldUntil, "heldUntil");
    Objects.requireNonNull(leaseUntil, "leaseUntil");
  }
}
