package dev.segmentledger.core.internal;

import dev.segmentledger.core.LedgerStats;
import dev.segmentledger.core.Reconciler;
import dev.segmentledger.core.ReconciliationReport;
import dev.segmentledger.core.Uplink;
import dev.segmentledger.core.spi.StateStore;
import java.io.IOException;
import java.nio.file.Files;
import java.time.Clock;
import java.time.Duration;
import java.util.Objects;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The parts of one ledger, wired, and their lifecycle: what {@link DefaultLedger} drives.
 *
 * <p>Design note. Each part gets the few values it uses from the {@link LedgerConfig}, never the
 * whole configuration, and the runtime {@link Signals} instead of callbacks into the facade. Start
 * takes back this node's leases and starts the threads (heartbeat, workers, sweeps, retention,
 * playlist rounds); close stops them in the reverse order of need: sweeps first (no new work),
 * then the workers, the last confirms, the heartbeat (which kept the leases of the confirms in
 * flight) and the playlist rounds (which publish what those confirms changed). Thread-safe.
 */
final class Engine {
  private static final Logger log = LoggerFactory.getLogger(Engine.class);
  /** How long a suspect row waits for the other work in flight to end before it tries again later. */
  static final Duration SUSPECT_PATIENCE = Duration.ofSeconds(10);

  final LedgerConfig config;
  final StateStore store;
  final Clock clock;
  final Signals signals = new Signals();
  final PathGuard guard;
  final Events events;
  final WorkQueue queue;
  final LaneOf lanes;
  final Throttle throttle;
  private volatile Uplink uplink;
  final SinkBreaker breaker;
  final StoreClock storeClock;
  final Leases leases;
  final Heartbeat heartbeat;
  final Registrar registrar;
  final Confirmer confirmer;
  final WorkerPool workers;
  final Sweeper sweeper;
  final SweepScheduler sweeps;
  final Reopener reopener;
  final StorageGroups groups;
  final Reconciler reconciler;
  final LocalOutputs outputs;
  final LocalOriginals originals; // null without a local retention
  final Retainer retainer; // null without a retention
  final PlaylistPublisher playlists; // this and the next: null without playlist publication
  final PlaylistScheduler playlistRounds;

  Engine(LedgerConfig config) {
    this.config = Objects.requireNonNull(config, "config");
    this.store = config.stateStore();
    this.clock = config.clock();
    this.events = new Events(config.listeners(), signals);
    this.guard = new PathGuard(config.allowedRoot(), events::onAllowedRootReopened);
    this.uplink = config.uplink();
    this.lanes = new LaneOf(store, clock);
    this.queue = new WorkQueue(config.queueCapacity(), lanes, clock, uplink, config.workers());
    this.throttle = new Throttle(uplink.bytesPerSecond(), uplink.requestsPerSecond());
    PlaybackProducer producer = new PlaybackProducer(store, config.repackager(), config.playbackRoot(), guard);
    this.breaker = new SinkBreaker(config.breakerFailures(), config.breakerDelay(), events::onCircuitStateChanged,
        events::onCircuitOpened);
    this.storeClock = new StoreClock(store, clock, StoreClock.warningThresholdFor(config.leaseDuration()));
    this.leases = new Leases(store, storeClock, config.nodeId(), config.leaseDuration(), queue);
    Intake intake = new Intake(queue, events);
    // The store's clock: a row is registered due at the time the sweeps (on the store's clock) compare with.
    this.registrar = new Registrar(guard, leases, new RowWriter(store), intake, events, storeClock,
        config.repackaging() ? producer : null, config.storageGroup(), config.tracing());
    Failures failures = new Failures(store, storeClock, config.nodeId(), config.backoff(), config.maxErrorAttempts(),
        events, new UnfinishedUploads(config.objectSink()));
    this.outputs = new LocalOutputs(store, clock, config.repackaging()
        ? new LocalFileRemover(guard, config.playbackRoot()) : null, config.storageGroup());
    this.confirmer = new Confirmer(store, clock, events, failures, signals, outputs);
    this.originals = config.localRetention() == null ? null : new LocalOriginals(store, clock,
        config.localRetention(), new LocalFileRemover(guard, guard.root()), config.storageGroup(), outputs);
    AbandonedAttempts abandoned = new AbandonedAttempts(config.maxAbandonedAttempts(), config.backoff(), leases,
        events, clock, clock.instant().plus(config.leaseDuration()));
    this.heartbeat = new Heartbeat(store, storeClock, config.nodeId(), config.leaseDuration(), config.stallTimeout(),
        failures, events);
    Uploader uploader = new Uploader(guard, config.objectSink(), breaker, config.breakerDelay(), leases, failures,
        events, clock, throttle);
    // The ledger's clock, as the heartbeat's idle times (StoreClock.ledgerInstant): an attempt's start on it too.
    ItemProcessor processor = new ItemProcessor(leases, abandoned, heartbeat, new IsolationGate(),
        SUSPECT_PATIENCE, producer, uploader, confirmer, failures, events, clock, config.tracing());
    this.sweeper = new Sweeper(store, storeClock, config.sweepBatchSize(), config.cutoff(), config.storageGroup(),
        (item, fromSweep) -> intake.offer(item, fromSweep, null), events::onUnreadableRow,
        this::localFilesPage);
    this.sweeps = new SweepScheduler(sweeper, breaker, queue, config.sweepBatchSize(), config.sweepInterval(),
        signals);
    this.workers = new WorkerPool(config.workers(), queue, processor, breaker, signals, sweeps::roomMayHaveFreed);
    this.reopener = new Reopener(store, clock, signals);
    this.groups = new StorageGroups(store, storeClock, signals);
    this.reconciler = Reconciler.create(store, config.objectSink(), clock, config.abortUnfinishedUploadsAfter());
    this.retainer = config.retention() == null ? null
        : new Retainer(store, clock, config.retention(), Retainer.intervalFor(config.retention()), signals);
    this.playlists = !config.publishPlaylists() ? null : new PlaylistPublisher(store, config.objectSink(), breaker,
        config.breakerDelay(), clock, config.nodeId(), config.leaseDuration(), config.backoff(), events,
        config.sweepBatchSize(), config.tracing(), config.liveWindowSegments(), config.fullPlaylistInterval());
    this.playlistRounds = playlists == null ? null : new PlaylistScheduler(playlists, breaker, config.sweepInterval());
    if (playlistRounds != null) {
      signals.onPlaylistsChanged(playlistRounds::nudge);
    }
  }

  /** The uplink settings in force. */
  Uplink uplink() {
    return uplink;
  }

  /** Changes the lanes' shares and the cap at once (the next take, the next chunk of every stream). */
  synchronized void uplink(Uplink changed) {
    queue.settings(changed);
    throttle.set(changed.bytesPerSecond(), changed.requestsPerSecond());
    uplink = changed;
    log.info("uplink now {}", changed);
  }

  /**
   * The upkeep's pages of local files: the produced files', then the originals' (local retention),
   * each failing alone (a failed store query of one never skips the other); whether either was full.
   */
  private boolean localFilesPage(int limit) {
    boolean full = false;
    try {
      full = outputs.sweepPage(limit);
    } catch (RuntimeException e) {
      log.warn("the page of produced files to delete failed; a later round retries", e);
    }
    if (originals != null) {
      try {
        full |= originals.sweepPage(limit);
      } catch (RuntimeException e) {
        log.warn("the page of local retention failed; a later round retries", e);
      }
    }
    return full;
  }

  /** Starts the threads once ({@code false} if already started); a closed engine is refused. */
  boolean start() {
    if (retainer != null && !signals.running() && !signals.closed()) {
      retainer.requireSupported(); // a store without retention fails the start before anything runs
    }
    if (originals != null && !signals.running() && !signals.closed()) {
      originals.requireSupported(); // likewise a store without local retention
    }
    if (!signals.start()) {
      requireOpen();
      return false;
    }
    storeClock.measureIfDue();
    leases.takeBackAll();
    heartbeat.start();
    workers.start();
    sweeps.start();
    if (retainer != null) {
      retainer.start();
    }
    if (playlistRounds != null) {
      playlistRounds.start();
    }
    log.info("ledger {} started: {}", config.nodeId(), config.summary());
    return true;
  }

  /** Stops the threads (if started) and releases the file boundary's resources; idempotent. */
  void close() {
    Signals.Lifecycle previous = signals.close();
    if (previous != Signals.Lifecycle.RUNNING) {
      if (previous == Signals.Lifecycle.NEW) {
        guard.close();
      }
      return;
    }
    Duration timeout = config.shutdownTimeout();
    sweeps.stop(timeout);
    if (retainer != null) {
      retainer.stop(timeout);
    }
    workers.awaitStop(timeout);
    confirmer.confirmWaiting(); // a worker stopped while handing over leaves nothing behind
    heartbeat.stop(timeout);
    if (playlistRounds != null) {
      playlistRounds.stop(timeout); // after the last confirms; what they changed is published by the next start
    }
    guard.close();
    log.info("ledger closed; {} items were queued and remain in the store", queue.size());
  }

  /** What a repairing reconcile changed is acted on: a publication round, a sweep, a log line. */
  void repaired(String broadcastId, ReconciliationReport report, boolean wholeRun) {
    if (report.playlistsRepublished() > 0) {
      signals.playlistsChanged();
    }
    if (report.reopened() > 0) {
      log.warn("reconciler re-opened {} rows of broadcast {} for upload:\n{}", report.reopened(), broadcastId,
          report.describe());
      signals.sweepSoon();
    } else if (wholeRun && !report.isConsistent()) {
      log.warn("reconciler found differences it does not repair:\n{}", report.describe());
    }
  }

  /** The recorder's disk now: what was deleted and refused, and the allowed root's free space (-1 if unknown). */
  LedgerStats.LocalDisk localDisk() {
    long free;
    try {
      free = Files.getFileStore(guard.root()).getUsableSpace();
    } catch (IOException | RuntimeException e) {
      free = -1;
    }
    return outputs.snapshot(free, config.lowDiskThreshold());
  }

  void requireOpen() {
    if (signals.closed()) {
      throw new IllegalStateException("ledger is closed");
    }
  }
}
