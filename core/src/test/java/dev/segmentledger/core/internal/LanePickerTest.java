package dev.segmentledger.core.internal;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.segmentledger.core.Lane;
import dev.segmentledger.core.Uplink;
import java.time.Duration;
import java.util.EnumMap;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** The lanes' order, their reserved shares, and backfill's aging, on the picking policy alone. */
class LanePickerTest {
  private static final int[] ALL_BUSY = {100, 100, 100};

  @Test
  void theHighestLaneWithWorkIsTakenWhenNoLowerLaneHasEarnedATake() {
    LanePicker picker = new LanePicker(Uplink.DEFAULT);
    assertNull(picker.pick(new int[] {0, 0, 0}, Duration.ZERO));
    assertEquals(Lane.LIVE, picker.pick(ALL_BUSY, Duration.ZERO));
    assertEquals(Lane.ORIGINAL, picker.pick(new int[] {0, 5, 5}, Duration.ZERO));
    assertEquals(Lane.BACKFILL, picker.pick(new int[] {0, 0, 5}, Duration.ZERO));
  }

  @Test
  void eachLowerLaneGetsItsReservedShareOfTheTakesWhileEveryLaneHasWork() {
    LanePicker picker = new LanePicker(Uplink.builder().reservedShares(0.1, 0.25).build());
    Map<Lane, Integer> takes = count(picker, ALL_BUSY, 1_000);
    assertEquals(100, takes.get(Lane.ORIGINAL), 1, takes.toString()); // a take earned last may be still owed
    assertEquals(250, takes.get(Lane.BACKFILL), 1, takes.toString());
    assertEquals(650, takes.get(Lane.LIVE), 1, takes.toString());
  }

  @Test
  void aLaneWithoutWorkBanksNothingForLater() {
    LanePicker picker = new LanePicker(Uplink.DEFAULT);
    count(picker, new int[] {100, 100, 0}, 1_000); // backfill idle for a long time
    Map<Lane, Integer> takes = count(picker, ALL_BUSY, 10);
    assertTrue(takes.get(Lane.BACKFILL) <= 2, "no burst of saved-up takes: " + takes);
  }

  @Test
  void backfillThatWaitedPastItsAgingGoesAheadOfOriginalsButNeverAheadOfLive() {
    LanePicker picker = new LanePicker(Uplink.builder().reservedShares(0, 0)
        .backfillAgingAfter(Duration.ofSeconds(30)).build());
    assertEquals(Lane.ORIGINAL, picker.pick(new int[] {0, 5, 5}, Duration.ofSeconds(29)));
    assertEquals(Lane.BACKFILL, picker.pick(new int[] {0, 5, 5}, Duration.ofSeconds(30)));
    assertEquals(Lane.LIVE, picker.pick(new int[] {1, 5, 5}, Duration.ofHours(1)));
  }

  @Test
  void withoutLanesEverythingGoesIntoOneQueue() {
    LanePicker picker = new LanePicker(Uplink.builder().lanes(false).build());
    for (Lane lane : Lane.values()) {
      assertEquals(Lane.LIVE, picker.queueOf(lane));
    }
  }

  private static Map<Lane, Integer> count(LanePicker picker, int[] waiting, int takes) {
    Map<Lane, Integer> counts = new EnumMap<>(Lane.class);
    for (Lane lane : Lane.values()) {
      counts.put(lane, 0);
    }
    for (int i = 0; i < takes; i++) {
      counts.merge(picker.pick(waiting, Duration.ZERO), 1, Integer::sum);
    }
    return counts;
  }
}
