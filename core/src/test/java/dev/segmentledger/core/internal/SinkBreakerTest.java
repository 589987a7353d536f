package dev.segmentledger.core.internal;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.segmentledger.core.CircuitState;
import dev.segmentledger.core.Reason;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.Test;

/** While the half-open probe is in flight, work waits instead of being refused. */
class SinkBreakerTest {
  private final List<CircuitState> states = new CopyOnWriteArrayList<>();

  /** A breaker whose open delay is over at once (1 ms): the next permit is the probe. */
  private SinkBreaker openedAndDue() throws InterruptedException {
    SinkBreaker breaker = new SinkBreaker(2, Duration.ofMillis(1), states::add, (r, d) -> { });
    assertTrue(breaker.tryAcquire());
    breaker.recordFailure(Reason.SINK_TRANSIENT, "down");
    assertTrue(breaker.tryAcquire());
    breaker.recordFailure(Reason.SINK_TRANSIENT, "down");
    assertEquals(CircuitState.OPEN, breaker.state());
    while (!breaker.pause().isZero()) {
      Thread.onSpinWait(); // the 1 ms delay runs out
    }
    return breaker;
  }

  @Test
  void whileTheProbeIsInFlightWorkPausesAndOtherPermitsAreRefused() throws InterruptedException {
    SinkBreaker breaker = openedAndDue();
    assertTrue(breaker.tryAcquire(), "the first permit after the delay is the probe");
    assertEquals(CircuitState.HALF_OPEN, breaker.state());
    assertEquals(SinkBreaker.PROBE_WAIT, breaker.pause(), "workers wait rather than take rows to be refused");
    assertFalse(breaker.tryAcquire(), "one probe at a time");
    assertEquals(SinkBreaker.PROBE_WAIT, breaker.refusedRowWait(), "a row refused now is due again soon");

    breaker.recordSuccess();
    assertEquals(CircuitState.CLOSED, breaker.state());
    assertEquals(Duration.ZERO, breaker.pause());
    assertEquals(List.of(CircuitState.OPEN, CircuitState.HALF_OPEN, CircuitState.CLOSED), states);
  }

  @Test
  void aFailedProbeReopensWithTheWholeDelayAndEndsTheProbeWait() throws InterruptedException {
    SinkBreaker breaker = openedAndDue();
    assertTrue(breaker.tryAcquire());
    breaker.recordFailure(Reason.SINK_TRANSIENT, "still down");
    assertEquals(CircuitState.OPEN, breaker.state());
    while (!breaker.pause().isZero()) {
      Thread.onSpinWait();
    }
    assertTrue(breaker.tryAcquire(), "the next probe may run once the delay is over");
    breaker.recordSuccess();
    assertEquals(Duration.ZERO, breaker.pause());
  }

  @Test
  void aRowRefusedWhileOpenWaitsTheRestOfTheDelayAtMost() {
    SinkBreaker breaker = new SinkBreaker(1, Duration.ofSeconds(10), states::add, (r, d) -> { });
    assertTrue(breaker.tryAcquire());
    breaker.recordFailure(Reason.SINK_TRANSIENT, "down");
    Duration wait = breaker.refusedRowWait();
    assertTrue(wait.compareTo(Duration.ofSeconds(10)) <= 0 && wait.compareTo(Duration.ofSeconds(4)) > 0, wait::toString);
  }

  @Test
  void eachOpeningLastsBetweenHalfAndAllOfTheDelayAtRandom() {
    java.util.Set<Long> seconds10ths = new java.util.HashSet<>();
    for (int i = 0; i < 20; i++) {
      SinkBreaker breaker = new SinkBreaker(1, Duration.ofSeconds(10), s -> { }, (r, d) -> { });
      assertTrue(breaker.tryAcquire());
      breaker.recordFailure(Reason.SINK_TRANSIENT, "down");
      Duration pause = breaker.pause();
      assertTrue(pause.compareTo(Duration.ofSeconds(10)) <= 0 && pause.compareTo(Duration.ofMillis(4_000)) > 0,
          pause::toString);
      assertFalse(breaker.tryAcquire(), "no probe before the opening is over");
      seconds10ths.add(pause.toMillis() / 100);
    }
    assertTrue(seconds10ths.size() > 5, "openings of different lengths, not in step: " + seconds10ths);
  }

  @Test
  void aClosedBreakerNeverAsksForAPause() {
    SinkBreaker breaker = new SinkBreaker(5, Duration.ofSeconds(10), states::add, (r, d) -> { });
    assertTrue(breaker.tryAcquire());
    assertTrue(breaker.tryAcquire(), "closed: any number of permits");
    assertEquals(Duration.ZERO, breaker.pause());
    breaker.recordFailure(Reason.SINK_TRANSIENT, "one");
    breaker.recordSuccess();
    assertEquals(Duration.ZERO, breaker.pause());
    assertTrue(states.isEmpty());
  }
}
