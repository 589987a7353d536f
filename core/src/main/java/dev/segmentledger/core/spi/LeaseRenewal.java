package dev.segmentledger.core.spi;

import java.time.Instant;
import java.util.Objects;

/**
 * One lease extension of a batch ({@link StateStore#renewAll}): the arguments of
 * {@link StateStore#renew} for one row, whether the extended lease covers an upload attempt, and
 * the evidence the attempt gives of itself (its heartbeat).
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
 * @param storedBytes how many bytes of the row's object the attempt knows to be durably stored at
 *     the sink ({@link UploadContent#reportStored}); the store keeps the greatest value it was
 *     given for the row, and a claim that finds the attempt abandoned compares it with the value
 *     when the attempt began (its durable progress). 0 for a lease that covers no attempt.
 * @param isolated whether the attempt runs alone in its process (no other attempt in flight
 *     there until it ends), so that the death of the process while it held the lease is blamed on
 *     the row; only with {@code attempt}
 */
public record LeaseRenewal(long rowId, String broadcastId, Instant heldUntil, Instant leaseUntil, boolean attempt,
    long storedBytes, boolean isolated) {
  public LeaseRenewal {
    Objects.requireNonNull(broadcastId, "broadcastId");
    Objects.requireNonNull(heldUntil, "heldUntil");
    Objects.requireNonNull(leaseUntil, "leaseUntil");
    if (storedBytes < 0) {
      throw new IllegalArgumentException("storedBytes must be >= 0, got " + storedBytes);
    }
    if (isolated && !attempt) {
      throw new IllegalArgumentException("only the lease of an attempt can be isolated");
    }
  }

  /** The extension of a lease of a row's wait in its registering instance's queue (no attempt). */
  public static LeaseRenewal ofWait(long rowId, String broadcastId, Instant heldUntil, Instant leaseUntil) {
    return new LeaseRenewal(rowId, broadcastId, heldUntil, leaseUntil, false, 0, false);
  }

  /** The extension of the lease of an attempt, with its evidence. */
  public static LeaseRenewal ofAttempt(long rowId, String broadcastId, Instant heldUntil, Instant leaseUntil,
      long storedBytes, boolean isolated) {
    return new LeaseRenewal(rowId, broadcastId, heldUntil, leaseUntil, true, storedBytes, isolated);
  }
}
