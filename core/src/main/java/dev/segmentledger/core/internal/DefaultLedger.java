package dev.segmentledger.core.internal;

import dev.segmentledger.core.BroadcastStatus;
import dev.segmentledger.core.ClosedFile;
import dev.segmentledger.core.Identifiers;
import dev.segmentledger.core.ItemId;
import dev.segmentledger.core.LedgerItem;
import dev.segmentledger.core.LedgerStats;
import dev.segmentledger.core.ManualLedger;
import dev.segmentledger.core.PlaybackView;
import dev.segmentledger.core.Reason;
import dev.segmentledger.core.ReconcileRequest;
import dev.segmentledger.core.ReconcileStep;
import dev.segmentledger.core.Reconciler;
import dev.segmentledger.core.ReconciliationReport;
import dev.segmentledger.core.Registration;
import dev.segmentledger.core.SweepReport;
import dev.segmentledger.core.query.Backlog;
import dev.segmentledger.core.query.Page;
import dev.segmentledger.core.query.RowQuery;
import dev.segmentledger.core.spi.StateStore;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import java.util.concurrent.atomic.AtomicReference;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The ledger engine: a facade that wires the parts and guards the lifecycle.
 *
 * <p>Design note. The row is the ledger; everything in memory is disposable. The parts, each with
 * one job: the {@link Registrar} writes a registration's rows (through the {@link RowWriter}, a
 * group commit) and only then offers them through the {@link Intake} to the bounded
 * {@link WorkQueue}; the {@link WorkerPool} takes each item as an {@link InFlight} handle and hands
 * it to the {@link ItemProcessor}, which uploads it and hands it to the {@link Confirmer} (a group
 * commit of compare-and-set confirms); the {@link SweepScheduler} runs the {@link Sweeper}'s rounds,
 * which re-collect unconfirmed rows. The in-flight slot keeps one row from being processed twice
 * in this process; across processes, duplicate PUTs of identical bytes are accepted and the CAS
 * confirm decides. The store releases waiting PLAYBACK rows in the transaction that confirms their
 * INIT, so the ledger never tracks that dependency in memory. A manual ledger has no threads at
 * all: the caller runs sweep rounds and drains the queue. Thread-safe.
 */
public final class DefaultLedger implements ManualLedger {
  private static final Logger log = LoggerFactory.getLogger(DefaultLedger.class);

  private enum Lifecycle { NEW, RUNNING, CLOSED }

  /** How long a suspect row waits for the other work in flight to end before it tries again later. */
  static final Duration SUSPECT_PATIENCE = Duration.ofSeconds(10);

  private final LedgerConfig config;
  private final boolean manual;
  private final StateStore store;
  private final Clock clock;
  private final PathGuard guard;
  private final Events events;
  private final WorkQueue queue;
  private final SinkBreaker breaker;
  private final Leases leases;
  private final Heartbeat heartbeat;
  private final Registrar registrar;
  private final Confirmer confirmer;
  private final WorkerPool workers;
  private final Sweeper sweeper;
  private final SweepScheduler sweeps;
  private final Reopener reopener;
  private final StorageGroups groups;
  private final Reconciler reconciler;
  private final Retainer retainer; // null without a retention
  private final PlaylistPublisher playlists; // this and the next: null without playlist publication
  private final PlaylistScheduler playlistRounds;
  private final AtomicReference<Lifecycle> lifecycle = new AtomicReference<>(Lifecycle.NEW);

  public DefaultLedger(LedgerConfig config, boolean manual) {
    this.config = Objects.requireNonNull(config, "config");
    this.manual = manual;
    this.store = config.stateStore();
    this.clock = config.clock();
    this.guard = new PathGuard(config.allowedRoot());
    this.events = new Events(config.listeners());
    this.queue = new WorkQueue(config.queueCapacity());
    PlaybackProducer producer = new PlaybackProducer(store, config.repackager(), config.playbackRoot(), guard);
    this.breaker = new SinkBreaker(config.breakerFailures(), config.breakerDelay(), events::onCircuitStateChanged,
        events::onCircuitOpened);
    this.leases = new Leases(store, clock, config.nodeId(), config.leaseDuration(), queue);
    Intake intake = new Intake(queue, events);
    this.registrar = new Registrar(guard, leases, new RowWriter(store), intake, events, clock,
        config.repackaging() ? producer : null, config.storageGroup());
    Failures failures = new Failures(store, clock, config.nodeId(), config.backoff(), config.maxErrorAttempts(),
        events);
    this.confirmer = new Confirmer(store, clock, events, failures, this::sweepSoon);
    AbandonedAttempts abandoned = new AbandonedAttempts(config.maxAbandonedAttempts(), config.backoff(), leases,
        events);
    this.heartbeat = new Heartbeat(store, clock, config.nodeId(), config.leaseDuration(), config.stallTimeout(),
        failures, events);
    Uploader uploader = new Uploader(guard, config.objectSink(), breaker, config.breakerDelay(), leases, failures,
        events, clock);
    ItemProcessor processor = new ItemProcessor(leases, abandoned, heartbeat, new IsolationGate(),
        SUSPECT_PATIENCE, producer, uploader, confirmer, failures, events, clock);
    this.sweeper = new Sweeper(store, clock, config.sweepBatchSize(), config.cutoff(), config.storageGroup(),
        (item, fromSweep) -> intake.offer(item, fromSweep, null), events::onUnreadableRow);
    this.sweeps = new SweepScheduler(sweeper, breaker, queue, config.sweepBatchSize(), config.sweepInterval(),
        this::running);
    this.workers = new WorkerPool(config.workers(), queue, processor, breaker, this::running,
        sweeps::roomMayHaveFreed);
    this.reopener = new Reopener(store, clock, this::sweepSoon);
    this.groups = new StorageGroups(store, clock, this::sweepSoon);
    this.reconciler = Reconciler.create(store, config.objectSink(), clock, config.abortUnfinishedUploadsAfter());
    this.retainer = config.retention() == null ? null
        : new Retainer(store, clock, config.retention(), Retainer.intervalFor(config.retention()), this::running);
    this.playlists = !config.publishPlaylists() ? null : new PlaylistPublisher(store, config.objectSink(), breaker,
        config.breakerDelay(), clock, config.nodeId(), config.leaseDuration(), config.backoff(), events,
        config.sweepBatchSize());
    this.playlistRounds = playlists == null ? null : new PlaylistScheduler(playlists, breaker, config.sweepInterval());
    if (playlistRounds != null) {
      events.onPlaylistsChanged(playlistRounds::nudge);
    }
  }

  @Override
  public Registration register(ItemId id, Path file) {
    return registerAll(List.of(new ClosedFile(id, file))).get(0);
  }

  @Override
  public List<Registration> registerAll(List<ClosedFile> files) {
    Objects.requireNonNull(files, "files");
    requireOpen();
    return files.isEmpty() ? List.of() : registrar.registerAll(files);
  }

  @Override
  public Optional<LedgerItem> find(ItemId id) {
    return store.find(Objects.requireNonNull(id, "id"));
  }

  @Override
  public boolean endBroadcast(String broadcastId) {
    Identifiers.requireValid("broadcastId", broadcastId);
    boolean ended = store.endBroadcast(broadcastId, clock.instant());
    if (ended) {
      log.info("broadcast {} ended: no new registrations; unconfirmed rows are still recovered", broadcastId);
    }
    return ended;
  }

  @Override
  public BroadcastStatus broadcastStatus(String broadcastId) {
    return BroadcastViews.status(store, broadcastId);
  }

  @Override
  public PlaybackView playback(String broadcastId, String rendition) {
    return BroadcastViews.playback(store, broadcastId, rendition);
  }

  @Override
  public ReconciliationReport reconcile(String broadcastId) {
    Identifiers.requireValid("broadcastId", broadcastId);
    return reconciler.reconcile(broadcastId);
  }

  @Override
  public ReconciliationReport reconcileAndRepair(String broadcastId) {
    Identifiers.requireValid("broadcastId", broadcastId);
    requireOpen();
    ReconciliationReport report = reconciler.reconcileAndRepair(broadcastId);
    if (report.playlistsRepublished() > 0 && playlistRounds != null) {
      playlistRounds.nudge();
    }
    if (report.reopened() > 0) {
      log.warn("reconciler re-opened {} rows of broadcast {} for upload:\n{}", report.reopened(), broadcastId,
          report.describe());
      sweepSoon();
    } else if (!report.isConsistent()) {
      log.warn("reconciler found differences it does not repair:\n{}", report.describe());
    }
    return report;
  }

  @Override
  public ReconcileStep reconcile(ReconcileRequest request) {
    Objects.requireNonNull(request, "request");
    if (!request.repair()) {
      return reconciler.reconcile(request);
    }
    requireOpen();
    ReconcileStep step = reconciler.reconcile(request);
    ReconciliationReport report = step.report();
    if (report.playlistsRepublished() > 0 && playlistRounds != null) {
      playlistRounds.nudge();
    }
    if (report.reopened() > 0) {
      log.warn("reconciler re-opened {} rows of broadcast {} for upload:\n{}", report.reopened(),
          request.broadcastId(), report.describe());
      sweepSoon();
    }
    return step;
  }

  @Override
  public List<LedgerItem> items(String broadcastId) {
    Identifiers.requireValid("broadcastId", broadcastId);
    return store.findByBroadcast(broadcastId);
  }

  @Override
  public Page<LedgerItem> items(RowQuery query) {
    Objects.requireNonNull(query, "query");
    return store.findRows(query);
  }

  @Override
  public Backlog backlog() {
    return store.backlog(clock.instant());
  }

  @Override
  public boolean reopen(ItemId id) {
    Objects.requireNonNull(id, "id");
    return reopener.reopen(id);
  }

  @Override
  public int reopen(String broadcastId, Reason reason) {
    Objects.requireNonNull(reason, "reason");
    return reopener.reopen(items(broadcastId), reason);
  }

  @Override
  public int handOver(String fromGroup, String toGroup) {
    return groups.handOver(fromGroup, toGroup);
  }

  @Override
  public int markStorageLost(String group) {
    return groups.markLost(group);
  }

  @Override
  public long purge() {
    requireOpen();
    if (retainer == null) {
      throw new IllegalStateException("no retention configured (LedgerBuilder.retention)");
    }
    return retainer.round(false);
  }

  @Override
  public LedgerStats stats() {
    return events.snapshot(queue.size(), queue.inFlight(), breaker.state(),
        playlists == null ? 0 : playlists.awaiting());
  }

  @Override
  public void start() {
    if (!manual && retainer != null && lifecycle.get() == Lifecycle.NEW) {
      retainer.requireSupported(); // a store without retention fails the start before anything runs
    }
    if (manual || !lifecycle.compareAndSet(Lifecycle.NEW, Lifecycle.RUNNING)) {
      if (lifecycle.get() == Lifecycle.CLOSED) {
        throw new IllegalStateException("ledger is closed");
      }
      return;
    }
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
  }

  @Override
  public SweepReport sweepRound() {
    requireOpen();
    return sweeper.round();
  }

  @Override
  public int drainQueue() {
    requireOpen();
    return workers.drain();
  }

  @Override
  public int publishPlaylists() {
    requireOpen();
    return playlists == null ? 0 : playlists.round();
  }

  @Override
  public void heartbeat() {
    requireOpen();
    heartbeat.tick();
  }

  @Override
  public int queued() {
    return queue.size();
  }

  @Override
  public void close() {
    Lifecycle previous = lifecycle.getAndSet(Lifecycle.CLOSED);
    if (previous != Lifecycle.RUNNING) {
      if (previous == Lifecycle.NEW) {
        guard.close();
      }
      return;
    }
    sweeps.stop(config.shutdownTimeout());
    if (retainer != null) {
      retainer.stop(config.shutdownTimeout());
    }
    workers.awaitStop(config.shutdownTimeout());
    confirmer.confirmWaiting(); // a worker stopped while handing over leaves nothing behind
    heartbeat.stop(config.shutdownTimeout());
    if (playlistRounds != null) {
      playlistRounds.stop(config.shutdownTimeout()); // after the last confirms; what they changed is published by the next start
    }
    guard.close();
    log.info("ledger closed; {} items were queued and remain in the store", queue.size());
  }

  private boolean running() {
    return lifecycle.get() == Lifecycle.RUNNING;
  }

  /** A sweep round now rather than at the next tick (no-op unless running with threads). */
  private void sweepSoon() {
    sweeps.sweepSoon();
  }

  private void requireOpen() {
    if (lifecycle.get() == Lifecycle.CLOSED) {
      throw new IllegalStateException("ledger is closed");
    }
  }
}
