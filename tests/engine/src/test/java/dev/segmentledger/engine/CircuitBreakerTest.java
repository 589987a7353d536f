package dev.segmentledger.engine;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.segmentledger.core.Axis;
import dev.segmentledger.core.Backoff;
import dev.segmentledger.core.CircuitState;
import dev.segmentledger.core.ItemId;
import dev.segmentledger.core.ItemState;
import dev.segmentledger.core.Ledger;
import dev.segmentledger.core.LedgerItem;
import dev.segmentledger.core.LedgerListener;
import dev.segmentledger.testkit.ConsistencyAssertions;
import dev.segmentledger.testkit.SinkFault;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** A sink down for a while, then healthy: the breaker opens, nothing is lost, all confirm after. */
class CircuitBreakerTest {
  @TempDir Path temp;

  @Test
  void anOutageOpensTheBreakerWithoutLosingRowsAndEverythingConfirmsAfterRecovery() throws Exception {
    LedgerFixture f = new LedgerFixture(temp);
    int items = 50;
    List<CircuitState> transitions = new CopyOnWriteArrayList<>();
    CountDownLatch opened = new CountDownLatch(1);
    CountDownLatch allConfirmed = new CountDownLatch(items);
    LedgerListener listener = new LedgerListener() {
      @Override
      public void onCircuitStateChanged(CircuitState state) {
        transitions.add(state);
        if (state == CircuitState.OPEN) {
          opened.countDown();
        }
      }

      @Override
      public void onConfirmed(LedgerItem item) {
        allConfirmed.countDown();
      }
    };
    f.sink.startOutage(SinkFault.failRetryable());
    try (Ledger ledger = f.builder()
        .clock(Clock.systemUTC())
        .backoff(new Backoff(Duration.ofMillis(50), Duration.ofMillis(200), 2.0, 0.2))
        .circuitBreaker(5, Duration.ofMillis(300))
        .sweepInterval(Duration.ofMillis(20))
        .workers(4)
        .listener(listener)
        .build()) {
      ledger.start();
      for (int i = 0; i < items; i++) {
        ItemId id = ItemId.original("b1", "720p", i);
        ledger.register(id, f.record(id));
      }
      assertTrue(opened.await(10, TimeUnit.SECONDS), "the breaker opens under a full outage");
      int attemptsWhenOpened = f.sink.putCount();
      assertEquals(0, f.store.count(Axis.ORIGINAL, ItemState.CONFIRMED));
      assertEquals(items, f.store.count(Axis.ORIGINAL, ItemState.PENDING), "no row lost or made terminal");

      f.sink.endOutage();
      assertTrue(allConfirmed.await(30, TimeUnit.SECONDS), "all rows confirm after recovery");
      assertEquals(CircuitState.CLOSED, ledger.stats().circuit());
      int failedAttempts = f.sink.putCount() - items;
      System.out.printf("breaker: %d failed attempts for %d items during the outage (%d when it opened), "
          + "transitions %s%n", failedAttempts, items, attemptsWhenOpened, transitions);
      assertTrue(failedAttempts < items * 3, "attempts bounded by breaker and backoff, not a busy loop: "
          + failedAttempts);
      assertTrue(transitions.containsAll(List.of(CircuitState.OPEN, CircuitState.HALF_OPEN, CircuitState.CLOSED)));
    }
    ConsistencyAssertions.assertConsistent(f.store, f.sink, "b1");
  }
}
