package dev.segmentledger.engine;

import static org.junit.jupiter.api.Assertions.assertEquals;

import dev.segmentledger.core.ItemId;
import dev.segmentledger.core.Lane;
import dev.segmentledger.core.ManualLedger;
import dev.segmentledger.core.UplinkStats;
import dev.segmentledger.core.spi.NewItem;
import dev.segmentledger.core.spi.StateStore;
import dev.segmentledger.testkit.InMemoryStateStore;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Proxy;
import java.nio.file.Path;
import java.time.Duration;
import java.util.EnumMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The recorder's lane hints are stored, not kept in one node's memory: a second ledger on the same
 * store (this node restarted, or another node of the store) puts the rows a sweep finds in the lane
 * the recorder asked for on the first one, for a whole broadcast ({@code prioritize}) and for one
 * segment ({@code register(id, file, lane)}); a hint cleared on one node is cleared for all. A store
 * that keeps no hints has them kept in the memory of the node that was given them, as before.
 */
class DurableLaneHintsTest {
  @TempDir Path temp;

  @Test
  void aBroadcastHintGivenOnOneLedgerIsHonouredByTheNextLedgerOnTheStore() {
    LedgerFixture f = new LedgerFixture(temp);
    try (ManualLedger first = f.manual()) {
      first.prioritize("vip", Lane.LIVE); // its originals would be ORIGINAL
      first.prioritize("archive", Lane.BACKFILL); // a live broadcast the recorder says can wait
      registerOriginals(f, first, "vip", 3);
      registerOriginals(f, first, "archive", 2);
      registerOriginals(f, first, "plain", 4);
    }

    Map<Lane, Long> queued = sweptByAnotherLedger(f);

    assertEquals(Map.of(Lane.LIVE, 3L, Lane.ORIGINAL, 4L, Lane.BACKFILL, 2L), queued);
  }

  @Test
  void aSegmentHintGivenAtRegistrationIsHonouredByTheNextLedgerOnTheStore() {
    LedgerFixture f = new LedgerFixture(temp);
    try (ManualLedger first = f.manual()) {
      ItemId backfill = ItemId.original("b1", "720p", 0);
      first.register(backfill, f.record(backfill), Lane.BACKFILL);
      ItemId urgent = ItemId.original("b1", "720p", 1);
      first.register(urgent, f.record(urgent), Lane.LIVE);
      ItemId plain = ItemId.original("b1", "720p", 2);
      first.register(plain, f.record(plain));
    }

    Map<Lane, Long> queued = sweptByAnotherLedger(f);

    assertEquals(Map.of(Lane.LIVE, 1L, Lane.ORIGINAL, 1L, Lane.BACKFILL, 1L), queued);
  }

  @Test
  void aSegmentHintTakesPrecedenceOverItsBroadcastsHintOnAnyLedger() {
    LedgerFixture f = new LedgerFixture(temp);
    try (ManualLedger first = f.manual()) {
      first.prioritize("b1", Lane.LIVE);
      ItemId backfill = ItemId.original("b1", "720p", 0);
      first.register(backfill, f.record(backfill), Lane.BACKFILL);
      ItemId other = ItemId.original("b1", "720p", 1);
      first.register(other, f.record(other));
    }

    assertEquals(Map.of(Lane.LIVE, 1L, Lane.ORIGINAL, 0L, Lane.BACKFILL, 1L), sweptByAnotherLedger(f));
  }

  @Test
  void aBroadcastHintClearedOnOneLedgerIsClearedForTheNext() {
    LedgerFixture f = new LedgerFixture(temp);
    try (ManualLedger first = f.manual()) {
      first.prioritize("vip", Lane.BACKFILL);
      registerOriginals(f, first, "vip", 2);
    }
    f.clock.advance(Duration.ofHours(1));
    try (ManualLedger second = f.builder().nodeId("second").buildManual()) {
      second.prioritize("vip", null);
    }

    assertEquals(Map.of(Lane.LIVE, 0L, Lane.ORIGINAL, 2L, Lane.BACKFILL, 0L), sweptByAnotherLedger(f));
  }

  @Test
  void aBroadcastHintAnotherNodeGivesReachesARunningLedgerWithinTheTimeItTrustsWhatItRead() {
    LedgerFixture f = new LedgerFixture(temp);
    try (ManualLedger running = f.builder().nodeId("running").buildManual();
        ManualLedger other = f.builder().nodeId("other").buildManual()) {
      registerOriginals(f, running, "b1", 1); // read b1 as live, no hint
      other.prioritize("b1", Lane.LIVE);
      f.clock.advance(Duration.ofSeconds(6)); // past what the running node trusts of a read broadcast
      ItemId next = ItemId.original("b1", "720p", 1);
      running.register(next, f.record(next));

      UplinkStats stats = running.uplinkStats();
      assertEquals(1, stats.lanes().get(Lane.ORIGINAL).queued(), "queued before the hint");
      assertEquals(1, stats.lanes().get(Lane.LIVE).queued(), "offered after it");
    }
  }

  @Test
  void aStoreThatKeepsNoHintsHasThemKeptInThisNodesMemory() {
    InMemoryStateStore kept = new InMemoryStateStore();
    StateStore withoutHints = (StateStore) Proxy.newProxyInstance(StateStore.class.getClassLoader(),
        new Class<?>[] {StateStore.class}, (proxy, method, args) -> {
          if (method.getName().equals("prioritize")) {
            throw new UnsupportedOperationException("a store written before hints were stored");
          }
          if (method.getName().equals("registerAll")) { // drops the rows' hints, as such a store does
            args = new Object[] {((List<?>) args[0]).stream().map(item -> ((NewItem) item).inLane(null)).toList()};
          }
          try {
            return method.invoke(kept, args);
          } catch (InvocationTargetException e) {
            throw e.getCause();
          }
        });
    LedgerFixture f = new LedgerFixture(temp, withoutHints);
    try (ManualLedger ledger = f.manual()) {
      ledger.prioritize("vip", Lane.LIVE);
      registerOriginals(f, ledger, "vip", 2);
      ItemId backfill = ItemId.original("b1", "720p", 0);
      ledger.register(backfill, f.record(backfill), Lane.BACKFILL);

      assertEquals(2, ledger.uplinkStats().lanes().get(Lane.LIVE).queued());
      assertEquals(1, ledger.uplinkStats().lanes().get(Lane.BACKFILL).queued());
    }
    assertEquals(Map.of(Lane.LIVE, 0L, Lane.ORIGINAL, 3L, Lane.BACKFILL, 0L), sweptByAnotherLedger(f),
        "another node never knew");
  }

  private static void registerOriginals(LedgerFixture f, ManualLedger ledger, String broadcast, int count) {
    for (int i = 0; i < count; i++) {
      ItemId id = ItemId.original(broadcast, "720p", i);
      ledger.register(id, f.record(id));
    }
  }

  /** What a new ledger on the fixture's store queues per lane from one sweep, once every lease ran out. */
  private static Map<Lane, Long> sweptByAnotherLedger(LedgerFixture f) {
    f.clock.advance(Duration.ofHours(1));
    try (ManualLedger next = f.builder().nodeId("next").buildManual()) {
      next.sweepRound();
      Map<Lane, Long> queued = new EnumMap<>(Lane.class);
      next.uplinkStats().lanes().forEach((lane, stats) -> queued.put(lane, (long) stats.queued()));
      return queued;
    }
  }
}
