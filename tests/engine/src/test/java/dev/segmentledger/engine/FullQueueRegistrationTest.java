package dev.segmentledger.engine;

import static org.junit.jupiter.api.Assertions.assertEquals;

import dev.segmentledger.core.Axis;
import dev.segmentledger.core.ItemId;
import dev.segmentledger.core.ItemState;
import dev.segmentledger.core.ManualLedger;
import dev.segmentledger.core.Registration.Offer;
import dev.segmentledger.core.Registration;
import dev.segmentledger.core.spi.StateStore;
import dev.segmentledger.testkit.InMemoryStateStore;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Proxy;
import java.nio.file.Path;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * While the queue is full (an S3 outage: the workers are held back by the breaker), a registration
 * is one write to the store: its row is written unleased, for the sweeper, rather than leased and
 * then released in a second commit on the recorder's thread (a register p99 was once measured at
 * 3.4 x steady during a refused outage because of that second commit).
 */
class FullQueueRegistrationTest {
  @TempDir Path temp;

  @Test
  void aRegistrationTheQueueCannotTakeIsOneStoreWriteAndItsRowIsTheSweepersAtOnce() {
    Map<String, AtomicInteger> calls = new ConcurrentHashMap<>();
    StateStore delegate = new InMemoryStateStore();
    StateStore counting = (StateStore) Proxy.newProxyInstance(StateStore.class.getClassLoader(),
        new Class<?>[] {StateStore.class}, (self, method, args) -> {
          calls.computeIfAbsent(method.getName(), k -> new AtomicInteger()).incrementAndGet();
          try {
            return method.invoke(delegate, args);
          } catch (InvocationTargetException e) {
            throw e.getCause();
          }
        });
    LedgerFixture f = new LedgerFixture(temp, counting);
    ManualLedger ledger = f.builder().queueCapacity(1).buildManual();

    ItemId first = ItemId.original("b1", "720p", 0);
    assertEquals(Offer.ACCEPTED, ledger.register(first, f.record(first)).offer());
    calls.clear();
    for (int i = 1; i <= 5; i++) {
      ItemId id = ItemId.original("b1", "720p", i);
      Registration registration = ledger.register(id, f.record(id));
      assertEquals(Offer.SATURATED, registration.offer());
      assertEquals(ItemState.PENDING, registration.item().state());
      assertEquals(registration.item().registeredAt(), registration.item().nextAttemptAt(),
          "an unleased row is due at once: the sweeper may take it");
    }
    assertEquals(0, calls.getOrDefault("release", new AtomicInteger()).get(), "releases: " + calls);

    LedgerFixture.settle(ledger);
    assertEquals(6, delegate.count(Axis.ORIGINAL, ItemState.CONFIRMED));
  }
}
