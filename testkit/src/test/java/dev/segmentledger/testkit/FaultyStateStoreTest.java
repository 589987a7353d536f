package dev.segmentledger.testkit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.segmentledger.core.ItemId;
import dev.segmentledger.core.StoreException;
import dev.segmentledger.core.StoreException.Outcome;
import dev.segmentledger.core.spi.NewItem;
import dev.segmentledger.core.spi.StateStore;
import java.time.Instant;
import java.util.EnumSet;
import java.util.Set;
import org.junit.jupiter.api.Test;

/**
 * Each fault of the wrapper is what its outcome says: a {@code NOT_WRITTEN} call wrote nothing, an
 * {@code UNKNOWN} one wrote everything; both occur; without faults every call passes through.
 */
class FaultyStateStoreTest {
  private static final Instant T0 = Instant.parse("2026-01-01T00:00:00Z");

  @Test
  void everyFaultIsTrueToItsOutcomeAndBothOccur() {
    InMemoryStateStore store = new InMemoryStateStore();
    FaultyStateStore faults = FaultyStateStore.wrap(store, 1);
    StateStore faulty = faults.store();
    Set<Outcome> seen = EnumSet.noneOf(Outcome.class);
    for (int n = 0; n < 200; n++) {
      ItemId id = ItemId.original("b1", "720p", n);
      StoreException e = assertThrows(StoreException.class,
          () -> faulty.register(NewItem.pending(id, "/r/" + id.sequence(), 10, T0)));
      seen.add(e.writeOutcome());
      assertEquals(e.mayHaveWritten(), store.find(id).isPresent(), e::getMessage);
    }
    assertEquals(EnumSet.allOf(Outcome.class), seen);
    assertEquals(200, faults.calls());
    assertEquals(200, faults.notWritten() + faults.unknown());
  }

  @Test
  void withoutFaultsEveryCallPassesThrough() {
    InMemoryStateStore store = new InMemoryStateStore();
    FaultyStateStore faults = FaultyStateStore.wrap(store, 1).failureRate(0);
    ItemId id = ItemId.original("b1", "720p", 1);

    assertTrue(faults.store().register(NewItem.pending(id, "/r/1", 10, T0)).created());
    assertTrue(faults.store().find(id).isPresent());
    assertEquals(0, faults.notWritten() + faults.unknown());
  }
}
