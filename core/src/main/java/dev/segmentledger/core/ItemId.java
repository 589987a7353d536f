package dev.segmentledger.core;

import java.util.Comparator;
import java.util.Objects;

/**
 * The natural identity of one ledger row: broadcast, axis, rendition and sequence (its
 * <em>position</em>), and the {@linkplain MediaFormat format} of its file. The format is part of
 * the identity so that the {@linkplain ObjectKeys object key} stays a pure function of it: an
 * original recorded as fMP4 is stored under {@code .m4s}, not {@code .ts}.
 *
 * <p>A ledger holds at most one row per position. Registering a position again with the same
 * identity is the same row; with another format it is a {@link RegistrationConflictException},
 * as with another size. A store {@linkplain dev.segmentledger.core.spi.StateStore#find finds} a row
 * by its position, whatever format the identity asked for names.
 *
 * <p>Identifiers are validated on construction (see {@link Identifiers}); the sequence is
 * non-negative, and is always 0 for {@link Axis#INIT}. Only an ORIGINAL chooses its format; a
 * PLAYBACK is always {@link MediaFormat#FMP4} and an INIT {@link MediaFormat#MP4}. The constructor
 * and factories without a format give the axis's {@linkplain MediaFormat#defaultFor default}
 * (MPEG-TS for an original). Immutable and thread-safe.
 *
 * @param broadcastId the broadcast, a valid identifier
 * @param axis the axis
 * @param rendition the rendition (for example {@code 720p}), a valid identifier
 * @param sequence the segment sequence number, {@code >= 0}; 0 for INIT
 * @param format the container of the item's file
 */
public record ItemId(String broadcastId, Axis axis, String rendition, long sequence, MediaFormat format) {
  /**
   * The order in which a {@link dev.segmentledger.core.spi.StateStore} inserts the rows of a batch:
   * by broadcast, axis (by name), rendition, then sequence, identifiers compared character by
   * character. These are the columns of the ledger's unique identity in the order of its index.
   * Batches that insert overlapping identities in this one order may wait for each other, but
   * cannot deadlock. Within a rendition of one axis it is the order of the sequence numbers. It
   * orders positions: two identities that differ only by format compare equal.
   */
  public static final Comparator<ItemId> IDENTITY_ORDER = Comparator.comparing(ItemId::broadcastId)
      .thenComparing(id -> id.axis().name())
      .thenComparing(ItemId::rendition)
      .thenComparingLong(ItemId::sequence);

  public ItemId {
    Identifiers.requireValid("broadcastId", broadcastId);
    Objects.requireNonNull(axis, "axis");
    Objects.requireNonNull(format, "format");
    if (axis != Axis.ORIGINAL && format != MediaFormat.defaultFor(axis)) {
      throw new IllegalArgumentException("a " + axis + " item is always " + MediaFormat.defaultFor(axis) + ", got "
          + format);
    }
    Identifiers.requireValid("rendition", rendition);
    if (sequence < 0) {
      throw new IllegalArgumentException("sequence must be >= 0, got " + sequence);
    }
    if (axis == Axis.INIT && sequence != 0) {
      throw new IllegalArgumentException("an INIT item has no sequence (must be 0), got " + sequence);
    }
  }

  /** The identity at this position with its axis's {@linkplain MediaFormat#defaultFor default format}. */
  public ItemId(String broadcastId, Axis axis, String rendition, long sequence) {
    this(broadcastId, axis, rendition, sequence, axis == null ? null : MediaFormat.defaultFor(axis));
  }

  /** The recorded file of segment {@code sequence}, an MPEG-TS file. */
  public static ItemId original(String broadcastId, String rendition, long sequence) {
    return new ItemId(broadcastId, Axis.ORIGINAL, rendition, sequence);
  }

  /** The recorded file of segment {@code sequence}, in {@code format}. */
  public static ItemId original(String broadcastId, String rendition, long sequence, MediaFormat format) {
    return new ItemId(broadcastId, Axis.ORIGINAL, rendition, sequence, format);
  }

  /** The playback segment of segment {@code sequence}. */
  public static ItemId playback(String broadcastId, String rendition, long sequence) {
    return new ItemId(broadcastId, Axis.PLAYBACK, rendition, sequence);
  }

  /** The init segment of a rendition. */
  public static ItemId init(String broadcastId, String rendition) {
    return new ItemId(broadcastId, Axis.INIT, rendition, 0);
  }

  /**
   * The object key of this item: the key contract of {@link ObjectKeys}, a pure function of the
   * identity ({@code {broadcast}/{rendition}/original/{sequence:10}.{ext}},
   * {@code .../playback/{sequence:10}.m4s}, {@code .../init.mp4}). {@link ObjectKeys#idOf} reads it
   * back.
   */
  public String objectKey() {
    String base = broadcastId + "/" + rendition + "/";
    return switch (axis) {
      case ORIGINAL -> base + "original/" + tenDigits(sequence) + "." + format.extension();
      case PLAYBACK -> base + "playback/" + tenDigits(sequence) + ".m4s";
      case INIT -> base + "init.mp4";
    };
  }

  /** {@code sequence} with leading zeros to at least ten digits, as keys sort in sequence order. */
  static String tenDigits(long sequence) {
    String digits = Long.toString(sequence);
    return digits.length() >= 10 ? digits : "0".repeat(10 - digits.length()) + digits;
  }

  @Override
  public String toString() {
    String position = broadcastId + "/" + axis + "/" + rendition + "/" + sequence;
    return format == MediaFormat.defaultFor(axis) ? position : position + " (" + format + ")";
  }
}
