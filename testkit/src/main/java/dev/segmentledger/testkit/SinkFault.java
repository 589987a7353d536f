package dev.segmentledger.testkit;

import dev.segmentledger.core.SinkException;
import java.time.Duration;
import java.util.Objects;
import java.util.concurrent.CountDownLatch;

/**
 * A fault that {@link FakeObjectSink} applies to one PUT call. Create with the static factories;
 * instances are immutable and may be scheduled any number of times.
 */
public final class SinkFault {
  enum Kind { FAIL_RETRYABLE, FAIL_PERMANENT, FAIL_CONFIGURATION, STORE_THEN_FAIL, DELAY, BLOCK }

  final Kind kind;
  final Duration delay;
  final CountDownLatch gate;

  private SinkFault(Kind kind, Duration delay, CountDownLatch gate) {
    this.kind = kind;
    this.delay = delay;
    this.gate = gate;
  }

  /** Fails the call with a retryable {@link SinkException} before storing anything (a 503, a reset). */
  public static SinkFault failRetryable() {
    return new SinkFault(Kind.FAIL_RETRYABLE, Duration.ZERO, null);
  }

  /** Fails the call with a permanent {@link SinkException} before storing anything (a 403). */
  public static SinkFault failPermanent() {
    return new SinkFault(Kind.FAIL_PERMANENT, Duration.ZERO, null);
  }

  /**
   * Fails the call with a {@link SinkException.Kind#CONFIGURATION configuration} {@link SinkException}
   * before storing anything (wrong credentials, a missing bucket: a refusal of the sink, not of the item).
   */
  public static SinkFault failConfiguration() {
    return new SinkFault(Kind.FAIL_CONFIGURATION, Duration.ZERO, null);
  }

  /**
   * Stores the object, then fails the call with a retryable {@link SinkException}: the caller never
   * learns that the PUT succeeded (a lost acknowledgement).
   */
  public static SinkFault lostAcknowledgement() {
    return new SinkFault(Kind.STORE_THEN_FAIL, Duration.ZERO, null);
  }

  /** Waits {@code delay}, then completes the call normally. */
  public static SinkFault delay(Duration delay) {
    Objects.requireNonNull(delay, "delay");
    if (delay.isNegative()) {
      throw new IllegalArgumentException("delay must not be negative: " + delay);
    }
    return new SinkFault(Kind.DELAY, delay, null);
  }

  /**
   * Blocks the call until {@code gate} reaches zero (or the thread is interrupted, which fails the
   * call as retryable), then completes it normally. Lets a test hold a worker deterministically.
   */
  public static SinkFault blockUntil(CountDownLatch gate) {
    return new SinkFault(Kind.BLOCK, Duration.ZERO, Objects.requireNonNull(gate, "gate"));
  }

  @Override
  public String toString() {
    return kind == Kind.DELAY ? "SinkFault[DELAY " + delay + "]" : "SinkFault[" + kind + "]";
  }
}
