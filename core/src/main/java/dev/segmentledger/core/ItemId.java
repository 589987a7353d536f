package dev.segmentledger.core;

import java.util.Comparator;
import java.util.Objects;

/**
 * The natural identity of one ledger row: broadcast, axis, rendition and sequence. Two
 * registrations with the same identity are the same row.
 *
 * <p>Identifiers are validated on construction (see {@link Identifiers}); the sequence is
 * non-negative, and is always 0 for {@link Axis#INIT}. Immutable and thread-safe.
 *
 * @param broadcastId the broadcast, a valid identifier
 * @param axis the axis
 * @param rendition the rendition (for example {@code 720p}), a valid identifier
 * @param sequence the segment sequence number, {@code >= 0}; 0 for INIT
 */
public record ItemId(String broadcastId, Axis axis, String rendition, long sequence) {
  /**
   * The order in which a {@link dev.segmentledger.core.spi.StateStore} inserts the rows of a batch:
   * by broadcast, axis (by name), rendition, then sequence, identifiers compared character by
   * character. These are the columns of the ledger's unique identity in the order of its index.
   * Batches that insert overlapping identities in this one order may wait for each other, but
   * cannot deadlock. Within a rendition of one axis it is the order of the sequence numbers.
   */
  public static final Comparator<ItemId> IDENTITY_ORDER = Comparator.comparing(ItemId::broadcastId)
      .thenComparing(id -> id.axis().name())
      .thenComparing(ItemId::rendition)
      .thenComparingLong(ItemId::sequence);

  public ItemId {
    Identifiers.requireValid("broadcastId", broadcastId);
    Objects.requireNonNull(axis, "axis");
    Identifiers.requireValid("rendition", rendition);
    if (sequence < 0) {
      throw new IllegalArgumentException("sequence must be >= 0, got " + sequence);
    }
    if (axis == Axis.INIT && sequence != 0) {
      throw new IllegalArgumentException("an INIT item has no sequence (must be 0), got " + sequence);
    }
  }

  /** The recorded file of segment {@code sequence}. */
  public static ItemId original(String broadcastId, String rendition, long sequence) {
    return new ItemId(broadcastId, Axis.ORIGINAL, rendition, sequence);
  }

  /** The playback segment of segment {@code sequence}. */
  public static ItemId playback(String broadcastId, String rendition, long sequence) {
    return new ItemId(broadcastId, Axis.PLAYBACK, rendition, sequence);
  }

  /** The init segment of a rendition. */
  public static ItemId init(String broadcastId, String rendition) {
    return new ItemId(broadcastId, Axis.INIT, rendition, 0);
  }

  /** The object key of this item, see {@link ObjectKeys#keyOf(ItemId)}. */
  public String objectKey() {
    return ObjectKeys.keyOf(this);
  }

  @Override
  public String toString() {
    return broadcastId + "/" + axis + "/" + rendition + "/" + sequence;
  }
}
