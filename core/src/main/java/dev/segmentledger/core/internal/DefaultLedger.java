package dev.segmentledger.core.internal;

import dev.segmentledger.core.BroadcastStatus;
import dev.segmentledger.core.ClosedFile;
import dev.segmentledger.core.Identifiers;
import dev.segmentledger.core.ItemId;
import dev.segmentledger.core.Lane;
import dev.segmentledger.core.LedgerItem;
import dev.segmentledger.core.LedgerSettings;
import dev.segmentledger.core.LedgerStats;
import dev.segmentledger.core.ManualLedger;
import dev.segmentledger.core.PlaybackView;
import dev.segmentledger.core.Reason;
import dev.segmentledger.core.ReconcileRequest;
import dev.segmentledger.core.ReconcileStep;
import dev.segmentledger.core.ReconciliationReport;
import dev.segmentledger.core.Registration;
import dev.segmentledger.core.SweepReport;
import dev.segmentledger.core.Uplink;
import dev.segmentledger.core.UplinkStats;
import dev.segmentledger.core.query.Backlog;
import dev.segmentledger.core.query.Page;
import dev.segmentledger.core.query.RowQuery;
import java.nio.file.Path;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The ledger: the {@link dev.segmentledger.core.Ledger} API over an {@link Engine}, checking
 * arguments and the lifecycle, and delegating every call to the one part that does the work.
 *
 * <p>Design note. The row is the ledger; everything in memory is disposable. The parts, each with
 * one job: the {@link Registrar} writes a registration's rows (through the {@link RowWriter}, a
 * group commit) and only then offers them through the {@link Intake} to the bounded
 * {@link WorkQueue}; the {@link WorkerPool} takes each item as an {@link InFlight} handle and hands
 * it to the {@link ItemProcessor}, which uploads it, kept alive by the {@link Heartbeat}, and hands
 * it to the {@link Confirmer} (a group commit of compare-and-set confirms); the
 * {@link SweepScheduler} runs the {@link Sweeper}'s rounds, which re-collect unconfirmed rows. The
 * in-flight slot keeps one row from being processed twice in this process; across processes,
 * duplicate PUTs of identical bytes are accepted and the CAS confirm decides. The store releases
 * waiting PLAYBACK rows in the transaction that confirms their INIT, so the ledger never tracks that
 * dependency in memory. A manual ledger has no threads at all: the caller runs sweep rounds, drains
 * the queue and runs heartbeats. Thread-safe.
 */
public final class DefaultLedger implements ManualLedger {
  private static final Logger log = LoggerFactory.getLogger(DefaultLedger.class);

  private final Engine engine;
  private final boolean manual;

  public DefaultLedger(LedgerSettings settings, boolean manual) {
    this.engine = new Engine(settings);
    this.manual = manual;
  }

  @Override
  public Registration register(ItemId id, Path file) {
    return registerAll(List.of(new ClosedFile(id, file))).get(0);
  }

  @Override
  public List<Registration> registerAll(List<ClosedFile> files) {
    Objects.requireNonNull(files, "files");
    engine.requireOpen();
    return files.isEmpty() ? List.of() : engine.registrar.registerAll(files);
  }

  @Override
  public Optional<LedgerItem> find(ItemId id) {
    return engine.store.find(Objects.requireNonNull(id, "id"));
  }

  @Override
  public Registration register(ItemId id, Path file, Lane lane) {
    Objects.requireNonNull(lane, "lane");
    engine.requireOpen();
    return engine.registrar.registerAll(List.of(new ClosedFile(Objects.requireNonNull(id, "id"), file)), lane).get(0);
  }

  @Override
  public void prioritize(String broadcastId, Lane lane) {
    Identifiers.requireValid("broadcastId", broadcastId);
    engine.lanes.hintBroadcast(broadcastId, lane);
  }

  @Override
  public void uplink(Uplink uplink) {
    engine.uplink(Objects.requireNonNull(uplink, "uplink"));
  }

  @Override
  public Uplink uplink() {
    return engine.uplink();
  }

  @Override
  public UplinkStats uplinkStats() {
    return new UplinkStats(engine.uplink(), engine.queue.laneStats(), engine.throttle.bodyBytes(),
        engine.throttle.tokenWait());
  }

  @Override
  public boolean endBroadcast(String broadcastId) {
    Identifiers.requireValid("broadcastId", broadcastId);
    boolean ended = engine.store.endBroadcast(broadcastId, engine.clock.instant());
    if (ended) {
      engine.lanes.ended(broadcastId);
      engine.queue.toBackfill(broadcastId);
      log.info("broadcast {} ended: no new registrations; unconfirmed rows are still recovered", broadcastId);
    }
    return ended;
  }

  @Override
  public BroadcastStatus broadcastStatus(String broadcastId) {
    return BroadcastViews.status(engine.store, broadcastId);
  }

  @Override
  public PlaybackView playback(String broadcastId, String rendition) {
    return BroadcastViews.playback(engine.store, broadcastId, rendition);
  }

  @Override
  public ReconciliationReport reconcile(String broadcastId) {
    Identifiers.requireValid("broadcastId", broadcastId);
    return engine.reconciler.reconcile(broadcastId);
  }

  @Override
  public ReconciliationReport reconcileAndRepair(String broadcastId) {
    Identifiers.requireValid("broadcastId", broadcastId);
    engine.requireOpen();
    ReconciliationReport report = engine.reconciler.reconcileAndRepair(broadcastId);
    engine.repaired(broadcastId, report, true);
    return report;
  }

  @Override
  public ReconcileStep reconcile(ReconcileRequest request) {
    Objects.requireNonNull(request, "request");
    if (!request.repair()) {
      return engine.reconciler.reconcile(request);
    }
    engine.requireOpen();
    ReconcileStep step = engine.reconciler.reconcile(request);
    engine.repaired(request.broadcastId(), step.report(), false);
    return step;
  }

  @Override
  public List<LedgerItem> items(String broadcastId) {
    Identifiers.requireValid("broadcastId", broadcastId);
    return engine.store.findByBroadcast(broadcastId);
  }

  @Override
  public Page<LedgerItem> items(RowQuery query) {
    Objects.requireNonNull(query, "query");
    return engine.store.findRows(query);
  }

  @Override
  public Backlog backlog() {
    return engine.store.backlog(engine.storeClock.instant()); // due as the sweeps judge it
  }

  @Override
  public boolean reopen(ItemId id) {
    Objects.requireNonNull(id, "id");
    return engine.reopener.reopen(id);
  }

  @Override
  public int reopen(String broadcastId, Reason reason) {
    Objects.requireNonNull(reason, "reason");
    return engine.reopener.reopen(items(broadcastId), reason);
  }

  @Override
  public int handOver(String fromGroup, String toGroup) {
    return engine.groups.handOver(fromGroup, toGroup);
  }

  @Override
  public int markStorageLost(String group) {
    return engine.groups.markLost(group);
  }

  @Override
  public long purge() {
    engine.requireOpen();
    if (engine.retainer == null) {
      throw new IllegalStateException("no retention configured (LedgerBuilder.retention)");
    }
    return engine.retainer.round(false);
  }

  @Override
  public LedgerSettings settings() {
    return engine.settings;
  }

  @Override
  public LedgerStats stats() {
    return engine.events.snapshot(engine.queue.size(), engine.queue.inFlight(), engine.breaker.state(),
        engine.playlists == null ? 0 : engine.playlists.awaiting(), engine.storeClock.skew(), engine.localDisk());
  }

  @Override
  public void start() {
    if (manual) {
      engine.requireOpen(); // a manual ledger runs no threads: the caller drives it
      engine.storeClock.measureIfDue(); // as a started ledger does, before it writes any lease
      return;
    }
    engine.start();
  }

  @Override
  public SweepReport sweepRound() {
    engine.requireOpen();
    engine.storeClock.measureIfDue();
    return engine.sweeper.round();
  }

  @Override
  public int drainQueue() {
    engine.requireOpen();
    return engine.workers.drain();
  }

  @Override
  public int publishPlaylists() {
    engine.requireOpen();
    return engine.playlists == null ? 0 : engine.playlists.round();
  }

  @Override
  public void heartbeat() {
    engine.requireOpen();
    engine.heartbeat.tick();
  }

  @Override
  public int queued() {
    return engine.queue.size();
  }

  @Override
  public void close() {
    engine.close();
  }
}
