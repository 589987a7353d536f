package dev.segmentledger.engine;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.segmentledger.core.ItemId;
import dev.segmentledger.core.Lane;
import dev.segmentledger.core.ManualLedger;
import dev.segmentledger.core.Uplink;
import dev.segmentledger.core.UplinkStats;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Work is taken by lane: a broadcast the recorder marked live first, originals of live broadcasts
 * next, a backfill of an ended broadcast last, each lower lane with its reserved share of the takes
 * (20% each by default); with lanes off, in arrival order (the backfill, swept first, goes first).
 */
class LanesTest {
  @TempDir Path temp;

  @Test
  void liveWorkGoesFirstAndEachLowerLaneKeepsItsReservedShare() {
    List<String> order = uploadOrder(Uplink.DEFAULT);
    List<String> first = order.subList(0, 25); // every lane still has work for all of them
    assertEquals(15, count(first, "vip/"), 1, "live work first: " + first); // give or take a take a tie deferred
    assertEquals(5, count(first, "live/"), 1, "originals keep their 20%: " + first);
    assertEquals(5, count(first, "old/"), 1, "backfill keeps its 20%: " + first);
    assertTrue(order.subList(order.size() - 10, order.size()).stream().allMatch(k -> k.contains("old/")),
        "the backfill's rest last: " + order);
  }

  @Test
  void withoutLanesTheBackfillSweptFirstGoesFirst() {
    List<String> order = uploadOrder(Uplink.builder().lanes(false).build());
    assertEquals(20, count(order.subList(0, 20), "old/"), "arrival order: " + order);
  }

  @Test
  void workQueuedForABroadcastThatEndsMovesToTheBackfillLane() {
    LedgerFixture f = new LedgerFixture(temp);
    try (ManualLedger ledger = f.manual()) {
      for (int i = 0; i < 3; i++) {
        ItemId id = ItemId.original("b1", "720p", i);
        ledger.register(id, f.record(id));
      }
      assertEquals(3, ledger.uplinkStats().lanes().get(Lane.ORIGINAL).queued());
      ledger.endBroadcast("b1");
      assertEquals(0, ledger.uplinkStats().lanes().get(Lane.ORIGINAL).queued());
      assertEquals(3, ledger.uplinkStats().lanes().get(Lane.BACKFILL).queued());
    }
  }

  /**
   * 20 originals of an ended broadcast found by a sweep, then 20 originals of a live broadcast and
   * 20 of a broadcast the recorder put in the live lane, registered; the keys in the order uploaded.
   */
  private List<String> uploadOrder(Uplink uplink) {
    LedgerFixture f = new LedgerFixture(temp);
    try (ManualLedger before = f.manual()) {
      for (int i = 0; i < 20; i++) {
        ItemId id = ItemId.original("old", "720p", i);
        before.register(id, f.record(id)); // leased to a node that then died
      }
    }
    f.clock.advance(Duration.ofHours(1));
    try (ManualLedger ledger = f.builder().queueCapacity(100).uplink(uplink).buildManual()) {
      ledger.endBroadcast("old");
      assertEquals(20, ledger.sweepRound().accepted());
      ledger.prioritize("vip", Lane.LIVE);
      for (int i = 0; i < 20; i++) {
        ItemId live = ItemId.original("live", "720p", i);
        ledger.register(live, f.record(live));
        ItemId vip = ItemId.original("vip", "720p", i);
        ledger.register(vip, f.record(vip));
      }
      UplinkStats stats = ledger.uplinkStats();
      if (uplink.lanes()) {
        assertEquals(20, stats.lanes().get(Lane.BACKFILL).queued());
        assertEquals(20, stats.lanes().get(Lane.ORIGINAL).queued());
        assertEquals(20, stats.lanes().get(Lane.LIVE).queued());
        assertEquals(Duration.ofHours(0), stats.lanes().get(Lane.LIVE).oldestWait(), "the ledger's clock stood still");
      }
      assertEquals(60, ledger.drainQueue());
      assertEquals(60, ledger.uplinkStats().lanes().values().stream().mapToLong(UplinkStats.LaneStats::taken).sum());
    }
    return f.sink.attempts().stream().map(a -> a.key()).toList();
  }

  private static int count(List<String> keys, String broadcast) {
    return (int) keys.stream().filter(k -> k.contains(broadcast)).count();
  }
}
