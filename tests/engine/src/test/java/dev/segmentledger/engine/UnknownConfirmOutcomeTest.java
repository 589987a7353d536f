package dev.segmentledger.engine;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.segmentledger.core.Axis;
import dev.segmentledger.core.ItemId;
import dev.segmentledger.core.ItemState;
import dev.segmentledger.core.Ledger;
import dev.segmentledger.core.LedgerItem;
import dev.segmentledger.core.LedgerListener;
import dev.segmentledger.core.LedgerStats;
import dev.segmentledger.core.ManualLedger;
import dev.segmentledger.core.StoreException;
import dev.segmentledger.core.StoreException.Outcome;
import dev.segmentledger.core.spi.Confirmation;
import dev.segmentledger.core.spi.StateStore;
import dev.segmentledger.testkit.ConsistencyAssertions;
import dev.segmentledger.testkit.InMemoryStateStore;
import dev.segmentledger.testkit.LedgerEvents;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Proxy;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.BiFunction;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A confirm whose outcome is unknown (the store lost its answer: a failover while committing) is
 * judged again from the row before anything is reported, so that events and stats count a confirmed
 * item exactly once: confirmed if the row carries this confirm's time and checksum, a lost confirm
 * if another attempt confirmed it, confirmed alone if nothing was written. The store here commits,
 * or not, and then throws as {@code JdbiStateStore} does when its connection breaks.
 */
class UnknownConfirmOutcomeTest {
  private static final int ITEMS = 6;

  @TempDir Path temp;

  @Test
  void aBatchThatCommittedAndLostItsAnswerIsCountedConfirmedOnce() {
    Run run = new Run((inner, confirmations) -> {
      inner.confirmAll(confirmations);
      throw lost(Outcome.UNKNOWN);
    });
    run.registerAndDrain();
    run.assertEachConfirmedOnce();
  }

  @Test
  void aBatchWhoseOutcomeIsUnknownButWroteNothingIsConfirmedAgain() {
    Run run = new Run((inner, confirmations) -> {
      throw lost(Outcome.UNKNOWN);
    });
    run.registerAndDrain();
    run.assertEachConfirmedOnce();
  }

  @Test
  void aBatchThatWroteNothingIsConfirmedRowByRowWithoutReadingItFirst() {
    Run run = new Run((inner, confirmations) -> {
      throw lost(Outcome.NOT_WRITTEN);
    });
    run.registerAndDrain();
    run.assertEachConfirmedOnce();
    assertEquals(0, run.readsAfterAFailedBatch.get(), "nothing written: no row read again");
  }

  @Test
  void theRowIsReadAgainOnceTheStoreAnswers() {
    AtomicInteger unreadable = new AtomicInteger(2);
    Run run = new Run((inner, confirmations) -> {
      inner.confirmAll(confirmations);
      throw lost(Outcome.UNKNOWN);
    });
    run.readFailures = unreadable; // the new primary is not there yet: the first two reads fail
    run.registerAndDrain();
    run.assertEachConfirmedOnce();
    assertEquals(0, unreadable.get(), "the failing reads were retried");
  }

  @Test
  void aRowAnotherAttemptConfirmedIsALostConfirmNotAConfirm() {
    Run run = new Run((inner, confirmations) -> {
      for (Confirmation c : confirmations) { // another node's confirm: its own time and checksum
        inner.confirm(new Confirmation(c.rowId(), c.id(), c.expectedState(), c.expectedSize(), "sha256:other",
            c.confirmedAt().minusSeconds(5)));
      }
      throw lost(Outcome.UNKNOWN);
    });
    run.registerAndDrain();
    LedgerStats.AxisStats stats = run.ledger.stats().axis(Axis.ORIGINAL);
    assertEquals(0, stats.confirmed());
    assertEquals(ITEMS, stats.confirmLost());
    assertEquals(Map.of(), run.confirmEvents);
  }

  @Test
  void otherItemsAreConfirmedWhileAFailedBatchIsJudged() throws Exception {
    ItemId first = ItemId.original("b1", "720p", 0);
    ItemId second = ItemId.original("b1", "720p", 1);
    CountDownLatch secondConfirmed = new CountDownLatch(1);
    AtomicInteger batches = new AtomicInteger();
    InMemoryStateStore inner = new InMemoryStateStore();
    StateStore store = (StateStore) Proxy.newProxyInstance(StateStore.class.getClassLoader(),
        new Class<?>[] {StateStore.class}, (proxy, method, args) -> {
          if (method.getName().equals("confirmAll") && batches.incrementAndGet() == 1) {
            throw lost(Outcome.UNKNOWN); // the first batch (the first item's) lost its answer
          }
          if (method.getName().startsWith("findByRowId")
              && inner.find(first).map(r -> r.rowId() == (long) args[0]).orElse(false)) {
            // its judgement waits until the second item is confirmed: that confirm must not wait for it
            assertTrue(secondConfirmed.await(1, TimeUnit.MINUTES), "the second item was confirmed meanwhile");
          }
          try {
            return method.invoke(inner, args);
          } catch (InvocationTargetException e) {
            throw e.getCause();
          }
        });
    LedgerFixture f = new LedgerFixture(temp, store);
    LedgerEvents events = new LedgerEvents();
    Map<Long, AtomicInteger> confirmEvents = new ConcurrentHashMap<>();
    try (Ledger ledger = f.builder().workers(2).listener(events).listener(new LedgerListener() {
      @Override
      public void onConfirmed(LedgerItem item) {
        confirmEvents.computeIfAbsent(item.rowId(), id -> new AtomicInteger()).incrementAndGet();
        if (item.id().equals(second)) {
          secondConfirmed.countDown();
        }
      }
    }).build()) {
      ledger.start();
      ledger.register(first, f.record(first));
      events.awaitUntil("the first batch failed", () -> batches.get() >= 1, Duration.ofMinutes(1));
      ledger.register(second, f.record(second));
      events.awaitUntil("both confirmed", () -> confirmEvents.size() == 2, Duration.ofMinutes(1));
    }
    confirmEvents.values().forEach(n -> assertEquals(1, n.get()));
    assertEquals(ItemState.CONFIRMED, inner.find(first).orElseThrow().state());
  }

  private static StoreException lost(Outcome outcome) {
    return new StoreException("injected: connection lost while confirming", null, outcome);
  }

  /** A manual ledger on an in-memory store whose {@code confirmAll} is replaced. */
  private final class Run {
    final InMemoryStateStore inner = new InMemoryStateStore();
    final Map<Long, AtomicInteger> confirmEvents = new ConcurrentHashMap<>();
    final AtomicInteger readsAfterAFailedBatch = new AtomicInteger();
    final LedgerFixture fixture;
    final ManualLedger ledger;
    volatile boolean batchFailed;
    AtomicInteger readFailures = new AtomicInteger();

    Run(BiFunction<StateStore, List<Confirmation>, boolean[]> confirmAll) {
      StateStore store = (StateStore) Proxy.newProxyInstance(StateStore.class.getClassLoader(),
          new Class<?>[] {StateStore.class}, (proxy, method, args) -> {
            if (method.getName().equals("confirmAll")) {
              batchFailed = true;
              @SuppressWarnings("unchecked")
              List<Confirmation> confirmations = (List<Confirmation>) args[0];
              return confirmAll.apply(inner, confirmations);
            }
            if (method.getName().startsWith("findByRowId") && batchFailed) {
              readsAfterAFailedBatch.incrementAndGet();
              if (readFailures.getAndUpdate(n -> Math.max(0, n - 1)) > 0) {
                throw lost(Outcome.NOT_WRITTEN);
              }
            }
            try {
              return method.invoke(inner, args);
            } catch (InvocationTargetException e) {
              throw e.getCause();
            }
          });
      fixture = new LedgerFixture(temp, store);
      ledger = fixture.builder().listener(new LedgerListener() {
        @Override
        public void onConfirmed(LedgerItem item) {
          confirmEvents.computeIfAbsent(item.rowId(), id -> new AtomicInteger()).incrementAndGet();
        }
      }).buildManual();
    }

    void registerAndDrain() {
      for (int i = 0; i < ITEMS; i++) {
        ItemId id = ItemId.original("b1", "720p", i);
        ledger.register(id, fixture.record(id));
      }
      LedgerFixture.settle(ledger);
    }

    void assertEachConfirmedOnce() {
      for (int i = 0; i < ITEMS; i++) {
        LedgerItem row = ledger.find(ItemId.original("b1", "720p", i)).orElseThrow();
        assertEquals(ItemState.CONFIRMED, row.state(), row.toString());
        assertNull(row.reason(), "no failure recorded on " + row);
        assertEquals(1, confirmEvents.getOrDefault(row.rowId(), new AtomicInteger()).get(), "confirm events of " + row);
      }
      LedgerStats.AxisStats stats = ledger.stats().axis(Axis.ORIGINAL);
      assertEquals(ITEMS, stats.confirmed(), "confirmed once each in the stats");
      assertEquals(0, stats.confirmLost());
      assertEquals(0, ledger.stats().inFlight());
      ConsistencyAssertions.assertConsistent(inner, fixture.sink, "b1");
    }
  }
}
