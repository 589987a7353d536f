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
 * @param localDisk the recorder's disk: the files this ledger deleted, the deletions it refused, and
 *     the free space of the allowed root's file store against the low-disk threshold
 */
public record LedgerStats(Map<Axis, AxisStats> byAxis, int queued, int inFlight, CircuitState circuit,
    long playlistsAwaitingPublication, Duration clockSkew, LocalDisk localDisk) {

  public LedgerStats {
    Objects.requireNonNull(byAxis, "byAxis");
    Objects.requireNonNull(circuit, "circuit");
    Objects.requireNonNull(clockSkew, "clockSkew");
    Objects.requireNonNull(localDisk, "localDisk");
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

  /** Stats without disk figures ({@link LocalDisk#UNKNOWN}), as before they were reported. */
  public LedgerStats(Map<Axis, AxisStats> byAxis, int queued, int inFlight, CircuitState circuit,
      long playlistsAwaitingPublication, Duration clockSkew) {
    this(byAxis, queued, inFlight, circuit, playlistsAwaitingPublication, clockSkew, LocalDisk.UNKNOWN);
  }

  /**
   * The recorder's disk as this ledger sees it.
   *
   * @param filesDeleted local files this ledger deleted since it was built: its produced PLAYBACK and
   *     INIT files once confirmed, and the originals deleted by local retention
   *     ({@link LedgerBuilder#localRetention})
   * @param bytesDeleted their bytes
   * @param refused deletions refused since it was built, by reason (every reason is present)
   * @param freeBytes usable bytes of the allowed root's file store now; -1 if unknown
   * @param lowDiskThreshold below this many free bytes the disk is low
   *     ({@link dev.segmentledger.core.LedgerBuilder#lowDiskThreshold}); 0: no threshold
   */
  public record LocalDisk(long filesDeleted, long bytesDeleted, Map<LocalFileRefusal, Long> refused, long freeBytes,
      long lowDiskThreshold) {
    /** Nothing deleted, nothing refused, free space unknown, no threshold. */
    public static final LocalDisk UNKNOWN = new LocalDisk(0, 0, Map.of(), -1, 0);

    public LocalDisk {
      EnumMap<LocalFileRefusal, Long> copy = new EnumMap<>(LocalFileRefusal.class);
      for (LocalFileRefusal refusal : LocalFileRefusal.values()) {
        copy.put(refusal, Objects.requireNonNull(refused, "refused").getOrDefault(refusal, 0L));
      }
      refused = Map.copyOf(copy);
    }

    /** Every refused deletion, whatever its reason. */
    public long refusedTotal() {
      return refused.values().stream().mapToLong(Long::longValue).sum();
    }

    /**
     * Whether the disk is low: a threshold is set, the free space is known and below it. The ledger
     * is then degraded (see {@link #lowDiskCause()}): it still uploads, but the recorder may soon
     * have no room to record.
     */
    public boolean lowDisk() {
      return lowDiskThreshold > 0 && freeBytes >= 0 && freeBytes < lowDiskThreshold;
    }

    /** The named cause of the degraded state, for health pages; empty if the disk is not low. */
    public java.util.Optional<String> lowDiskCause() {
      return lowDisk()
          ? java.util.Optional.of("LOW_DISK: " + freeBytes + " bytes free under the allowed root, threshold "
              + lowDiskThreshold)
          : java.util.Optional.empty();
    }
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
