package dev.segmentledger.core;

import java.time.Duration;
import java.util.EnumMap;
import java.util.Map;
import java.util.Objects;

/**
 * A snapshot of how a node shares its uplink: the settings in force, each lane's queue and the
 * bandwidth cap's counters since start. Immutable.
 *
 * @param settings the uplink settings in force
 * @param lanes per lane (every lane present): the work waiting in this node's queue and taken from it
 * @param bodyBytes request body bytes sent through the cap since start (counted with or without a cap)
 * @param tokenWait the time uploads spent waiting for the cap's tokens since start, summed over streams
 */
public record UplinkStats(Uplink settings, Map<Lane, LaneStats> lanes, long bodyBytes, Duration tokenWait) {

  public UplinkStats {
    Objects.requireNonNull(settings, "settings");
    Objects.requireNonNull(tokenWait, "tokenWait");
    EnumMap<Lane, LaneStats> copy = new EnumMap<>(Lane.class);
    for (Lane lane : Lane.values()) {
      copy.put(lane, lanes.getOrDefault(lane, LaneStats.EMPTY));
    }
    lanes = Map.copyOf(copy);
  }

  /**
   * One lane's queue.
   *
   * @param queued the work waiting in the queue now
   * @param oldestWait how long the longest waiting work of the lane has waited (zero if none)
   * @param taken the work taken from the lane by the workers since start
   */
  public record LaneStats(int queued, Duration oldestWait, long taken) {
    /** No work waiting, none taken. */
    public static final LaneStats EMPTY = new LaneStats(0, Duration.ZERO, 0);
  }
}
