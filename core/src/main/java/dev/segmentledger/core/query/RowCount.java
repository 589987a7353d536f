package dev.segmentledger.core.query;

import dev.segmentledger.core.Axis;
import dev.segmentledger.core.ItemState;
import dev.segmentledger.core.Reason;
import java.time.Instant;
import java.util.Objects;

/**
 * How many rows of a broadcast share one axis, state and reason, and when the oldest of them was
 * registered: one line of what {@link dev.segmentledger.core.spi.StateStore#countByBroadcast}
 * answers, so that a status page reads counts, never every row. Immutable.
 *
 * @param axis the axis
 * @param state the state
 * @param reason the reason the rows carry; {@code null} for rows without one
 * @param rows how many rows, at least 1
 * @param oldestRegisteredAt when the oldest of them was registered
 */
public record RowCount(Axis axis, ItemState state, Reason reason, long rows, Instant oldestRegisteredAt) {
  public RowCount {
    Objects.requireNonNull(axis, "axis");
    Objects.requireNonNull(state, "state");
    Objects.requireNonNull(oldestRegisteredAt, "oldestRegisteredAt");
    if (rows < 1) {
      throw new IllegalArgumentException("rows must be >= 1, got " + rows);
    }
  }
}
