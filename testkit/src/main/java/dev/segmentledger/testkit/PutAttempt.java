package dev.segmentledger.testkit;

import java.util.Objects;

/**
 * One call of {@link FakeObjectSink#put} or {@link FakeObjectSink#putIfMatch}, as recorded by the fake.
 *
 * @param key the key the caller asked for
 * @param sizeBytes the size of the content offered
 * @param mayExist the caller's {@code mayExist} flag ({@code true} for a conditional write)
 * @param outcome what the fake did with it
 */
public record PutAttempt(String key, long sizeBytes, boolean mayExist, Outcome outcome) {

  /** What became of one PUT attempt. */
  public enum Outcome {
    /** The object was stored and the caller was told so. */
    STORED,
    /** {@code mayExist} was set and an identical object (size and checksum) was found: nothing stored. */
    SKIPPED_IDENTICAL,
    /** A fault failed the call before anything was stored. */
    FAILED_BEFORE_STORE,
    /** The object was stored, then a fault failed the call: a lost acknowledgement. */
    STORED_THEN_FAILED,
    /**
     * A conditional write ({@link FakeObjectSink#putIfMatch}) found another version than the one
     * expected at the key: nothing stored, the object there untouched.
     */
    REFUSED;

    /** Whether this attempt wrote the object. */
    public boolean wroteObject() {
      return this == STORED || this == STORED_THEN_FAILED;
    }
  }

  public PutAttempt {
    Objects.requireNonNull(key, "key");
    Objects.requireNonNull(outcome, "outcome");
  }
}
