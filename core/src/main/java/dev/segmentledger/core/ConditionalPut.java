package dev.segmentledger.core;

import java.util.Objects;

/**
 * The outcome of {@link dev.segmentledger.core.spi.ObjectSink#putIfMatch}: the content was stored
 * because the object at the key was the version the caller expected, or nothing was written because
 * it was not, or the sink cannot write conditionally and stored the content without a condition.
 * Immutable.
 *
 * @param outcome what happened
 * @param stored what is now stored at the key; {@code null} if {@link Outcome#REFUSED}
 * @param etag {@link Outcome#STORED}: the ETag of the object now at the key, to expect at the next
 *     conditional write; {@link Outcome#REFUSED}: the ETag of the object found at the key instead
 *     of the expected one, or {@code null} if no object is there; {@link Outcome#UNCONDITIONAL}: the
 *     new object's ETag if the sink knows it, else {@code null}
 */
public record ConditionalPut(Outcome outcome, StoredObjectInfo stored, String etag) {

  /** What a conditional write did. */
  public enum Outcome {
    /** The object at the key was the expected version (or, as expected, absent); the content is stored. */
    STORED,
    /**
     * The object at the key is not the expected version (another writer replaced, created or
     * deleted it); nothing was written and the object there is untouched.
     */
    REFUSED,
    /** The sink cannot write conditionally: the content was stored whatever was at the key. */
    UNCONDITIONAL
  }

  public ConditionalPut {
    Objects.requireNonNull(outcome, "outcome");
    if ((stored == null) != (outcome == Outcome.REFUSED)) {
      throw new IllegalArgumentException("stored must be null exactly when the write was refused, got " + outcome
          + " with " + stored);
    }
  }

  /** The content was stored over the expected version; {@code etag} is the new object's. */
  public static ConditionalPut stored(StoredObjectInfo stored, String etag) {
    return new ConditionalPut(Outcome.STORED, Objects.requireNonNull(stored, "stored"), etag);
  }

  /** Nothing was written: {@code currentEtag} is the object found at the key, {@code null} if none. */
  public static ConditionalPut refused(String currentEtag) {
    return new ConditionalPut(Outcome.REFUSED, null, currentEtag);
  }

  /** The content was stored without a condition. */
  public static ConditionalPut unconditional(StoredObjectInfo stored, String etag) {
    return new ConditionalPut(Outcome.UNCONDITIONAL, Objects.requireNonNull(stored, "stored"), etag);
  }

  /** Whether the write was refused (nothing written). */
  public boolean refused() {
    return outcome == Outcome.REFUSED;
  }
}
