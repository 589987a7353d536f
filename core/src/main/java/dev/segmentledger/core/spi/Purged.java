package dev.segmentledger.core.spi;

import java.util.List;
import java.util.Objects;

/**
 * What one {@link StateStore#purge} call removed. Immutable.
 *
 * @param rows the number of ledger rows deleted by the call
 * @param broadcastsEmptied the broadcasts whose last row the call deleted, in the order it reached
 *     them; each keeps its (ended) broadcast record as a tombstone
 */
public record Purged(long rows, List<String> broadcastsEmptied) {
  /** Nothing removed. */
  public static final Purged NOTHING = new Purged(0, List.of());

  public Purged {
    if (rows < 0) {
      throw new IllegalArgumentException("rows must be >= 0, got " + rows);
    }
    broadcastsEmptied = List.copyOf(Objects.requireNonNull(broadcastsEmptied, "broadcastsEmptied"));
  }

  /** Whether the call removed nothing: the work up to its instant is done. */
  public boolean isEmpty() {
    return rows == 0 && broadcastsEmptied.isEmpty();
  }
}
