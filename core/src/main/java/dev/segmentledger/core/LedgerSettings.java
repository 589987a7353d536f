package dev.segmentledger.core;

import dev.segmentledger.core.spi.ObjectSink;
import dev.segmentledger.core.spi.Repackager;
import dev.segmentledger.core.spi.StateStore;
import dev.segmentledger.core.spi.Tracing;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.util.List;
import java.util.Optional;

/**
 * The settings of one ledger, by name: what {@link LedgerBuilder} was given (or its default), copied
 * when the ledger was built, and the values derived from them. Read it from a ledger with
 * {@link Ledger#settings()}; the engine reads its settings from here and nowhere else. Each
 * property's meaning is documented on the builder's setter of the same name.
 *
 * <p>Immutable and thread-safe (the collaborators it names, the store, the sink, the listeners,
 * are as thread-safe as they are themselves).
 */
public final class LedgerSettings {
  private final StateStore stateStore;
  private final ObjectSink objectSink;
  private final Path allowedRoot;
  private final Clock clock;
  private final int queueCapacity;
  private final int workers;
  private final int sweepBatchSize;
  private final Duration sweepInterval;
  private final Duration shutdownTimeout;
  private final Backoff backoff;
  private final List<LedgerListener> listeners;
  private final Repackager repackager;
  private final Path playbackRoot;
  private final Duration cutoff;
  private final int breakerFailures;
  private final Duration breakerOpenDelay;
  private final String nodeId;
  private final Duration leaseDuration;
  private final Duration stallTimeout;
  private final int maxAbandonedAttempts;
  private final int maxErrorAttempts;
  private final Duration abortUnfinishedUploadsAfter;
  private final Duration retention;
  private final boolean publishPlaylists;
  private final int liveWindowSegments;
  private final Duration fullPlaylistInterval;
  private final String storageGroup;
  private final Duration localRetention;
  private final Uplink uplink;
  private final long lowDiskThreshold;
  private final Tracing tracing;

  /** Copies the builder's settings; the node id, if not set, is generated here, once per build. */
  LedgerSettings(LedgerBuilder b) {
    this.stateStore = b.stateStore;
    this.objectSink = b.objectSink;
    this.allowedRoot = b.allowedRoot;
    this.clock = b.clock;
    this.queueCapacity = b.queueCapacity;
    this.workers = b.workers;
    this.sweepBatchSize = b.sweepBatchSize;
    this.sweepInterval = b.sweepInterval;
    this.shutdownTimeout = b.shutdownTimeout;
    this.backoff = b.backoff;
    this.listeners = List.copyOf(b.listeners);
    this.repackager = b.repackager;
    this.playbackRoot = b.playbackRoot;
    this.cutoff = b.cutoff;
    this.breakerFailures = b.breakerFailures;
    this.breakerOpenDelay = b.breakerDelay;
    this.nodeId = b.nodeId == null ? NodeIds.generate() : b.nodeId;
    this.leaseDuration = b.leaseDuration;
    this.stallTimeout = b.stallTimeout;
    this.maxAbandonedAttempts = b.maxAbandonedAttempts;
    this.maxErrorAttempts = b.maxErrorAttempts;
    this.abortUnfinishedUploadsAfter = b.abortUnfinishedUploadsAfter;
    this.retention = b.retention;
    this.publishPlaylists = b.publishPlaylists && b.repackager != null;
    this.liveWindowSegments = b.liveWindowSegments;
    this.fullPlaylistInterval = b.fullPlaylistInterval;
    this.storageGroup = b.storageGroup;
    this.localRetention = b.localRetention;
    this.uplink = b.uplink;
    this.lowDiskThreshold = b.lowDiskThreshold;
    this.tracing = b.tracing;
    // A new setting: a field above, copied here, an accessor below, its line in toString.
  }

  /** The ledger table ({@link LedgerBuilder#stateStore}). Required, no default. */
  public StateStore stateStore() {
    return stateStore;
  }

  /** The bucket ({@link LedgerBuilder#objectSink}). Required, no default. */
  public ObjectSink objectSink() {
    return objectSink;
  }

  /**
   * The only directory whose files may be uploaded, as given ({@link LedgerBuilder#allowedRoot});
   * the ledger resolves it to its real path when built. Required, no default.
   */
  public Path allowedRoot() {
    return allowedRoot;
  }

  /**
   * The source of time for rows, backoff and cutoff ({@link LedgerBuilder#clock}). Default: {@link
   * Clock#systemUTC()}.
   */
  public Clock clock() {
    return clock;
  }

  /**
   * Capacity of the in-memory queue ({@link LedgerBuilder#queueCapacity}). Default {@value
   * LedgerBuilder#DEFAULT_QUEUE_CAPACITY}.
   */
  public int queueCapacity() {
    return queueCapacity;
  }

  /**
   * Number of upload worker threads ({@link LedgerBuilder#workers}). Default {@value
   * LedgerBuilder#DEFAULT_WORKERS}.
   */
  public int workers() {
    return workers;
  }

  /**
   * Rows read per axis per sweep round ({@link LedgerBuilder#sweepBatchSize}). Default {@value
   * LedgerBuilder#DEFAULT_SWEEP_BATCH_SIZE}.
   */
  public int sweepBatchSize() {
    return sweepBatchSize;
  }

  /** Pause between sweep rounds ({@link LedgerBuilder#sweepInterval}). Default 1 second. */
  public Duration sweepInterval() {
    return sweepInterval;
  }

  /**
   * How long {@link Ledger#close()} waits for in-flight uploads ({@link
   * LedgerBuilder#shutdownTimeout}). Default 30 seconds.
   */
  public Duration shutdownTimeout() {
    return shutdownTimeout;
  }

  /**
   * Backoff between failed attempts of one row ({@link LedgerBuilder#backoff}). Default {@link
   * Backoff#DEFAULT}.
   */
  public Backoff backoff() {
    return backoff;
  }

  /**
   * The listeners, in the order they were added ({@link LedgerBuilder#listener}); unmodifiable.
   * Default: none.
   */
  public List<LedgerListener> listeners() {
    return listeners;
  }

  /**
   * The repackager of the PLAYBACK and INIT axes ({@link LedgerBuilder#repackager}). Default: none,
   * only ORIGINAL rows.
   */
  public Optional<Repackager> repackager() {
    return Optional.ofNullable(repackager);
  }

  /** Where the repackager's files are written, present with a {@link #repackager()}. Default: none. */
  public Optional<Path> playbackRoot() {
    return Optional.ofNullable(playbackRoot);
  }

  /**
   * How old an unconfirmed row may be before it is excluded ({@link LedgerBuilder#cutoff}).
   * Default: none.
   */
  public Optional<Duration> cutoff() {
    return Optional.ofNullable(cutoff);
  }

  /**
   * Failures in a row that open the circuit breaker ({@link LedgerBuilder#circuitBreaker}). Default
   * {@value LedgerBuilder#DEFAULT_BREAKER_FAILURES}.
   */
  public int breakerFailures() {
    return breakerFailures;
  }

  /**
   * How long the open circuit breaker waits, at most, before a probe ({@link
   * LedgerBuilder#circuitBreaker}). Default 10 seconds.
   */
  public Duration breakerOpenDelay() {
    return breakerOpenDelay;
  }

  /**
   * This instance's name as owner of its leases ({@link LedgerBuilder#nodeId}): the one given, or
   * the one generated when the ledger was built ({@code <hostname>-<pid>-<random>}).
   */
  public String nodeId() {
    return nodeId;
  }

  /**
   * How long a lease keeps other instances from a row ({@link LedgerBuilder#leaseDuration}).
   * Default 2 minutes.
   */
  public Duration leaseDuration() {
    return leaseDuration;
  }

  /**
   * How long an attempt may make no progress before it is cancelled ({@link
   * LedgerBuilder#stallTimeout}). Default 5 minutes.
   */
  public Duration stallTimeout() {
    return stallTimeout;
  }

  /**
   * Attempts blamed for the death of their process before a row is rejected
   * ({@link LedgerBuilder#maxAbandonedAttempts}). Default {@value LedgerBuilder#DEFAULT_MAX_ABANDONED_ATTEMPTS}.
   */
  public int maxAbandonedAttempts() {
    return maxAbandonedAttempts;
  }

  /**
   * Failures with an internal or repackager error before a row is rejected
   * ({@link LedgerBuilder#maxErrorAttempts}). Default {@value LedgerBuilder#DEFAULT_MAX_ERROR_ATTEMPTS}.
   */
  public int maxErrorAttempts() {
    return maxErrorAttempts;
  }

  /**
   * How old an unfinished upload must be for reconcile-and-repair to abort it
   * ({@link LedgerBuilder#abortUnfinishedUploadsAfter}). Default 1 day.
   */
  public Duration abortUnfinishedUploadsAfter() {
    return abortUnfinishedUploadsAfter;
  }

  /**
   * How long after its end a complete broadcast's rows are kept ({@link LedgerBuilder#retention}).
   * Default: none, never purged.
   */
  public Optional<Duration> retention() {
    return Optional.ofNullable(retention);
  }

  /**
   * Whether playlists are published ({@link LedgerBuilder#publishPlaylists}): what was set, and only
   * with a {@link #repackager()}. Default {@code true} with a repackager, {@code false} without.
   */
  public boolean publishPlaylists() {
    return publishPlaylists;
  }

  /**
   * The fewest segments of a live window playlist ({@link LedgerBuilder#liveWindowSegments}).
   * Default {@value LedgerBuilder#DEFAULT_LIVE_WINDOW_SEGMENTS}.
   */
  public int liveWindowSegments() {
    return liveWindowSegments;
  }

  /**
   * The shortest time between two PUTs of a live full media playlist ({@link
   * LedgerBuilder#fullPlaylistInterval}). Default 30 seconds.
   */
  public Duration fullPlaylistInterval() {
    return fullPlaylistInterval;
  }

  /**
   * The storage group whose rows this node uploads ({@link LedgerBuilder#storageGroup}). Default:
   * none, shared storage.
   */
  public Optional<String> storageGroup() {
    return Optional.ofNullable(storageGroup);
  }

  /**
   * How long after its confirm an original's local file is deleted ({@link
   * LedgerBuilder#localRetention}). Default: none, never.
   */
  public Optional<Duration> localRetention() {
    return Optional.ofNullable(localRetention);
  }

  /**
   * How this node shares its uplink as built: lanes, reserved shares and bandwidth cap ({@link
   * LedgerBuilder#uplink}; a running ledger's current one is {@link Ledger#uplink()}). Default:
   * {@link Uplink#DEFAULT}.
   */
  public Uplink uplink() {
    return uplink;
  }

  /**
   * Free bytes of the allowed root's file store below which the disk is low ({@link
   * LedgerBuilder#lowDiskThreshold}). Default 0: none.
   */
  public long lowDiskThreshold() {
    return lowDiskThreshold;
  }

  /** Where spans go ({@link LedgerBuilder#tracing}). Default {@link Tracing#NONE}. */
  public Tracing tracing() {
    return tracing;
  }

  /** Whether PLAYBACK and INIT rows are produced for each original: with a {@link #repackager()}. */
  public boolean repackaging() {
    return repackager != null;
  }

  /**
   * Derived: the time between two heartbeats of this node, which renew its leases and measure
   * stalls: a tenth of the {@link #leaseDuration()}, at most 1 second, at least 10 ms.
   */
  public Duration heartbeatInterval() {
    return heartbeatInterval(leaseDuration);
  }

  /**
   * Derived: the skew between this node's clock and the store's beyond which a warning is logged: a
   * tenth of the {@link #leaseDuration()}, at least 1 second.
   */
  public Duration clockSkewWarning() {
    Duration tenth = leaseDuration.dividedBy(10);
    return tenth.compareTo(Duration.ofSeconds(1)) < 0 ? Duration.ofSeconds(1) : tenth;
  }

  /**
   * Derived: the time between two purge rounds, with a {@link #retention()}: a tenth of it, at least
   * 1 minute, at most 1 hour.
   */
  public Optional<Duration> purgeInterval() {
    if (retention == null) {
      return Optional.empty();
    }
    Duration tenth = retention.dividedBy(10);
    Duration minute = Duration.ofMinutes(1);
    Duration hour = Duration.ofHours(1);
    return Optional.of(tenth.compareTo(minute) < 0 ? minute : tenth.compareTo(hour) > 0 ? hour : tenth);
  }

  static Duration heartbeatInterval(Duration leaseDuration) {
    Duration tenth = leaseDuration.dividedBy(10);
    Duration tick = tenth.compareTo(Duration.ofSeconds(1)) < 0 ? tenth : Duration.ofSeconds(1);
    return tick.compareTo(Duration.ofMillis(10)) < 0 ? Duration.ofMillis(10) : tick;
  }

  /** The settings a started ledger logs, in one line (no collaborator, no credential). */
  @Override
  public String toString() {
    return workers + " workers, queue capacity " + queueCapacity + ", sweep batch " + sweepBatchSize + " every "
        + sweepInterval + ", lease " + leaseDuration + " (heartbeat every " + heartbeatInterval()
        + "), stall timeout " + stallTimeout + ", retention " + (retention == null ? "off" : retention)
        + ", playlists " + (publishPlaylists ? "published (live window " + liveWindowSegments
            + " segments, full playlist every " + fullPlaylistInterval + ")" : "off")
        + ", storage group " + (storageGroup == null ? "none (shared storage)" : storageGroup)
        + ", local retention of originals " + (localRetention == null ? "off" : localRetention)
        + ", uplink " + uplink;
  }
}
