package dev.segmentledger.core;

import java.time.Instant;
import java.util.Objects;

/**
 * A snapshot of one ledger row, as read from the {@link dev.segmentledger.core.spi.StateStore}.
 * Immutable; it may be stale the moment it is read, which is why every state change is a
 * compare-and-set on the store.
 *
 * @param rowId the store's id of the row; ids grow with insertion order (the sweep cursor)
 * @param id the natural identity
 * @param sourcePath the file registered for upload, as given at registration
 * @param sizeBytes the size registered, which the confirm checks
 * @param state the row state
 * @param attempts failed attempts so far
 * @param reason why the last attempt failed or why the row is terminal; {@code null} if none
 * @param lastError a human-readable detail of the last failure; {@code null} if none
 * @param registeredAt when the row was written
 * @param nextAttemptAt the earliest time the sweeper may pick the row again
 * @param confirmedAt when the row was confirmed; {@code null} unless confirmed
 * @param checksum the checksum reported by the sink on confirm; {@code null} unless known
 */
public record LedgerItem(
    long rowId,
    ItemId id,
    String sourcePath,
    long sizeBytes,
    ItemState state,
    int attempts,
    Reason reason,
    String lastError,
    Instant registeredAt,
    Instant nextAttemptAt,
    Instant confirmedAt,
    String checksum) {

  public LedgerItem {
    Objects.requireNonNull(id, "id");
    Objects.requireNonNull(sourcePath, "sourcePath");
    Objects.requireNonNull(state, "state");
    Objects.requireNonNull(registeredAt, "registeredAt");
    Objects.requireNonNull(nextAttemptAt, "nextAttemptAt");
  }

  /** The key this item is stored under. */
  public String objectKey() {
    return id.objectKey();
  }
}
