package dev.segmentledger.core.internal;

import dev.segmentledger.core.Backoff;
import dev.segmentledger.core.LedgerListener;
import dev.segmentledger.core.Uplink;
import dev.segmentledger.core.spi.ObjectSink;
import dev.segmentledger.core.spi.Repackager;
import dev.segmentledger.core.spi.StateStore;
import dev.segmentledger.core.spi.Tracing;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.util.List;

/**
 * The immutable settings of one ledger, copied from the builder; {@code repackager},
 * {@code playbackRoot}, {@code cutoff} and {@code retention} may be null. {@code nodeId} names this instance as the
 * owner of its leases; {@code leaseDuration} is how long a claim keeps other instances away;
 * {@code maxAbandonedAttempts} is how many attempts on a row may end without an outcome before it
 * is rejected; {@code abortUnfinishedUploadsAfter} is the reconciler's age limit for aborting
 * unfinished uploads; {@code retention}, if not null, is how long after its end a complete broadcast's
 * rows are kept; {@code publishPlaylists} whether playlists are published (only ever true
 * with a repackager); {@code storageGroup} the group whose rows this node uploads (null: shared
 * storage); {@code stallTimeout} how long an attempt may make no progress before its node cancels
 * it; {@code maxErrorAttempts} after how many attempts a row failing with an internal or repackager
 * error ends REJECTED; {@code liveWindowSegments} the fewest entries of a live window playlist;
 * {@code fullPlaylistInterval} the shortest time between two PUTs of a live full media playlist
 * (zero: every publication); {@code localRetention}, if not null, how long after its confirm (and its
 * derived rows') an original's local file is deleted; {@code lowDiskThreshold} the free bytes of the allowed root's file store below
 * which the disk is low (0: none); {@code uplink} how the node shares its uplink (lanes, cap; null: the defaults); {@code tracing} where spans go ({@link Tracing#NONE}: nowhere; any other is guarded, a failing tracer fails no upload). Only
 * {@link Engine} reads it: it gives each part of the engine the few
 * values that part uses, never the whole configuration.
 */
public record LedgerConfig(
    StateStore stateStore,
    ObjectSink objectSink,
    Path allowedRoot,
    Clock clock,
    int queueCapacity,
    int workers,
    int sweepBatchSize,
    Duration sweepInterval,
    Duration shutdownTimeout,
    Backoff backoff,
    List<LedgerListener> listeners,
    Repackager repackager,
    Path playbackRoot,
    Duration cutoff,
    int breakerFailures,
    Duration breakerDelay,
    String nodeId,
    Duration leaseDuration,
    int maxAbandonedAttempts,
    Duration abortUnfinishedUploadsAfter,
    Duration retention,
    boolean publishPlaylists,
    String storageGroup,
    Duration stallTimeout,
    int maxErrorAttempts,
    Tracing tracing,
    int liveWindowSegments,
    Duration fullPlaylistInterval,
    long lowDiskThreshold,
    Duration localRetention,
    Uplink uplink) {

  /** Guards the tracing: a tracer that throws costs a span, never an upload. */
  public LedgerConfig {
    tracing = GuardedTracing.of(tracing);
    uplink = uplink == null ? Uplink.DEFAULT : uplink;
  }

  /** The settings a started ledger logs, in one line. */
  String summary() {
    return workers + " workers, queue capacity " + queueCapacity + ", sweep batch " + sweepBatchSize + " every "
        + sweepInterval + ", lease " + leaseDuration + " (heartbeat every " + Heartbeat.tickFor(leaseDuration)
        + "), stall timeout " + stallTimeout + ", retention " + (retention == null ? "off" : retention)
        + ", playlists " + (publishPlaylists ? "published (live window " + liveWindowSegments
            + " segments, full playlist every " + fullPlaylistInterval + ")" : "off")
        + ", storage group " + (storageGroup == null ? "none (shared storage)" : storageGroup)
        + ", local retention of originals " + (localRetention == null ? "off" : localRetention)
        + ", uplink " + uplink;
  }

  /** The time between two heartbeats of a ledger with this lease duration. */
  public static Duration heartbeatInterval(Duration leaseDuration) {
    return Heartbeat.tickFor(leaseDuration);
  }

  /** Whether PLAYBACK and INIT rows are produced for each original. */
  public boolean repackaging() {
    return repackager != null;
  }
}
