package dev.segmentledger.core;

import dev.segmentledger.core.internal.DefaultLedger;
import dev.segmentledger.core.spi.ObjectSink;
import dev.segmentledger.core.spi.Repackager;
import dev.segmentledger.core.spi.StateStore;
import dev.segmentledger.core.spi.Tracing;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import org.slf4j.LoggerFactory;

/**
 * Builds a {@link Ledger}. Each {@code build} call copies the settings into an immutable
 * {@link LedgerSettings} (the ledger's {@link Ledger#settings()}), so a builder may be reused; a builder itself is not thread-safe.
 *
 * <p>Required: {@link #stateStore}, {@link #objectSink} and {@link #allowedRoot}.
 */
public final class LedgerBuilder {
  // Package-private: LedgerSettings copies them on build.
  StateStore stateStore;
  ObjectSink objectSink;
  Path allowedRoot;
  Clock clock = Clock.systemUTC();
  int queueCapacity = DEFAULT_QUEUE_CAPACITY;
  int workers = DEFAULT_WORKERS;
  int sweepBatchSize = DEFAULT_SWEEP_BATCH_SIZE;
  Duration sweepInterval = DEFAULT_SWEEP_INTERVAL;
  Duration shutdownTimeout = DEFAULT_SHUTDOWN_TIMEOUT;
  Backoff backoff = Backoff.DEFAULT;
  final List<LedgerListener> listeners = new ArrayList<>();
  Repackager repackager;
  Path playbackRoot;
  Duration cutoff;
  int breakerFailures = DEFAULT_BREAKER_FAILURES;
  Duration breakerDelay = DEFAULT_BREAKER_OPEN_DELAY;
  String nodeId;
  Duration leaseDuration = DEFAULT_LEASE;
  int maxAbandonedAttempts = DEFAULT_MAX_ABANDONED_ATTEMPTS;
  Duration abortUnfinishedUploadsAfter = Reconciler.DEFAULT_ABORT_UNFINISHED_AFTER;
  Duration retention;
  boolean publishPlaylists = true;
  int liveWindowSegments = DEFAULT_LIVE_WINDOW_SEGMENTS;
  Duration fullPlaylistInterval = DEFAULT_FULL_PLAYLIST_INTERVAL;
  String storageGroup;
  long lowDiskThreshold;
  Duration localRetention;
  Uplink uplink = Uplink.DEFAULT;
  Duration stallTimeout = DEFAULT_STALL_TIMEOUT;
  int maxErrorAttempts = DEFAULT_MAX_ERROR_ATTEMPTS;
  Tracing tracing = Tracing.NONE;

  /** The default {@link #queueCapacity}: 256. */
  public static final int DEFAULT_QUEUE_CAPACITY = 256;
  /** The default number of {@link #workers}: 4. */
  public static final int DEFAULT_WORKERS = 4;
  /** The default {@link #sweepBatchSize}: 128. */
  public static final int DEFAULT_SWEEP_BATCH_SIZE = 128;
  /** The default {@link #sweepInterval}: 1 second. */
  public static final Duration DEFAULT_SWEEP_INTERVAL = Duration.ofSeconds(1);
  /** The default {@link #shutdownTimeout}: 30 seconds. */
  public static final Duration DEFAULT_SHUTDOWN_TIMEOUT = Duration.ofSeconds(30);
  /** The default failures in a row that open the {@link #circuitBreaker}: 5. */
  public static final int DEFAULT_BREAKER_FAILURES = 5;
  /** The default open delay of the {@link #circuitBreaker}: 10 seconds. */
  public static final Duration DEFAULT_BREAKER_OPEN_DELAY = Duration.ofSeconds(10);
  /** The default {@link #leaseDuration}: 2 minutes. */
  public static final Duration DEFAULT_LEASE = Duration.ofMinutes(2);
  /** The longest {@link #nodeId}, in characters. */
  public static final int MAX_NODE_ID_LENGTH = 200;

  LedgerBuilder() {}

  /** The ledger table. Required. */
  public LedgerBuilder stateStore(StateStore stateStore) {
    this.stateStore = Objects.requireNonNull(stateStore, "stateStore");
    return this;
  }

  /** The bucket. Required. */
  public LedgerBuilder objectSink(ObjectSink objectSink) {
    this.objectSink = Objects.requireNonNull(objectSink, "objectSink");
    return this;
  }

  /**
   * The only directory whose files may be uploaded. It is resolved to its real path when the
   * ledger is built (a relative {@code allowedRoot} against the working directory); a file whose
   * real path is not inside it is never uploaded. Required.
   *
   * <p>Paths given to {@link Ledger#register} and {@link Ledger#registerAll}, and the playback
   * root of {@link #repackager}, are resolved against this root when relative, <em>not</em>
   * against the working directory: {@code Path.of("b42/720p/7.ts")} means that file below the root.
   *
   * <p>The boundary is decided by real path, so it cannot see a hard link: a hard link inside the
   * root to a file outside it <em>is</em> a file inside the root, and is uploaded (so is anything
   * under a mount point inside the root). Give the recorder a root of its own, writable only by
   * the recorder, on its own filesystem (a hard link cannot cross filesystems), and mount nothing
   * below it; the checks make mistakes and symlinks inside the root harmless, not a writer that
   * should not be there.
   *
   * <p>If the directory at the root's real path is replaced while the ledger runs (renamed away
   * and re-created, remounted), the ledger re-opens it when the path names a directory without
   * any symlink on the way (and, if the root was a mount point, is one again), and reports it
   * ({@link LedgerListener#onAllowedRootReopened}); if the path is missing, a symlink, leads through
   * one, or is the bare mount point left by an unmount, every file is refused with
   * {@link Reason#ROOT_REPLACED} until it is usable again (a registration with
   * {@link RootReplacedException}, no row written).
   */
  public LedgerBuilder allowedRoot(Path allowedRoot) {
    this.allowedRoot = Objects.requireNonNull(allowedRoot, "allowedRoot");
    return this;
  }

  /** The source of time for rows, backoff and cutoff. Default: {@link Clock#systemUTC()}. */
  public LedgerBuilder clock(Clock clock) {
    this.clock = Objects.requireNonNull(clock, "clock");
    return this;
  }

  /** Capacity of the bounded in-memory queue. Default {@value #DEFAULT_QUEUE_CAPACITY}. */
  public LedgerBuilder queueCapacity(int queueCapacity) {
    this.queueCapacity = requirePositive("queueCapacity", queueCapacity);
    return this;
  }

  /** Number of upload worker threads. Default {@value #DEFAULT_WORKERS}. */
  public LedgerBuilder workers(int workers) {
    this.workers = requirePositive("workers", workers);
    return this;
  }

  /** Rows read per axis per sweep round. Default {@value #DEFAULT_SWEEP_BATCH_SIZE}. */
  public LedgerBuilder sweepBatchSize(int sweepBatchSize) {
    this.sweepBatchSize = requirePositive("sweepBatchSize", sweepBatchSize);
    return this;
  }

  /** Pause between sweep rounds. Default 1 second. */
  public LedgerBuilder sweepInterval(Duration sweepInterval) {
    this.sweepInterval = requirePositive("sweepInterval", sweepInterval);
    return this;
  }

  /**
   * How long {@link Ledger#close()} waits for in-flight uploads before it cancels them (a
   * cancelled upload is no failure of its row; it is claimable again at once). Default 30 seconds.
   */
  public LedgerBuilder shutdownTimeout(Duration shutdownTimeout) {
    this.shutdownTimeout = requirePositive("shutdownTimeout", shutdownTimeout);
    return this;
  }

  /** Backoff between failed attempts of one row. Default {@link Backoff#DEFAULT}. */
  public LedgerBuilder backoff(Backoff backoff) {
    this.backoff = Objects.requireNonNull(backoff, "backoff");
    return this;
  }

  /** Adds a listener for accept, store, confirm and failure events. */
  public LedgerBuilder listener(LedgerListener listener) {
    listeners.add(Objects.requireNonNull(listener, "listener"));
    return this;
  }

  /**
   * Enables the PLAYBACK and INIT axes: each registered original is repackaged by
   * {@code repackager} into files under {@code playbackRoot}, which must lie inside the allowed
   * root. Without a repackager only the ORIGINAL axis is used.
   */
  public LedgerBuilder repackager(Repackager repackager, Path playbackRoot) {
    this.repackager = Objects.requireNonNull(repackager, "repackager");
    this.playbackRoot = Objects.requireNonNull(playbackRoot, "playbackRoot");
    return this;
  }

  /**
   * Rows registered longer ago than {@code cutoff} and still unconfirmed are excluded from
   * recovery: marked {@link ItemState#EXCLUDED} with {@link Reason#PAST_CUTOFF} (terminal,
   * counted, never deleted). Default: no cutoff, unconfirmed rows are retried for ever.
   */
  public LedgerBuilder cutoff(Duration cutoff) {
    this.cutoff = requirePositive("cutoff", cutoff);
    return this;
  }

  /**
   * The circuit breaker around the sink: after {@code consecutiveFailures} transient or
   * configuration sink failures ({@link Reason#SINK_TRANSIENT}, {@link Reason#SINK_CONFIGURATION})
   * in a row it opens, and logs and reports its cause once ({@link LedgerListener#onCircuitOpened}); workers stop taking work and the sweeper stops accepting for
   * a random time between half of {@code openDelay} and {@code openDelay} (random so that probes do
   * not fall in step with an endpoint that flaps); then one probe upload closes it (or re-opens it). Rows are never touched by
   * the breaker. Default: 5 failures, 10 seconds. The delay is measured by Failsafe on the
   * monotonic system timer, not the ledger's clock.
   */
  public LedgerBuilder circuitBreaker(int consecutiveFailures, Duration openDelay) {
    this.breakerFailures = requirePositive("consecutiveFailures", consecutiveFailures);
    this.breakerDelay = requirePositive("openDelay", openDelay);
    return this;
  }

  /**
   * The name of this ledger instance among all instances sharing one store: the owner of the
   * leases it takes. Must be unique among live instances; two instances with one id would treat
   * each other's leases as their own. Default: {@code <hostname>-<pid>-<random>}, a new one per
   * build. At most {@value #MAX_NODE_ID_LENGTH} characters, not blank.
   */
  public LedgerBuilder nodeId(String nodeId) {
    Objects.requireNonNull(nodeId, "nodeId");
    if (nodeId.isBlank() || nodeId.length() > MAX_NODE_ID_LENGTH) {
      throw new IllegalArgumentException("nodeId must be 1.." + MAX_NODE_ID_LENGTH + " characters and not blank");
    }
    this.nodeId = nodeId;
    return this;
  }

  /**
   * How long a lease keeps other ledger instances from a row, past the last sign of life of the
   * attempt that holds it. A worker claims the row right before its work; while the attempt lives
   * (repackaging, a single PUT, a multipart upload however long), its node's heartbeat renews the
   * lease, every tenth of this duration (at most every second), in one statement for all its
   * attempts; the lease ends when the row is confirmed or its failure recorded. So the lease expires
   * only when its node died or froze: then it delays the row by at most this long, and another
   * instance's sweeper uploads it again (to the same key; a multipart upload continues where it
   * stopped; the confirm is a compare-and-set, so correctness never depends on the lease).
   *
   * <p>It must exceed the longest pause of a live node (a long garbage collection, a stalled
   * database connection during which renewals fail) plus the clock difference between nodes. A
   * slow upload does not need a longer lease: see {@link #stallTimeout}. Default
   * {@link #DEFAULT_LEASE} (2 minutes).
   *
   * <p>A row this instance registers and queues itself is leased to it from its insertion, for at
   * most 10 seconds (less if this duration is shorter), which saves the claim statement when a
   * worker takes it soon after. If the instance dies before uploading such rows, an instance with
   * the same {@link #nodeId} takes them back when it starts; any other instance finds them when
   * that short lease expires.
   */
  public LedgerBuilder leaseDuration(Duration leaseDuration) {
    this.leaseDuration = requirePositive("leaseDuration", leaseDuration);
    return this;
  }

  /** The default {@link #stallTimeout}: 5 minutes. */
  public static final Duration DEFAULT_STALL_TIMEOUT = Duration.ofMinutes(5);

  /**
   * How long an attempt may make no progress before its own node cancels it. Progress is any byte
   * the sink reads from the file or reports stored, and any growth of the repackager's output; an
   * attempt without any for this long (a hung connection, a frozen server, a repackager that stopped
   * writing) is cancelled: its open file is closed, its worker interrupted, and the row is recorded
   * as {@link Reason#STALLED} and retried after backoff. Choose it longer than the longest silent
   * phase of a healthy attempt: the completion of a multipart upload of your largest original, and
   * a repackager's probe (it writes nothing while it reads). A socket write blocked for ever inside
   * the sink's HTTP client is not undone by the cancellation: bound it with the client's own request
   * timeout (for the AWS SDK, {@code apiCallAttemptTimeout}). Default
   * {@link #DEFAULT_STALL_TIMEOUT}.
   */
  public LedgerBuilder stallTimeout(Duration stallTimeout) {
    this.stallTimeout = requirePositive("stallTimeout", stallTimeout);
    return this;
  }

  /** The default {@link #maxAbandonedAttempts}: 5. */
  public static final int DEFAULT_MAX_ABANDONED_ATTEMPTS = 5;

  /**
   * How many attempts on one row may be <em>blamed</em> for the death of their process before the
   * row is rejected with {@link Reason#REPEATEDLY_ABANDONED}. An attempt that ends without an
   * outcome (its process died, or froze past its lease) is counted when the next attempt takes the
   * row over ({@link Reason#ATTEMPT_ABANDONED}), weighed by its evidence: one that stored more of its
   * object made progress and is never held against the row; one that made none, beside other work,
   * makes the row a suspect after two, and a suspect is uploaded alone in its process; only a death
   * during such a lone attempt without progress is blamed on the row, and retried after the usual
   * {@linkplain #backoff backoff} for that many. Before the row is rejected, the bucket is checked:
   * an identical object stored already confirms it instead. A re-opened row starts again from
   * zero. Failures that are recorded (a sink error, a missing file) do not count here. Default
   * {@value #DEFAULT_MAX_ABANDONED_ATTEMPTS}.
   */
  public LedgerBuilder maxAbandonedAttempts(int maxAbandonedAttempts) {
    this.maxAbandonedAttempts = requirePositive("maxAbandonedAttempts", maxAbandonedAttempts);
    return this;
  }

  /** The default {@link #maxErrorAttempts}: 10. */
  public static final int DEFAULT_MAX_ERROR_ATTEMPTS = 10;

  /**
   * After how many failures with that reason a row whose failure is {@link Reason#INTERNAL_ERROR} or
   * {@link Reason#REPACKAGE_FAILED} ends {@link ItemState#REJECTED} with that reason instead of being
   * retried again. Both are retried with backoff, because the ledger cannot tell a passing cause
   * from a lasting one; a row that keeps failing this way is a fault to look at, not to retry for
   * ever. The count is of that reason's failures only, since the row was registered or last
   * {@linkplain Ledger#reopen re-opened} ({@link dev.segmentledger.core.spi.StateStore#failuresWith}):
   * its other failures and abandoned attempts, and failures of the store itself, never count. Default
   * {@value #DEFAULT_MAX_ERROR_ATTEMPTS}.
   */
  public LedgerBuilder maxErrorAttempts(int maxErrorAttempts) {
    this.maxErrorAttempts = requirePositive("maxErrorAttempts", maxErrorAttempts);
    return this;
  }

  /**
   * How old an unfinished upload (a multipart upload of a killed process) must be for {@link
   * Ledger#reconcileAndRepair} to abort it, measured on this builder's clock from the initiation
   * time the sink reports. Choose it well above the longest upload plus the clock difference to the
   * object store. Default {@link Reconciler#DEFAULT_ABORT_UNFINISHED_AFTER} (1 day). See {@link
   * Reconciler#create(StateStore, ObjectSink, Clock, Duration)}.
   */
  public LedgerBuilder abortUnfinishedUploadsAfter(Duration age) {
    this.abortUnfinishedUploadsAfter = requirePositive("abortUnfinishedUploadsAfter", age);
    return this;
  }

  /**
   * Retention: the rows of a complete broadcast (ended, every row CONFIRMED, REJECTED or EXCLUDED)
   * are deleted once it ended more than {@code retention} ago, by this builder's clock. Rows of a
   * live broadcast, of an ended one with a row still to upload, and every unconfirmed row are never
   * deleted; the broadcast record is kept, so a late registration under its id is still refused.
   * Objects in the bucket are never touched. See
   * {@link dev.segmentledger.core.spi.StateStore#purge} for the exact policy.
   *
   * <p>A started ledger purges in rounds on a thread of its own (every tenth of the retention,
   * between one minute and one hour apart), 1,000 rows per short
   * transaction, 50 ms apart; {@link Ledger#purge()} runs a round now. Every node may run it:
   * purges are idempotent and never delete a row the policy keeps. Choose it longer than the time
   * within which you reconcile a broadcast ({@link Ledger#reconcile}): a purged broadcast has no
   * rows left to reconcile. Default: off, no row is ever deleted.
   *
   * @throws IllegalArgumentException if {@code retention} is not positive
   */
  public LedgerBuilder retention(Duration retention) {
    this.retention = requirePositive("retention", retention);
    return this;
  }

  /**
   * Whether the ledger publishes HLS playlists to the bucket when it repackages: a media playlist
   * per rendition ({@link ObjectKeys#mediaPlaylistKey}) with its live window
   * ({@link ObjectKeys#liveMediaPlaylistKey}), and a multivariant playlist per broadcast
   * ({@link ObjectKeys#multivariantPlaylistKey}) with its live counterpart
   * ({@link ObjectKeys#liveMultivariantPlaylistKey}), listing only confirmed segments (terminal ones
   * as gaps), republished as rows are confirmed ({@link #fullPlaylistInterval}), and never going
   * backwards. Publication is part of the
   * ledger: its state is in the store, recovered after a crash like every upload. Default
   * {@code true}; it has no effect without a {@link #repackager}.
   */
  public LedgerBuilder publishPlaylists(boolean publishPlaylists) {
    this.publishPlaylists = publishPlaylists;
    return this;
  }

  /** The default {@link #liveWindowSegments}: 6. */
  public static final int DEFAULT_LIVE_WINDOW_SEGMENTS = 6;

  /** The default {@link #fullPlaylistInterval}: 30 seconds. */
  public static final Duration DEFAULT_FULL_PLAYLIST_INTERVAL = Duration.ofSeconds(30);

  /**
   * The fewest segments a rendition's live window playlist ({@link ObjectKeys#liveMediaPlaylistKey})
   * lists: its last entries, extended back until they last at least three target durations (the
   * distance from the live edge a player keeps). More segments make a player tolerate a longer
   * stall of the uploads; fewer make the live playlist smaller. Default
   * {@value #DEFAULT_LIVE_WINDOW_SEGMENTS}.
   *
   * @throws IllegalArgumentException if {@code segments} is less than 3
   */
  public LedgerBuilder liveWindowSegments(int segments) {
    if (segments < 3) {
      throw new IllegalArgumentException("liveWindowSegments must be >= 3, got " + segments);
    }
    this.liveWindowSegments = segments;
    return this;
  }

  /**
   * The shortest time between two PUTs of a live broadcast's full media playlist
   * ({@link ObjectKeys#mediaPlaylistKey}, an EVENT playlist listing every segment so far): between
   * them a publication PUTs only the rendition's live window, and the full playlist follows at the
   * latest one interval after the change, on any node. The final (VOD) playlist is PUT at once. A
   * full playlist grows with the broadcast (42 bytes per segment, 92 with recording times), so
   * this interval bounds its PUT bytes per hour: see docs/bucket.md for the formula. Zero PUTs it at
   * every publication (the behaviour before the live window). Default 30 seconds: a player reading
   * the full playlist (from the start, DVR) is at most about 30 s behind one reading the live
   * window, while a 6-hour broadcast of 4 s segments with recording times PUTs about 180 MB of
   * full playlists per rendition instead of about 1.3 GB (one full PUT per segment).
   *
   * @throws IllegalArgumentException if {@code interval} is negative
   */
  public LedgerBuilder fullPlaylistInterval(Duration interval) {
    Objects.requireNonNull(interval, "fullPlaylistInterval");
    if (interval.isNegative()) {
      throw new IllegalArgumentException("fullPlaylistInterval must be >= 0, got " + interval);
    }
    this.fullPlaylistInterval = interval;
    return this;
  }

  /**
   * The storage group of this node: the nodes that can read the files this node registers (the
   * hosts sharing its disk, or just this host). Rows this node registers carry its group (their
   * PLAYBACK and INIT rows too: they are made from the original's file), and this node sweeps,
   * claims and uploads only rows of its group and rows of no group. Give every host with a local
   * disk a group of its own (for example its host name) and every node on one host or one shared
   * mount the same group. A group's rows wait while no node of the group runs, and are never
   * rejected for it; a host gone for good is handed over explicitly ({@link Ledger#handOver},
   * {@link Ledger#markStorageLost}). Playlists, retention and reconciliation read no file and run
   * on any node.
   *
   * <p>Default: none, for storage every node can read (one host, or a shared filesystem mounted at
   * the same path everywhere): this node uploads the rows of no group, which are all rows when no
   * node has a group. Validated like a broadcast id ({@link Identifiers}).
   *
   * @throws IllegalArgumentException if {@code storageGroup} is not a valid identifier
   */
  public LedgerBuilder storageGroup(String storageGroup) {
    this.storageGroup = Identifiers.requireValid("storageGroup", storageGroup);
    return this;
  }

  /**
   * Opt-in local retention of originals: the recorded file of an ORIGINAL row is deleted from the
   * recorder's disk {@code localRetention} after its row and every PLAYBACK and INIT row made from it
   * were confirmed (by this builder's clock). Default: off, originals are never deleted (the
   * PLAYBACK and INIT files the ledger produced itself are deleted once confirmed, whatever this says).
   *
   * <p>What it guarantees: never a file whose row is not confirmed (nor one a derived row still
   * needs); never a file that is not the registered one (read without following a link, it must be a
   * regular file of the recorded size and file identity; a row registered without an identity is
   * never deleted); never outside the allowed root, never through a link; only by a node of the
   * row's own storage group (the group that owns the disk); durable and idempotent (the row records
   * that its file is handled). A refusal is logged and counted in {@link LedgerStats.LocalDisk#refused()};
   * those {@linkplain LocalFileRefusal#isFinal() final} (a link, not a regular file, not the recorded
   * file) leave the file for good, the others (another unconfirmed row registered with the same
   * file, an I/O error, a replaced root, a missing directory) are tried again by a later sweep. The
   * row is read again right before the unlink: a row re-opened meanwhile keeps its file. The sweep
   * deletes one page per round, read from an index of the candidates. A started ledger refuses to
   * start on a store that does not implement it
   * ({@link dev.segmentledger.core.spi.StateStore#findOriginalsToRemove}). Rows are purged by
   * {@link #retention} regardless; set it longer than this (the build logs a warning otherwise).
   *
   * @throws IllegalArgumentException if {@code localRetention} is not positive
   */
  public LedgerBuilder localRetention(Duration localRetention) {
    this.localRetention = requirePositive("localRetention", localRetention);
    return this;
  }

  /**
   * The free space of the allowed root's file store below which the recorder's disk is low: the
   * ledger then reports itself degraded with the named cause {@code LOW_DISK}
   * ({@link LedgerStats.LocalDisk#lowDisk()}, the Micrometer meters, the Spring Boot health, the
   * console and the CLI status). It keeps uploading as before; the cause is for the operator, who
   * may have to stop recording before the disk is full. The free space is read ({@code statvfs}) each
   * time the stats are read. Default 0: no threshold.
   *
   * @param bytes the threshold in bytes, &gt;= 0; 0 turns it off
   * @throws IllegalArgumentException if {@code bytes} is negative
   */
  public LedgerBuilder lowDiskThreshold(long bytes) {
    if (bytes < 0) {
      throw new IllegalArgumentException("lowDiskThreshold must be >= 0 bytes, got " + bytes);
    }
    this.lowDiskThreshold = bytes;
    return this;
  }

  /**
   * Where the ledger reports its spans (see {@link Tracing}): a registration, each upload attempt
   * with its repackage, PUT, multipart parts and confirm, and each playlist publication. The
   * context of a registration's span is stored with its rows, so the upload continues the
   * registration's trace on whichever node and after whatever restart. The micrometer module's
   * {@code ObservationTracing} reports them as Micrometer Observations (the Spring Boot starter
   * wires it when an {@code ObservationRegistry} is present). Default {@link Tracing#NONE}.
   */
  public LedgerBuilder tracing(Tracing tracing) {
    this.tracing = Objects.requireNonNull(tracing, "tracing");
    return this;
  }

  /**
   * How this node shares its uplink: the priority lanes work is taken in ({@link Lane}) with their
   * reserved shares, and the bandwidth cap over the request bodies it sends. Changeable at run time
   * with {@link Ledger#uplink(Uplink)}. Default {@link Uplink#DEFAULT}: lanes, no cap.
   */
  public LedgerBuilder uplink(Uplink uplink) {
    this.uplink = Objects.requireNonNull(uplink, "uplink");
    return this;
  }

  /** Builds a ledger with background workers and sweeper, started by {@link Ledger#start()}. */
  public Ledger build() {
    return new DefaultLedger(settings(), false);
  }

  /** Builds a ledger without background threads, driven by the caller (tests, tools). */
  public ManualLedger buildManual() {
    return new DefaultLedger(settings(), true);
  }

  /** Checks the settings and copies them: the ledger's {@link LedgerSettings}. */
  private LedgerSettings settings() {
    requireFits();
    if (stateStore == null) {
      throw new IllegalStateException("stateStore is required");
    }
    if (objectSink == null) {
      throw new IllegalStateException("objectSink is required");
    }
    if (allowedRoot == null) {
      throw new IllegalStateException("allowedRoot is required");
    }
    return new LedgerSettings(this);
  }

  /**
   * Refuses a stall timeout the heartbeat cannot measure, and warns about a repackager whose runs
   * may be silent for longer than the stall timeout.
   */
  private void requireFits() {
    Duration tick = LedgerSettings.heartbeatInterval(leaseDuration);
    if (stallTimeout.compareTo(tick.multipliedBy(2)) < 0) {
      throw new IllegalStateException("stallTimeout " + stallTimeout + " is shorter than two heartbeats ("
          + tick.multipliedBy(2) + " with leaseDuration " + leaseDuration + "): no stall could be measured");
    }
    if (retention != null && localRetention != null && retention.compareTo(localRetention) <= 0) {
      LoggerFactory.getLogger(LedgerBuilder.class).warn("retention {} is not longer than localRetention {}: the"
          + " rows of a broadcast may be purged before local retention deletes their originals, whose files then"
          + " stay on the recorder's disk; make the retention well above the local retention", retention,
          localRetention);
    }
    if (repackager != null) {
      repackager.timeout().filter(timeout -> timeout.compareTo(stallTimeout) > 0).ifPresent(timeout ->
          LoggerFactory.getLogger(LedgerBuilder.class).warn("the repackager's timeout {} is longer than the stall"
              + " timeout {}: a repackager run that writes nothing for longer than {} (a probe of a long original)"
              + " is cancelled as stalled before its own timeout; make the stall timeout at least the repackager's"
              + " timeout", timeout, stallTimeout, stallTimeout));
    }
  }

  private static int requirePositive(String name, int value) {
    if (value <= 0) {
      throw new IllegalArgumentException(name + " must be > 0, got " + value);
    }
    return value;
  }

  private static Duration requirePositive(String name, Duration value) {
    Objects.requireNonNull(value, name);
    if (value.isNegative() || value.isZero()) {
      throw new IllegalArgumentException(name + " must be > 0, got " + value);
    }
    return value;
  }
}
