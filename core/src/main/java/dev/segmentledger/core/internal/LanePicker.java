package dev.segmentledger.core.internal;

import dev.segmentledger.core.Lane;
import dev.segmentledger.core.Uplink;
import java.time.Duration;

/**
 * Which lane the next work is taken from: the highest lane with work waiting, except that each lower
 * lane with work waiting earns its reserved share of every take while a higher lane has work too,
 * and is taken once it has earned a whole take (a lane without work earns nothing and keeps nothing);
 * and backfill that has waited longer than its aging limit goes ahead of originals, never ahead of
 * {@link Lane#LIVE}. With lanes off everything is in one lane, taken in arrival order. Not
 * thread-safe: its {@link WorkQueue} calls it under its lock.
 */
final class LanePicker {
  private static final Lane[] LANES = Lane.values();
  /** Shares such as 0.1 do not add up to exactly 1 in binary: a take is earned within this much of it. */
  private static final double EARNED = 1 - 1e-9;
  private final double[] credit = new double[LANES.length];
  private Uplink settings;

  LanePicker(Uplink settings) {
    this.settings = settings;
  }

  void settings(Uplink settings) {
    this.settings = settings;
  }

  Uplink settings() {
    return settings;
  }

  /** The lane a row goes into, given the lane its intent gives it. */
  Lane queueOf(Lane intended) {
    return settings.lanes() ? intended : Lane.LIVE;
  }

  /**
   * @param waiting how much work waits per lane (by ordinal)
   * @param backfillHeadWait how long the longest waiting backfill has waited (zero if none)
   * @return the lane to take from; {@code null} if nothing waits
   */
  Lane pick(int[] waiting, Duration backfillHeadWait) {
    int highest = -1;
    for (int i = 0; i < LANES.length; i++) {
      if (waiting[i] > 0) {
        highest = i;
        break;
      }
    }
    if (highest < 0) {
      return null;
    }
    Lane reserved = null;
    for (int i = LANES.length - 1; i > 0; i--) {
      if (waiting[i] == 0 || i == highest) {
        credit[i] = 0; // no work waiting, or the lane is taken from anyway: nothing banked
        continue;
      }
      credit[i] += share(LANES[i]);
      if (credit[i] >= EARNED && (reserved == null || credit[i] > credit[reserved.ordinal()])) {
        reserved = LANES[i];
      }
    }
    if (reserved != null) {
      credit[reserved.ordinal()] -= 1;
      return reserved;
    }
    Lane top = LANES[highest];
    if (top == Lane.ORIGINAL && waiting[Lane.BACKFILL.ordinal()] > 0
        && backfillHeadWait.compareTo(settings.backfillAgingAfter()) >= 0) {
      return Lane.BACKFILL;
    }
    return top;
  }

  private double share(Lane lane) {
    return lane == Lane.ORIGINAL ? settings.originalShare() : settings.backfillShare();
  }
}
