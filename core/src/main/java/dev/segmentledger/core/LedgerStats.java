package dev.segmentledger.core;

import java.time.Duration;
import java.util.EnumMap;
import java.util.Map;
import java.util.Objects;

/**
 * A snapshot of the ledger's in-process counters since it was built, per axis. These count
 * events of this process only; the ledger rows are the truth across restarts.
 *
 * @param byAxis the counters of each axis (every axis is present)
 * @param queued items waiting in the in-memory queue now
 * @param inFlight items queued or being processed now
 * @param circuit the state of the circuit breaker around the sink now
 * @param playlistsAwaitingPublication playlists (media and multivariant, across every broadcast of
 *     the store) whose ledger state changed since they were last published, as last counted by this
 *     ledger's playlist publisher (each publication round, about every sweep interval); 0 when
 *     playlist publication is off. Unlike the other figures it is read from the store, so it covers
 *     every node
 * @param clockSkew how far this ledger's clock runs ahead of the store's (negative: behind), as last
 *     measured (about every 30 s, {@link dev.segmentledger.core.spi.StateStore#currentTime()});
 *     zero if the store has no clock of its own or it was not measured yet. Leases are judged by the
 *     store's clock whatever it is; a skew beyond a tenth of the lease duration (at least 1 s) is
 *     logged as a warning once, when it crosses that threshold
 */
public record LedgerStats(Map<Axis, AxisStats> byAxis, int queued, int inFlight, CircuitState circuit,
    long playlistsAwaitingPublication, Duration clockSkew) {

  public LedgerStats {
    Objects.requireNonNull(byAxis, "byAxis");
    Objects.requireNonNull(circuit, "circuit");
    Objects.requireNonNull(clockSkew, "clockSkew");
    EnumMap<Axis, AxisStats> copy = new EnumMap<>(Axis.class);
    for (Axis axis : Axis.values()) {
      copy.put(axis, byAxis.getOrDefault(axis, AxisStats.ZERO));
    }
    byAxis = Map.copyOf(copy);
  }

  /** Stats without a measured clock skew (zero), as before the skew was reported. */
  public LedgerStats(Map<Axis, AxisStats> byAxis, int queued, int inFlight, CircuitState circuit,
      long playlistsAwaitingPublication) {
    this(byAxis, queued, inFlight, circuit, playlistsAwaitingPublication, Duration.ZERO);
  }

  /** The counters of one axis. */
  public AxisStats axis(Axis axis) {
    return byAxis.get(axis);
  }

  /** The sum over all axes. */
  public AxisStats total() {
    AxisStats sum = AxisStats.ZERO;
    for (AxisStats s : byAxis.values()) {
      sum = sum.plus(s);
    }
    return sum;
  }

  /**
   * Counters of one axis.
   *
   * @param accepted items taken into the queue
   * @param saturated offers dropped because the queue was full
   * @param stored PUTs (or identical objects found) reported by the sink
   * @param confirmed compare-and-set confirms that won
   * @param confirmLost compare-and-set confirms that changed nothing
   * @param failed failed attempts that will be retried
   * @param rejected attempts or registrations that made the row terminal without upload
   */
  public record AxisStats(
      long accepted, long saturated, long stored, long confirmed, long confirmLost, long failed, long rejected) {

    /** All zero. */
    public static final AxisStats ZERO = new AxisStats(0, 0, 0, 0, 0, 0, 0);

    AxisStats plus(AxisStats o) {
      return new AxisStats(accepted + o.accepted, saturated + o.saturated, stored + o.stored,
          confirmed + o.confirmed, confirmLost + o.confirmLost, failed + o.failed, rejected + o.rejected);
    }
  }
}
