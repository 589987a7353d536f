package dev.segmentledger.core.spi;

import dev.segmentledger.core.ItemState;
import java.time.Instant;
import java.util.Objects;

/**
 * One compare-and-set confirm of a batch ({@link StateStore#confirmAll}): the same arguments as
 * {@link StateStore#confirm}.
 *
 * @param rowId the row to confirm
 * @param expectedState the unconfirmed state the row must be in (PENDING or WAITING)
 * @param expectedSize the size the row must have
 * @param checksum the checksum of the stored object, or {@code null}
 * @param confirmedAt the confirmation time
 */
public record Confirmation(long rowId, ItemState expectedState, long expectedSize, String checksum,
    Instant confirmedAt) {

  public Confirmation {
    Objects.requireNonNull(expectedState, "expectedState");
    Objects.requireNonNull(confirmedAt, "confirmedAt");
    if (expectedState.isTerminal()) {
      throw new IllegalArgumentException("expectedState must be an unconfirmed state (PENDING or WAITING), got "
          + expectedState);
    }
  }
}
