package dev.segmentledger.core.internal;

import dev.failsafe.CircuitBreaker;
import dev.segmentledger.core.CircuitState;
import dev.segmentledger.core.Reason;
import dev.segmentledger.core.SinkException;
import java.time.Duration;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.BiConsumer;
import java.util.function.BooleanSupplier;
import java.util.function.Consumer;
import java.util.function.Supplier;

/**
 * Failure pressure against the sink, regulated by a Failsafe {@link CircuitBreaker}. Only
 * transient and configuration failures count; a sink that answers with a refusal of one item is
 * healthy. Each opening is reported once with the last failure counted before it (its cause).
 * The breaker never touches rows: an upload it refuses is simply not attempted, and the row
 * stays PENDING for the sweeper. While the one half-open probe is in flight, {@link #pause()} asks
 * for a short wait too: otherwise the other workers would take queued rows only to have them
 * refused and pushed back by a whole open delay just as the sink recovers (the outage benchmark,
 * "When S3 is down" in the documentation). Each opening
 * lasts a random time between half and all of the configured open delay, so that the probes do not
 * fall in step with an endpoint that flaps at a period near the delay (measured: with a fixed 10 s
 * delay against 5 s down / 5 s up, every probe of 120 s landed in a down phase and nothing was
 * uploaded while the endpoint was up half the time). Thread-safe.
 */
final class SinkBreaker {
  private final CircuitBreaker<Object> breaker;
  /** The last failure counted: the cause reported when the breaker opens. */
  private volatile Cause lastFailure = new Cause(Reason.SINK_TRANSIENT, "unknown");
  /** How long work waits before looking again while the half-open probe is in flight. */
  static final Duration PROBE_WAIT = Duration.ofMillis(20);
  /** Whether a permit was granted while not closed (the probe) and its outcome is not yet recorded. */
  private final AtomicBoolean probing = new AtomicBoolean();
  /** The random part of the current opening: no probe before this {@link System#nanoTime()}. */
  private volatile long probeNotBefore;
  private final long jitterNanos;

  SinkBreaker(int consecutiveFailures, Duration openDelay, Consumer<CircuitState> onChange,
      BiConsumer<Reason, String> onOpened) {
    this.jitterNanos = openDelay.dividedBy(2).toNanos();
    this.breaker = CircuitBreaker.builder()
        .withFailureThreshold(consecutiveFailures)
        .withDelay(openDelay.minus(openDelay.dividedBy(2)))
        .withSuccessThreshold(1)
        .onOpen(e -> {
          probeNotBefore = System.nanoTime() + openDelay.minus(openDelay.dividedBy(2)).toNanos()
              + (jitterNanos() > 0 ? ThreadLocalRandom.current().nextLong(jitterNanos() + 1) : 0);
          onChange.accept(CircuitState.OPEN);
          Cause cause = lastFailure;
          onOpened.accept(cause.reason(), cause.detail());
        })
        .onHalfOpen(e -> onChange.accept(CircuitState.HALF_OPEN))
        .onClose(e -> onChange.accept(CircuitState.CLOSED))
        .build();
  }

  /**
   * How long work should pause: the rest of the open delay, zero once a probe may run, and
   * {@link #PROBE_WAIT} while the probe is in flight.
   * (Failsafe moves an open breaker to half-open only when a permit is asked for after the delay,
   * so callers must not wait for the state to change by itself.)
   */
  Duration pause() {
    if (breaker.isOpen()) {
      long rest = Math.max(breaker.getRemainingDelay().toNanos(), probeNotBefore - System.nanoTime());
      return rest > 0 ? Duration.ofNanos(rest) : Duration.ZERO;
    }
    return probing.get() ? PROBE_WAIT : Duration.ZERO;
  }

  /**
   * How long a row this breaker refused should wait before it is due again: the rest of the open
   * delay while open, {@link #PROBE_WAIT} while the probe runs or once the delay is over. Never a
   * whole open delay after the sink may already be back.
   */
  Duration refusedRowWait() {
    Duration pause = pause();
    return pause.isZero() ? PROBE_WAIT : pause;
  }

  /** Whether an upload may be attempted now; if so, its outcome must be recorded. */
  boolean tryAcquire() {
    if (breaker.isOpen() && System.nanoTime() < probeNotBefore) {
      return false; // the random part of this opening is not over
    }
    boolean closed = breaker.isClosed();
    boolean permitted = breaker.tryAcquirePermit();
    if (permitted && !closed) {
      probing.set(true);
    }
    return permitted;
  }

  void recordSuccess() {
    breaker.recordSuccess();
    probing.set(false);
  }

  private long jitterNanos() {
    return jitterNanos;
  }

  /** Counts a failure; {@code reason} and {@code detail} are reported if it opens the breaker. */
  void recordFailure(Reason reason, String detail) {
    lastFailure = new Cause(reason, detail);
    breaker.recordFailure();
    probing.set(false);
  }

  /**
   * Runs one sink call that holds a permit and records its outcome, whatever it is: a retryable
   * refusal (transient, or a configuration every object fails on) and anything unexpected count as
   * failures; any other answer, even a refusal of this one object, counts as a success (the sink is
   * reachable). A half-open probe therefore always records an outcome. Rethrows what the call threw.
   */
  <T> T call(Supplier<T> sinkCall) {
    return call(sinkCall, () -> false);
  }

  /**
   * {@link #call(Supplier)}, but a failure is not counted if {@code voided} says so once the call
   * has thrown (its attempt was ended by the ledger's close: the failure says nothing of the sink).
   * Such a call records no outcome at all (were it the half-open probe, no other would start: the
   * ledger is closing).
   */
  <T> T call(Supplier<T> sinkCall, BooleanSupplier voided) {
    T result;
    try {
      result = sinkCall.get();
    } catch (RuntimeException | Error e) {
      if (!voided.getAsBoolean()) {
        recordOutcome(e);
      }
      throw e;
    }
    recordSuccess();
    return result;
  }

  private void recordOutcome(Throwable failure) {
    if (!(failure instanceof SinkException e)) {
      recordFailure(Reason.INTERNAL_ERROR, String.valueOf(failure));
    } else if (e.isRetryable()) {
      recordFailure(reasonOf(e), describe(e));
    } else {
      recordSuccess();
    }
  }

  /** The row's reason for a sink refusal of kind {@link SinkException#failureKind()}. */
  static Reason reasonOf(SinkException e) {
    return switch (e.failureKind()) {
      case TRANSIENT -> Reason.SINK_TRANSIENT;
      case PERMANENT -> Reason.SINK_PERMANENT;
      case CONFIGURATION -> Reason.SINK_CONFIGURATION;
    };
  }

  /** The refusal's message and cause, as recorded on the row. */
  static String describe(SinkException e) {
    return e.getCause() == null ? e.getMessage() : e.getMessage() + ": " + e.getCause();
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
