package dev.segmentledger.core.query;

import dev.segmentledger.core.Axis;
import java.time.Duration;
import java.time.Instant;
import java.util.EnumMap;
import java.util.Map;
import java.util.Objects;

/**
 * What is still to be uploaded, per axis, across every broadcast, as read from the store at one
 * instant ({@link dev.segmentledger.core.Ledger#backlog()}). Immutable. The figures of one call are read in one
 * statement (a consistent snapshot on a database store); they may be stale the moment they are read.
 *
 * @param at the instant the figures are computed for (leases and backoff are judged against it)
 * @param axes the figures of every axis, each axis present (zeros when it has no unconfirmed row)
 */
public record Backlog(Instant at, Map<Axis, AxisBacklog> axes) {
  public Backlog {
    Objects.requireNonNull(at, "at");
    EnumMap<Axis, AxisBacklog> all = new EnumMap<>(Axis.class);
    for (Axis axis : Axis.values()) {
      all.put(axis, axes.getOrDefault(axis, AxisBacklog.EMPTY));
    }
    axes = Map.copyOf(all);
  }

  /** The figures of {@code axis}. */
  public AxisBacklog axis(Axis axis) {
    return axes.get(Objects.requireNonNull(axis, "axis"));
  }

  /** The unconfirmed rows of every axis. */
  public long unconfirmed() {
    return axes.values().stream().mapToLong(AxisBacklog::unconfirmed).sum();
  }

  /** The bytes still to upload on every axis ({@link AxisBacklog#unconfirmedBytes}); -1 if any axis does not say. */
  public long unconfirmedBytes() {
    long sum = 0;
    for (AxisBacklog axis : axes.values()) {
      if (axis.unconfirmedBytes() < 0) {
        return -1;
      }
      sum += axis.unconfirmedBytes();
    }
    return sum;
  }

  /** How long the oldest unconfirmed row of any axis has waited at {@link #at()}; zero if none. */
  public Duration oldestAge() {
    return axes.values().stream().map(a -> a.oldestAge(at)).max(Duration::compareTo).orElse(Duration.ZERO);
  }

  /**
   * The backlog of one axis. The unconfirmed rows are the PENDING and the WAITING ones; the PENDING
   * rows are split exactly into {@code due}, {@code leased} and {@code inBackoff}.
   *
   * @param unconfirmed rows in state {@code PENDING} or {@code WAITING}
   * @param oldestRegisteredAt when the oldest unconfirmed row was registered; {@code null} if none
   * @param due PENDING rows the sweeper may pick now: {@code nextAttemptAt <= at} (including rows
   *     whose lease expired: their uploader died or hung)
   * @param leased PENDING rows under a lease still valid at {@code at}: being uploaded, or queued on
   *     the node that registered them
   * @param inBackoff PENDING rows neither due nor leased: waiting for their next attempt after a
   *     failure, or given back by an open circuit breaker
   * @param waitingForInit rows in state {@code WAITING}: PLAYBACK segments waiting for their
   *     rendition's INIT to be confirmed
   * @param unconfirmedBytes the sizes of the unconfirmed rows added up: the bytes still to upload,
   *     which lie on the recorders' disks until they are confirmed (across every storage group). A
   *     PLAYBACK or INIT row not produced yet has no size and counts 0. -1 if the store does not say
   */
  public record AxisBacklog(long unconfirmed, Instant oldestRegisteredAt, long due, long leased, long inBackoff,
      long waitingForInit, long unconfirmedBytes) {
    /** An axis without unconfirmed rows. */
    public static final AxisBacklog EMPTY = new AxisBacklog(0, null, 0, 0, 0, 0, 0);

    /** Figures without the bytes ({@code unconfirmedBytes} -1: not said), as before they were reported. */
    public AxisBacklog(long unconfirmed, Instant oldestRegisteredAt, long due, long leased, long inBackoff,
        long waitingForInit) {
      this(unconfirmed, oldestRegisteredAt, due, leased, inBackoff, waitingForInit, -1);
    }

    public AxisBacklog {
      if (unconfirmed < 0 || due < 0 || leased < 0 || inBackoff < 0 || waitingForInit < 0) {
        throw new IllegalArgumentException("counts must be >= 0");
      }
      if (unconfirmedBytes < -1) {
        throw new IllegalArgumentException("unconfirmedBytes must be >= 0, or -1 if not said: " + unconfirmedBytes);
      }
      if (due + leased + inBackoff + waitingForInit != unconfirmed) {
        throw new IllegalArgumentException("due + leased + inBackoff + waitingForInit must be unconfirmed: "
            + due + " + " + leased + " + " + inBackoff + " + " + waitingForInit + " != " + unconfirmed);
      }
      if ((oldestRegisteredAt == null) != (unconfirmed == 0)) {
        throw new IllegalArgumentException("oldestRegisteredAt is null exactly when there is no unconfirmed row");
      }
    }

    /** How long the oldest unconfirmed row has waited at {@code now}; zero if none (or if in the future). */
    public Duration oldestAge(Instant now) {
      if (oldestRegisteredAt == null || oldestRegisteredAt.isAfter(now)) {
        return Duration.ZERO;
      }
      return Duration.between(oldestRegisteredAt, now);
    }
  }
}
