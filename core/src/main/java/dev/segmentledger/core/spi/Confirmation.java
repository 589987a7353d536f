package dev.segmentledger.core.spi;

import dev.segmentledger.core.ItemId;
import dev.segmentledger.core.ItemState;
import dev.segmentledger.core.LedgerItem;
import java.time.Instant;
import java.util.Objects;

/**
 * One compare-and-set confirm of a batch ({@link StateStore#confirmAll}): the same arguments as
 * {@link StateStore#confirm}.
 *
 * @param rowId the row to confirm
 * @param id the identity of that row (as the caller read it): its broadcast and the row id are the
 *     row's primary key, so that a store finds the row by its key alone (and a store distributed by
 *     broadcast, on one shard), and its axis tells a store whether the confirm may release waiting
 *     PLAYBACK rows (an INIT); a row of another broadcast or another axis is not confirmed
 * @param expectedState the unconfirmed state the row must be in (PENDING or WAITING)
 * @param expectedSize the size the row must have
 * @param checksum the checksum of the stored object, or {@code null}
 * @param confirmedAt the confirmation time
 */
public record Confirmation(long rowId, ItemId id, ItemState expectedState, long expectedSize,
    String checksum, Instant confirmedAt) {

  public Confirmation {
    Objects.requireNonNull(id, "id");
    Objects.requireNonNull(expectedState, "expectedState");
    Objects.requireNonNull(confirmedAt, "confirmedAt");
    if (expectedState.isTerminal()) {
      throw new IllegalArgumentException("expectedState must be an unconfirmed state (PENDING or WAITING), got "
          + expectedState);
    }
  }

  /**
   * The confirm of {@code row} as it was read: in its current state and of its registered size.
   *
   * @param checksum the checksum of the stored object, or {@code null}
   */
  public static Confirmation of(LedgerItem row, String checksum, Instant confirmedAt) {
    return new Confirmation(row.rowId(), row.id(), row.state(), row.sizeBytes(), checksum, confirmedAt);
  }

  /** The broadcast of the row, part of its primary key. */
  public String broadcastId() {
    return id.broadcastId();
  }
}
