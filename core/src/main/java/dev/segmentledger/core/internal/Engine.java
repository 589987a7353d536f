package dev.segmentledger.core.internal;

import dev.segmentledger.core.LedgerSettings;
import dev.segmentledger.core.LedgerStats;
import dev.segmentledger.core.Reconciler;
import dev.segmentledger.core.ReconciliationReport;
import dev.segmentledger.core.Uplink;
import dev.segmentledger.core.spi.StateStore;
import dev.segmentledger.core.spi.StoredUplinkCap;
import dev.segmentledger.core.spi.Tracing;
import java.io.IOException;
import java.nio.file.Files;
import java.time.Clock;
import java.time.Duration;
import java.util.Objects;
import java.util.Optional;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The parts of one ledger, wired, and their lifecycle: what {@link DefaultLedger} drives.
 *
 * <p>Design note. Each part gets the few values it uses from the {@link LedgerSettings}, never the
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

  final LedgerSettings settings;
  final StateStore store;
  final Clock clock;
  final Signals signals = new Signals();
  final PathGuard guard;
  final Events events;
  final WorkQueue queue;
  final LaneOf lanes;
  final Throttle throttle;
  private final StoredCaps storedCaps;
  private Uplink configured; // guarded by this: as built, or as last set through the API
  private StoredUplinkCap stored; // guarded by this: the cap an operator stored for this node, null if none
  private volatile Uplink uplink; // in force: configured, with the stored cap if any
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

  Engine(LedgerSettings settings) {
    this.settings = Objects.requireNonNull(settings, "settings");
    this.store = settings.stateStore();
    this.clock = settings.clock();
    String group = settings.storageGroup().orElse(null);
    Tracing tracing = GuardedTracing.of(settings.tracing()); // a tracer that throws costs a span, never an upload
    this.events = new Events(settings.listeners(), signals);
    this.guard = new PathGuard(settings.allowedRoot(), events::onAllowedRootReopened);
    this.configured = settings.uplink();
    this.uplink = inForce();
    this.storedCaps = new StoredCaps(store, settings.nodeId(), this::storedCap);
    this.lanes = new LaneOf(store, clock);
    this.queue = new WorkQueue(settings.queueCapacity(), lanes, clock, uplink, settings.workers());
    this.throttle = new Throttle(uplink.bytesPerSecond(), uplink.requestsPerSecond(), Throttle.lowerShare(uplink));
    PlaybackProducer producer = new PlaybackProducer(store, settings.repackager().orElse(null),
        settings.playbackRoot().orElse(null), guard);
    this.breaker = new SinkBreaker(settings.breakerFailures(), settings.breakerOpenDelay(),
        events::onCircuitStateChanged, events::onCircuitOpened);
    this.storeClock = new StoreClock(store, clock, settings.clockSkewWarning());
    this.leases = new Leases(store, storeClock, settings.nodeId(), settings.leaseDuration(), queue);
    Intake intake = new Intake(queue, events, signals);
    // The store's clock: a row is registered due at the time the sweeps (on the store's clock) compare with.
    this.registrar = new Registrar(guard, leases, new RowWriter(store), intake, events, storeClock,
        settings.repackaging() ? producer : null, group, tracing, lanes);
    Failures failures = new Failures(store, storeClock, settings.nodeId(), settings.backoff(),
        settings.maxErrorAttempts(), events, new UnfinishedUploads(settings.objectSink()));
    this.outputs = new LocalOutputs(store, clock, settings.repackaging()
        ? new LocalFileRemover(guard, settings.playbackRoot().orElseThrow()) : null, group);
    this.confirmer = new Confirmer(store, clock, events, failures, outputs, intake);
    this.originals = settings.localRetention().map(keep -> new LocalOriginals(store, clock, keep,
        new LocalFileRemover(guard, guard.root()), group, outputs)).orElse(null);
    AbandonedAttempts abandoned = new AbandonedAttempts(settings.maxAbandonedAttempts(), settings.backoff(), leases,
        events, clock, clock.instant().plus(settings.leaseDuration()));
    this.heartbeat = new Heartbeat(store, storeClock, settings.nodeId(), settings.leaseDuration(),
        settings.heartbeatInterval(), settings.stallTimeout(), failures, events);
    Uploader uploader = new Uploader(guard, settings.objectSink(), breaker, settings.breakerOpenDelay(), leases,
        failures, events, clock, throttle);
    // The ledger's clock, as the heartbeat's idle times (StoreClock.ledgerInstant): an attempt's start on it too.
    ItemProcessor processor = new ItemProcessor(leases, abandoned, heartbeat, new IsolationGate(),
        SUSPECT_PATIENCE, producer, uploader, confirmer, failures, events, clock, tracing);
    this.sweeper = new Sweeper(store, storeClock, settings.sweepBatchSize(), settings.cutoff().orElse(null), group,
        (item, fromSweep) -> intake.offer(item, fromSweep, null), events::onUnreadableRow,
        this::localFilesPage, queue::lanes);
    this.sweeps = new SweepScheduler(sweeper, breaker, queue, settings.sweepBatchSize(), settings.sweepInterval(),
        signals);
    this.workers = new WorkerPool(settings.workers(), queue, processor, breaker, signals, sweeps::roomMayHaveFreed);
    this.reopener = new Reopener(store, clock, signals);
    this.groups = new StorageGroups(store, storeClock, signals);
    this.reconciler = new DefaultReconciler(store, settings.objectSink(), clock,
        settings.abortUnfinishedUploadsAfter());
    this.retainer = settings.retention().map(keep -> new Retainer(store, clock, keep,
        settings.purgeInterval().orElseThrow(), signals)).orElse(null);
    this.playlists = !settings.publishPlaylists() ? null : new PlaylistPublisher(store, settings.objectSink(), breaker,
        settings.breakerOpenDelay(), clock, settings.nodeId(), settings.leaseDuration(), settings.backoff(), events,
        settings.sweepBatchSize(), tracing, settings.liveWindowSegments(), settings.fullPlaylistInterval());
    this.playlistRounds = playlists == null ? null
        : new PlaylistScheduler(playlists, breaker, settings.sweepInterval());
    if (playlistRounds != null) {
      signals.onPlaylistsChanged(playlistRounds::nudge);
    }
  }

  /** The uplink settings in force. */
  Uplink uplink() {
    return uplink;
  }

  /**
   * Changes the configured lanes' shares and cap at once (the next take, the next chunk of every
   * stream); a cap stored for this node stays in force over the configured one.
   */
  synchronized void uplink(Uplink changed) {
    configured = changed;
    applyUplink();
  }

  /** The cap an operator stored for this node, or none: in force over the configured one. */
  synchronized void storedCap(Optional<StoredUplinkCap> cap) {
    StoredUplinkCap next = cap.orElse(null);
    boolean changed = next == null || stored == null ? next != stored
        : next.bytesPerSecond() != stored.bytesPerSecond() || next.requestsPerSecond() != stored.requestsPerSecond();
    stored = next;
    if (changed) {
      if (next == null) {
        log.info("no uplink cap is stored for node {} any more: its configured cap applies", settings.nodeId());
      } else {
        log.info("uplink cap stored for node {}: {} bytes and {} requests a second (0: none)", next.node(),
            next.bytesPerSecond(), next.requestsPerSecond());
      }
    }
    applyUplink(); // also every second: a timetable's next entry
  }

  /**
   * The configured settings with the cap in force: the stored cap if any, else the configured one (its
   * timetable's entry at the ledger's clock if it has one).
   */
  private Uplink inForce() {
    Uplink.Builder inForce = configured.toBuilder();
    return (stored == null ? inForce.bytesPerSecond(configured.bytesPerSecondAt(clock.instant()))
        : inForce.bytesPerSecond(stored.bytesPerSecond()).requestsPerSecond(stored.requestsPerSecond())).build();
  }

  /** Puts {@link #inForce} in force; a no-op if nothing changed. */
  private void applyUplink() {
    Uplink inForce = inForce();
    if (inForce.equals(uplink)) {
      return;
    }
    queue.settings(inForce);
    throttle.set(inForce.bytesPerSecond(), inForce.requestsPerSecond(), Throttle.lowerShare(inForce));
    uplink = inForce;
    log.info("uplink now {}", inForce);
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
    storedCaps.start(); // a cap stored for this node applies from the first upload
    heartbeat.start();
    workers.start();
    sweeps.start();
    if (retainer != null) {
      retainer.start();
    }
    if (playlistRounds != null) {
      playlistRounds.start();
    }
    log.info("ledger {} started: {}", settings.nodeId(), settings);
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
    Duration timeout = settings.shutdownTimeout();
    storedCaps.stop(timeout);
    throttle.close(); // uploads waiting for the cap end now, as cancelled by the close; bytes already let go get the timeout
    sweeps.stop(timeout);
    if (retainer != null) {
      retainer.stop(timeout);
    }
    workers.awaitStop(timeout, heartbeat::cancelOnClose); // their rows stay as they were, their leases given back
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
    return outputs.snapshot(free, settings.lowDiskThreshold());
  }

  void requireOpen() {
    if (signals.closed()) {
      throw new IllegalStateException("ledger is closed");
    }
  }
}
