package dev.segmentledger.core.internal;

import dev.failsafe.CircuitBreaker;
import dev.segmentledger.core.CircuitState;
import dev.segmentledger.core.Reason;
import java.time.Duration;
import java.util.function.BiConsumer;
import java.util.function.Consumer;

/**
 * Failure pressure against the sink, regulated by a Failsafe {@link CircuitBreaker}. Only
 * transient and configuration failures count; a sink that answers with a refusal of one item is
 * healthy. Each opening is reported once with the last failure counted before it (its cause).
 * The breaker never touches rows: an upload it refuses is simply not attempted, and the row
 * stays PENDING for the sweeper. Thread-safe.
 */
final class SinkBreaker {
  private final CircuitBreaker<Object> breaker;
  /** The last failure counted: the cause reported when the breaker opens. */
  private volatile Cause lastFailure = new Cause(Reason.SINK_TRANSIENT, "unknown");

  SinkBreaker(int consecutiveFailures, Duration openDelay, Consumer<CircuitState> onChange,
      BiConsumer<Reason, String> onOpened) {
    this.breaker = CircuitBreaker.builder()
        .withFailureThreshold(consecutiveFailures)
        .withDelay(openDelay)
        .withSuccessThreshold(1)
        .onOpen(e -> {
          onChange.accept(CircuitState.OPEN);
          Cause cause = lastFailure;
          onOpened.accept(cause.reason(), cause.detail());
        })
        .onHalfOpen(e -> onChange.accept(CircuitState.HALF_OPEN))
        .onClose(e -> onChange.accept(CircuitState.CLOSED))
        .build();
  }

  /**
   * How long work should pause: the rest of the open delay, or zero once a probe may run.
   * (Failsafe moves an open breaker to half-open only when a permit is asked for after the delay,
   * so callers must not wait for the state to change by itself.)
   */
  Duration pause() {
    return breaker.isOpen() ? breaker.getRemainingDelay() : Duration.ZERO;
  }

  /** Whether an upload may be attempted now; if so, its outcome must be recorded. */
  boolean tryAcquire() {
    return breaker.tryAcquirePermit();
  }

  void recordSuccess() {
    breaker.recordSuccess();
  }

  /** Counts a failure; {@code reason} and {@code detail} are reported if it opens the breaker. */
  void recordFailure(Reason reason, String detail) {
    lastFailure = new Cause(reason, detail);
    breaker.recordFailure();
  }

  private record Cause(Reason reason, String detail) {}

  CircuitState state() {
    return switch (breaker.getState()) {
      case CLOSED -> CircuitState.CLOSED;
      case OPEN -> CircuitState.OPEN;
      case HALF_OPEN -> CircuitState.HALF_OPEN;
    };
  }
}
