package dev.segmentledger.engine;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.segmentledger.core.ItemId;
import dev.segmentledger.core.ItemState;
import dev.segmentledger.core.LedgerItem;
import dev.segmentledger.core.ManualLedger;
import dev.segmentledger.core.Reason;
import dev.segmentledger.core.StoreException;
import dev.segmentledger.core.StoreException.Outcome;
import dev.segmentledger.core.spi.StateStore;
import dev.segmentledger.testkit.ForwardingObjectSink;
import dev.segmentledger.testkit.InMemoryStateStore;
import dev.segmentledger.testkit.SinkFault;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Proxy;
import java.nio.file.Path;
import java.time.Duration;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A failure of the store (a claim or a confirm meeting a failover) is not a failure of the row: it
 * never counts toward a terminal cap, and the cap on internal errors counts internal errors only,
 * not the row's earlier retryable failures (S3 throttling, kills).
 */
class StoreFailureCapTest {
  private static final int MAX_ERROR_ATTEMPTS = 10;

  @TempDir Path temp;

  /** The store, failing the next {@code failing} calls of {@code method} with a store error. */
  private static final class FlakyStore {
    final InMemoryStateStore inner = new InMemoryStateStore();
    final AtomicInteger failing = new AtomicInteger();
    volatile String method = "";
    volatile Outcome outcome = Outcome.NOT_WRITTEN;
    final StateStore store = (StateStore) Proxy.newProxyInstance(StateStore.class.getClassLoader(),
        new Class<?>[] {StateStore.class}, (proxy, m, args) -> {
          if (m.getName().matches(method) && failing.getAndUpdate(n -> Math.max(0, n - 1)) > 0) {
            if (outcome == Outcome.UNKNOWN) {
              m.invoke(inner, args); // committed, and the answer was lost
            }
            throw new StoreException("the primary is failing over", null, outcome);
          }
          try {
            return m.invoke(inner, args);
          } catch (InvocationTargetException e) {
            throw e.getCause();
          }
        });

    void fail(String method, int times, Outcome outcome) {
      this.method = method;
      this.outcome = outcome;
      failing.set(times);
    }
  }

  private final ItemId id = ItemId.original("b1", "720p", 0);

  /** Sweeps, past each backoff and the circuit breaker's pauses, until the row has {@code attempts}. */
  private void failUntil(ManualLedger ledger, LedgerFixture f, int attempts) {
    for (int round = 0; round < 100 && ledger.find(id).orElseThrow().attempts() < attempts; round++) {
      LedgerFixture.settle(ledger);
      f.clock.advance(Duration.ofMinutes(10));
    }
  }

  /** Nine retryable S3 failures: the row is PENDING after nine attempts. */
  private ManualLedger nineS3Failures(LedgerFixture f) {
    ManualLedger ledger = f.builder().maxErrorAttempts(MAX_ERROR_ATTEMPTS).circuitBreaker(100, Duration.ofSeconds(1))
        .buildManual();
    f.sink.failTimes(id.objectKey(), MAX_ERROR_ATTEMPTS - 1, SinkFault.failRetryable());
    ledger.register(id, f.record(id));
    failUntil(ledger, f, MAX_ERROR_ATTEMPTS - 1);
    LedgerItem row = ledger.find(id).orElseThrow();
    assertEquals(ItemState.PENDING, row.state());
    assertEquals(MAX_ERROR_ATTEMPTS - 1, row.attempts(), row.lastError());
    assertEquals(Reason.SINK_TRANSIENT, row.reason());
    return ledger;
  }

  @Test
  void aClaimThatMeetsAStoreFailureAfterNineS3FailuresDoesNotRejectTheRow() {
    for (Outcome outcome : Outcome.values()) {
      FlakyStore flaky = new FlakyStore();
      LedgerFixture f = new LedgerFixture(temp.resolve(outcome.name()), flaky.store);
      ManualLedger ledger = nineS3Failures(f);

      flaky.fail("claimRow", 1, outcome);
      LedgerFixture.settle(ledger);
      LedgerItem row = ledger.find(id).orElseThrow();
      assertTrue(row.state() != ItemState.REJECTED, outcome + ": " + row.reason() + " " + row.lastError());
      assertEquals(MAX_ERROR_ATTEMPTS - 1, row.attempts(), outcome + ": the store's failure is no attempt of the row");

      f.clock.advance(Duration.ofMinutes(10));
      LedgerFixture.settle(ledger);
      assertEquals(ItemState.CONFIRMED, ledger.find(id).orElseThrow().state(), outcome + ": uploaded in the end");
    }
  }

  @Test
  void aConfirmThatMeetsAStoreFailureAfterNineS3FailuresDoesNotRejectTheRow() {
    FlakyStore flaky = new FlakyStore();
    LedgerFixture f = new LedgerFixture(temp, flaky.store);
    ManualLedger ledger = nineS3Failures(f);

    flaky.fail("confirmAll|confirm", 2, Outcome.NOT_WRITTEN); // the batch, then the confirm that settles it alone
    LedgerFixture.settle(ledger);
    LedgerItem row = ledger.find(id).orElseThrow();
    assertEquals(ItemState.PENDING, row.state(), row.reason() + " " + row.lastError());

    f.clock.advance(Duration.ofMinutes(10));
    LedgerFixture.settle(ledger);
    assertEquals(ItemState.CONFIRMED, ledger.find(id).orElseThrow().state());
  }

  @Test
  void theCapOnInternalErrorsCountsInternalErrorsOnly() {
    LedgerFixture f = new LedgerFixture(temp);
    AtomicInteger internalErrors = new AtomicInteger();
    ManualLedger ledger = f.builder().maxErrorAttempts(3).circuitBreaker(100, Duration.ofSeconds(1))
        .objectSink(ForwardingObjectSink.beforeEachPut(f.sink, (key, content) -> {
          if (internalErrors.getAndUpdate(n -> Math.max(0, n - 1)) > 0) {
            throw new IllegalStateException("a bug the item triggers");
          }
        })).buildManual();
    f.sink.failTimes(id.objectKey(), 5, SinkFault.failRetryable());
    ledger.register(id, f.record(id));
    failUntil(ledger, f, 5);
    assertEquals(5, ledger.find(id).orElseThrow().attempts());

    internalErrors.set(2);
    for (int i = 1; i <= 2; i++) {
      LedgerFixture.settle(ledger);
      LedgerItem row = ledger.find(id).orElseThrow();
      assertEquals(ItemState.PENDING, row.state(), "internal error " + i + " of at most 3: " + row.lastError());
      assertEquals(Reason.INTERNAL_ERROR, row.reason());
      f.clock.advance(Duration.ofMinutes(10));
    }
    internalErrors.set(1);
    LedgerFixture.settle(ledger);
    LedgerItem rejected = ledger.find(id).orElseThrow();
    assertEquals(ItemState.REJECTED, rejected.state(), "the third internal error ends the row");
    assertTrue(rejected.lastError().contains("INTERNAL_ERROR 3 of at most 3"), rejected.lastError());
  }
}
