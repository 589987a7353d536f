package dev.segmentledger.engine;

import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.segmentledger.core.Backoff;
import dev.segmentledger.core.CircuitState;
import dev.segmentledger.core.ItemId;
import dev.segmentledger.core.Ledger;
import dev.segmentledger.core.LedgerItem;
import dev.segmentledger.core.LedgerListener;
import dev.segmentledger.testkit.ConsistencyAssertions;
import dev.segmentledger.testkit.SinkFault;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * When the sink comes back, the rows queued during the outage go out as soon as the
 * half-open probe succeeds. Before, while the probe was in flight the other workers took queued
 * rows, had them refused by the breaker and pushed back by a whole open delay, so the catch-up
 * after an outage started one open delay late for most of the queue.
 */
class HalfOpenProbeTest {
  private static final Duration OPEN_DELAY = Duration.ofSeconds(3);
  @TempDir Path temp;

  @Test
  void rowsQueuedDuringTheOutageAreNotPushedBackWhileTheProbeIsInFlight() throws Exception {
    LedgerFixture f = new LedgerFixture(temp);
    int failing = 3;
    int queuedDuringOutage = 20;
    CountDownLatch opened = new CountDownLatch(1);
    CountDownLatch halfOpen = new CountDownLatch(1);
    CountDownLatch confirmed = new CountDownLatch(failing + queuedDuringOutage);
    LedgerListener listener = new LedgerListener() {
      @Override
      public void onCircuitStateChanged(CircuitState state) {
        if (state == CircuitState.OPEN) {
          opened.countDown();
        } else if (state == CircuitState.HALF_OPEN) {
          halfOpen.countDown();
        }
      }

      @Override
      public void onConfirmed(LedgerItem item) {
        confirmed.countDown();
      }
    };
    CountDownLatch probeGate = new CountDownLatch(1);
    f.sink.startOutage(SinkFault.failRetryable());
    try (Ledger ledger = f.builder()
        .clock(Clock.systemUTC())
        .backoff(new Backoff(Duration.ofMillis(20), Duration.ofMillis(50), 2.0, 0.2))
        .circuitBreaker(failing, OPEN_DELAY)
        .sweepInterval(Duration.ofMillis(20))
        .workers(4)
        .listener(listener)
        .build()) {
      ledger.start();
      for (int i = 0; i < failing; i++) {
        ItemId id = ItemId.original("b1", "720p", i);
        ledger.register(id, f.record(id));
      }
      assertTrue(opened.await(10, TimeUnit.SECONDS), "the outage opens the breaker");
      f.sink.endOutage();
      f.sink.failNext(SinkFault.blockUntil(probeGate)); // the probe: held until we let it answer
      for (int i = failing; i < failing + queuedDuringOutage; i++) {
        ItemId id = ItemId.original("b1", "720p", i);
        ledger.register(id, f.record(id));
      }
      assertTrue(halfOpen.await(10, TimeUnit.SECONDS), "the probe starts after the open delay");
      // The window in which the other workers used to take the queued rows and have them refused.
      // Not a synchronisation: with the fix nothing happens in it, without it the rows are pushed back.
      Thread.sleep(200);
      long released = System.nanoTime();
      probeGate.countDown();

      assertTrue(confirmed.await(20, TimeUnit.SECONDS), "every row confirms");
      Duration catchUp = Duration.ofNanos(System.nanoTime() - released);
      assertTrue(catchUp.compareTo(OPEN_DELAY.dividedBy(2)) < 0,
          "the queue went out right after the probe, not one open delay later: took " + catchUp);
    }
    ConsistencyAssertions.assertConsistent(f.store, f.sink, "b1");
  }
}
