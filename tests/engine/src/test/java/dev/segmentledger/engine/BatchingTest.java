package dev.segmentledger.engine;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.segmentledger.core.Axis;
import dev.segmentledger.core.BroadcastEndedException;
import dev.segmentledger.core.ClosedFile;
import dev.segmentledger.core.ItemId;
import dev.segmentledger.core.ItemState;
import dev.segmentledger.core.Ledger;
import dev.segmentledger.core.ManualLedger;
import dev.segmentledger.core.Reason;
import dev.segmentledger.core.Registration;
import dev.segmentledger.core.Registration.Offer;
import dev.segmentledger.core.RegistrationConflictException;
import dev.segmentledger.core.StoreException;
import dev.segmentledger.core.SweepReport;
import dev.segmentledger.core.spi.StateStore;
import dev.segmentledger.testkit.ConsistencyAssertions;
import dev.segmentledger.testkit.InMemoryStateStore;
import dev.segmentledger.testkit.LedgerEvents;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Proxy;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Batched registration ({@code Ledger.registerAll}), rows leased at registration, and the
 * confirmer's batched compare-and-set confirms with their fallbacks.
 */
class BatchingTest {
  private static final Duration WAIT = Duration.ofSeconds(30);

  @TempDir Path temp;

  @Test
  void registerAllWritesEveryFileInOrderWithRefusalsAsRows() {
    LedgerFixture f = new LedgerFixture(temp);
    ManualLedger ledger = f.manual();
    ItemId good = ItemId.original("b1", "720p", 0);
    ItemId outside = ItemId.original("b1", "720p", 1);
    ItemId empty = ItemId.original("b1", "720p", 2);
    List<Registration> registrations = ledger.registerAll(List.of(
        ClosedFile.of(good, f.record(good)),
        ClosedFile.of(outside, Path.of("/etc/passwd")),
        ClosedFile.of(empty, f.record("empty.ts", ""))));

    assertEquals(List.of(good, outside, empty), registrations.stream().map(r -> r.item().id()).toList());
    assertEquals(Offer.ACCEPTED, registrations.get(0).offer());
    assertEquals(Reason.OUTSIDE_ROOT, registrations.get(1).item().reason());
    assertEquals(Reason.EMPTY_FILE, registrations.get(2).item().reason());
    assertTrue(registrations.get(1).rejected() && registrations.get(2).rejected());
    assertEquals(1, ledger.drainQueue());
    assertEquals(ItemState.CONFIRMED, ledger.find(good).orElseThrow().state());
    assertEquals(0, f.sink.attempts(outside.objectKey()).size());
    assertEquals(List.of(), ledger.registerAll(List.of()));
  }

  @Test
  void aBatchWithAConflictOrAnEndedBroadcastWritesNothing() {
    LedgerFixture f = new LedgerFixture(temp);
    ManualLedger ledger = f.manual();
    ItemId taken = ItemId.original("b1", "720p", 0);
    ledger.register(taken, f.record(taken));
    ItemId fresh = ItemId.original("b1", "720p", 1);

    assertThrows(RegistrationConflictException.class, () -> ledger.registerAll(List.of(
        ClosedFile.of(fresh, f.record(fresh)), ClosedFile.of(taken, f.record("other.ts", "another size")))));
    assertTrue(ledger.find(fresh).isEmpty());

    ledger.endBroadcast("b2");
    ItemId ended = ItemId.original("b2", "720p", 0);
    assertThrows(BroadcastEndedException.class, () -> ledger.registerAll(List.of(
        ClosedFile.of(fresh, f.record(fresh)), ClosedFile.of(ended, f.record(ended)))));
    assertTrue(ledger.find(fresh).isEmpty());
  }

  @Test
  void aBatchWithARepackagerRegistersEachAxisOnce() {
    LedgerFixture f = new LedgerFixture(temp);
    ManualLedger ledger = f.repackagingBuilder().buildManual();
    List<ClosedFile> files = new ArrayList<>();
    for (int i = 0; i < 5; i++) {
      ItemId id = ItemId.original("b1", "720p", i);
      files.add(ClosedFile.of(id, f.record(id)));
    }
    ledger.registerAll(files);
    LedgerFixture.settle(ledger);

    assertEquals(5, f.store.count(Axis.ORIGINAL, ItemState.CONFIRMED));
    assertEquals(5, f.store.count(Axis.PLAYBACK, ItemState.CONFIRMED));
    assertEquals(1, f.store.count(Axis.INIT, ItemState.CONFIRMED));
    ConsistencyAssertions.assertConsistent(f.store, f.sink, "b1");
  }

  @Test
  void rowsLeasedAtRegistrationNeedNoClaimAndRowsTheFullQueueRefusedAreDueAtOnce() {
    AtomicInteger claims = new AtomicInteger();
    StateStore counting = intercept(new InMemoryStateStore(), "claimFor", args -> {
      claims.incrementAndGet();
      return null; // pass through
    });
    LedgerFixture f = new LedgerFixture(temp, counting);
    ManualLedger ledger = f.builder().queueCapacity(2).buildManual();
    List<ClosedFile> files = new ArrayList<>();
    for (int i = 0; i < 5; i++) {
      ItemId id = ItemId.original("b1", "720p", i);
      files.add(ClosedFile.of(id, f.record(id)));
    }

    List<Registration> registrations = ledger.registerAll(files);

    assertEquals(List.of(Offer.ACCEPTED, Offer.ACCEPTED, Offer.SATURATED, Offer.SATURATED, Offer.SATURATED),
        registrations.stream().map(Registration::offer).toList());
    assertEquals(2, ledger.drainQueue());
    assertEquals(0, claims.get(), "the two queued rows were leased at registration");
    SweepReport round = ledger.sweepRound();
    assertEquals(3, round.accepted() + round.saturated(), "the saturated rows are due at once, not left leased");
    LedgerFixture.settle(ledger);
    assertEquals(3, claims.get(), "rows from the sweep are claimed");
    assertEquals(5, f.store.count(Axis.ORIGINAL, ItemState.CONFIRMED));
  }

  @Test
  void aStartedLedgerConfirmsInBatchesAndFallsBackToSingleConfirmsWhenABatchFails() throws Exception {
    AtomicInteger batches = new AtomicInteger();
    StateStore failingBatches = intercept(new InMemoryStateStore(), "confirmAll", args -> {
      batches.incrementAndGet();
      throw new IllegalStateException("injected: the batch statement failed");
    });
    LedgerFixture f = new LedgerFixture(temp, failingBatches);
    LedgerEvents events = new LedgerEvents();
    try (Ledger ledger = f.builder().listener(events).build()) {
      ledger.start();
      List<ClosedFile> files = new ArrayList<>();
      for (int i = 0; i < 50; i++) {
        ItemId id = ItemId.original("b1", "720p", i);
        files.add(ClosedFile.of(id, f.record(id)));
      }
      ledger.registerAll(files);
      events.awaitUntil("50 confirmed", () -> f.store.count(Axis.ORIGINAL, ItemState.CONFIRMED) == 50, WAIT);
    }
    assertTrue(batches.get() > 0);
    ConsistencyAssertions.assertConsistent(f.store, f.sink, "b1");
  }

  @Test
  void aStoreAnsweringABatchWithTheWrongNumberOfResultsIsConfirmedRowByRow() {
    StateStore broken = intercept(new InMemoryStateStore(), "confirmAll", args -> new boolean[0]);
    LedgerFixture f = new LedgerFixture(temp, broken);
    ManualLedger ledger = f.manual();
    ItemId id = ItemId.original("b1", "720p", 0);
    ledger.register(id, f.record(id));

    assertEquals(1, ledger.drainQueue());
    assertEquals(ItemState.CONFIRMED, ledger.find(id).orElseThrow().state());
    assertEquals(0, ledger.stats().inFlight(), "the row is no longer in flight");
  }

  @Test
  void aConfirmThatFailsIsRecordedAsAnInternalErrorAndRetried() throws Exception {
    AtomicInteger failuresLeft = new AtomicInteger(1);
    StateStore inner = new InMemoryStateStore();
    StateStore failingOnce = intercept(intercept(inner, "confirmAll", args -> {
      throw new IllegalStateException("injected: batch failed");
    }), "confirm", args -> {
      if (failuresLeft.getAndDecrement() > 0) {
        throw new IllegalStateException("injected: the database went away");
      }
      return null; // pass through
    });
    LedgerFixture f = new LedgerFixture(temp, failingOnce);
    ManualLedger ledger = f.manual();
    ItemId id = ItemId.original("b1", "720p", 0);
    ledger.register(id, f.record(id));

    ledger.drainQueue();
    assertEquals(Reason.INTERNAL_ERROR, ledger.find(id).orElseThrow().reason());
    assertEquals(ItemState.PENDING, ledger.find(id).orElseThrow().state());
    f.clock.advance(Duration.ofSeconds(1));
    LedgerFixture.settle(ledger);
    assertEquals(ItemState.CONFIRMED, ledger.find(id).orElseThrow().state());
    assertFalse(f.sink.attempts(id.objectKey()).isEmpty());
  }

  @Test
  void aStoreFailureReachesTheCallerAsAStoreException() {
    RuntimeException driver = new IllegalStateException("injected: the database went away");
    StoreException fromStore = new StoreException("injected: the store's own", driver);
    AtomicInteger calls = new AtomicInteger();
    StateStore failing = intercept(new InMemoryStateStore(), "registerAll", args -> {
      throw calls.incrementAndGet() == 1 ? driver : fromStore;
    });
    LedgerFixture f = new LedgerFixture(temp, failing);
    ManualLedger ledger = f.manual();
    ItemId id = ItemId.original("b1", "720p", 0);
    Path file = f.record(id);

    StoreException wrapped = assertThrows(StoreException.class, () -> ledger.register(id, file));
    assertSame(driver, wrapped.getCause(), "a raw exception of the store is wrapped");
    assertSame(fromStore, assertThrows(StoreException.class,
        () -> ledger.registerAll(List.of(ClosedFile.of(id, file)))), "a StoreException passes as it is");
  }

  /** Answers {@code method} with {@code answer}, or passes through when it returns {@code null}. */
  private static StateStore intercept(StateStore store, String method, Answer answer) {
    return (StateStore) Proxy.newProxyInstance(StateStore.class.getClassLoader(), new Class<?>[] {StateStore.class},
        (proxy, m, args) -> {
          if (m.getName().equals(method)) {
            Object answered = answer.apply(args);
            if (answered != null) {
              return answered;
            }
          }
          try {
            return m.invoke(store, args);
          } catch (InvocationTargetException e) {
            throw e.getCause();
          }
        });
  }

  private interface Answer {
    Object apply(Object[] args);
  }
}
