package dev.segmentledger.core;

import java.util.EnumMap;
import java.util.Map;
import java.util.Objects;

/**
 * Where a broadcast is in its lifecycle, with the row counts per axis and state it was judged on.
 * A snapshot; immutable.
 *
 * @param broadcastId the broadcast
 * @param phase live, ended, or complete
 * @param counts rows per axis and state (every axis and state present, zero if none)
 */
public record BroadcastStatus(String broadcastId, Phase phase, Map<Axis, Map<ItemState, Long>> counts) {

  /** The lifecycle of a broadcast. */
  public enum Phase {
    /** Accepting registrations. */
    LIVE,
    /** No new registrations; some rows are still unconfirmed and are being recovered. */
    ENDED,
    /** Ended, and every row of every axis is terminal: its playback is final. */
    COMPLETE
  }

  public BroadcastStatus {
    Objects.requireNonNull(broadcastId, "broadcastId");
    Objects.requireNonNull(phase, "phase");
    EnumMap<Axis, Map<ItemState, Long>> copy = new EnumMap<>(Axis.class);
    for (Axis axis : Axis.values()) {
      EnumMap<ItemState, Long> states = new EnumMap<>(ItemState.class);
      for (ItemState state : ItemState.values()) {
        states.put(state, counts.getOrDefault(axis, Map.of()).getOrDefault(state, 0L));
      }
      copy.put(axis, Map.copyOf(states));
    }
    counts = Map.copyOf(copy);
  }

  /** The number of rows of {@code axis} in {@code state}. */
  public long count(Axis axis, ItemState state) {
    return counts.get(axis).get(state);
  }

  /** The number of unconfirmed (pending or waiting) rows over all axes. */
  public long unconfirmed() {
    long sum = 0;
    for (Axis axis : Axis.values()) {
      sum += count(axis, ItemState.PENDING) + count(axis, ItemState.WAITING);
    }
    return sum;
  }
}
