package dev.segmentledger.core.internal;

import dev.segmentledger.core.Axis;
import dev.segmentledger.core.BroadcastEndedException;
import dev.segmentledger.core.BroadcastStatus;
import dev.segmentledger.core.ClosedFile;
import dev.segmentledger.core.Identifiers;
import dev.segmentledger.core.ItemId;
import dev.segmentledger.core.ItemState;
import dev.segmentledger.core.LedgerItem;
import dev.segmentledger.core.LedgerStats;
import dev.segmentledger.core.ManualLedger;
import dev.segmentledger.core.PlaybackView;
import dev.segmentledger.core.Reason;
import dev.segmentledger.core.ReconciliationReport;
import dev.segmentledger.core.Reconciler;
import dev.segmentledger.core.Registration;
import dev.segmentledger.core.Registration.Offer;
import dev.segmentledger.core.RegistrationConflictException;
import dev.segmentledger.core.SweepReport;
import dev.segmentledger.core.spi.Backlog;
import dev.segmentledger.core.spi.NewItem;
import dev.segmentledger.core.spi.Page;
import dev.segmentledger.core.spi.RegisterResult;
import dev.segmentledger.core.spi.RowQuery;
import dev.segmentledger.core.spi.StateStore;
import dev.segmentledger.core.spi.StoreException;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import java.util.concurrent.Executors;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ThreadFactory;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import java.util.concurrent.locks.LockSupport;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The ledger engine.
 *
 * <p>Design note. The row is the ledger; everything in this class is disposable. {@link #register}
 * writes the row first (PENDING, or REJECTED with a reason if the file fails the boundary check;
 * with a repackager, also the INIT and a WAITING PLAYBACK row, in the same transaction) and only
 * then offers the item to the bounded {@link WorkQueue}; a full queue drops the offer and the row
 * waits for the {@link Sweeper}. A row this instance queues itself is leased to it from its
 * insertion (a short lease), which saves a claim per item; a row the full queue refused is
 * released at once. Workers take items from the queue and hand them to the {@link ItemProcessor},
 * which PUTs to the contract key and hands the item to the {@link Confirmer}. Both ends are group
 * commits: concurrent registrations share a transaction ({@link Registrar}), and the confirms
 * gathered while one commits become one compare-and-set statement with a result per row, led by
 * whichever worker finds no confirm running. A lone caller never waits for a batch to fill. The
 * sweeper runs on its own thread at a fixed delay and pages through due rows with a per-axis
 * keyset cursor. The in-flight set of the queue keeps one row from being processed twice in this
 * process; across processes, duplicate PUTs of identical bytes are accepted and the CAS confirm
 * decides. The store releases waiting PLAYBACK rows in the transaction that confirms their INIT,
 * so the ledger itself never tracks that dependency in memory. A manual ledger has no threads at
 * all: the caller runs sweep rounds and drains the queue.
 */
public final class DefaultLedger implements ManualLedger {
  private static final Logger log = LoggerFactory.getLogger(DefaultLedger.class);

  private enum Lifecycle { NEW, RUNNING, CLOSED }

  private final LedgerConfig config;
  private final boolean manual;
  private final StateStore store;
  private final PathGuard guard;
  private final Events events;
  private final WorkQueue queue;
  private final PlaybackProducer producer;
  private final SinkBreaker breaker;
  private final Leases leases;
  private final Registrar registrar;
  private final Confirmer confirmer;
  private final ItemProcessor processor;
  private final Sweeper sweeper;
  private final Reconciler reconciler;
  private final AtomicReference<Lifecycle> lifecycle = new AtomicReference<>(Lifecycle.NEW);
  private final List<Thread> workers = new ArrayList<>();
  private volatile ScheduledExecutorService sweepThread;

  public DefaultLedger(LedgerConfig config, boolean manual) {
    this.config = Objects.requireNonNull(config, "config");
    this.manual = manual;
    this.store = config.stateStore();
    this.guard = new PathGuard(config.allowedRoot());
    this.events = new Events(config.listeners());
    this.queue = new WorkQueue(config.queueCapacity());
    this.producer = new PlaybackProducer(config, guard);
    this.breaker = new SinkBreaker(config.breakerFailures(), config.breakerDelay(), events::onCircuitStateChanged,
        events::onCircuitOpened);
    this.leases = new Leases(store, config.clock(), config.nodeId(), config.leaseDuration());
    this.registrar = new Registrar(store);
    Failures failures = new Failures(config, events);
    this.confirmer = new Confirmer(config, events, failures, this::sweepSoon, queue::release);
    this.processor = new ItemProcessor(config, guard, producer, breaker, events, leases, failures, confirmer);
    this.sweeper = new Sweeper(store, config.clock(), config.sweepBatchSize(), config.cutoff(),
        (item, fromSweep) -> offer(item, fromSweep, null));
    this.reconciler = Reconciler.create(store, config.objectSink(), config.clock(),
        config.abortUnfinishedUploadsAfter());
  }

  @Override
  public Registration register(ItemId id, Path file) {
    return registerAll(List.of(new ClosedFile(id, file))).get(0);
  }

  @Override
  public List<Registration> registerAll(List<ClosedFile> files) {
    Objects.requireNonNull(files, "files");
    requireOpen();
    if (files.isEmpty()) {
      return List.of();
    }
    Instant now = config.clock().instant();
    Instant leaseUntil = leases.registrationLeaseUntil();
    List<NewItem> rows = new ArrayList<>(files.size());
    int[] firstRowOf = new int[files.size()];
    for (int f = 0; f < files.size(); f++) {
      ClosedFile file = Objects.requireNonNull(files.get(f), "files contains null");
      firstRowOf[f] = rows.size();
      rows.addAll(rowsFor(file.id(), file.file(), now, leaseUntil));
    }
    List<RegisterResult> results;
    try {
      results = registrar.register(rows);
    } catch (RegistrationConflictException | BroadcastEndedException | StoreException e) {
      throw e;
    } catch (RuntimeException e) { // a store that let its driver's exception out: still the documented type
      throw new StoreException("the state store failed to register " + rows.size() + " rows: "
          + e.getClass().getName(), e);
    }
    Offer[] offers = new Offer[results.size()];
    for (int i = 0; i < results.size(); i++) {
      offers[i] = settle(rows.get(i), results.get(i));
    }
    List<Registration> registrations = new ArrayList<>(files.size());
    for (int f = 0; f < files.size(); f++) {
      RegisterResult first = results.get(firstRowOf[f]);
      registrations.add(new Registration(first.item(), first.created(), offers[firstRowOf[f]]));
    }
    return registrations;
  }

  /**
   * After the rows are durable: reports a refusal, offers a pending row to the queue, and gives
   * back the lease on a row this call leased but the queue did not take.
   */
  private Offer settle(NewItem row, RegisterResult result) {
    LedgerItem item = result.item();
    if (result.created() && item.state() == ItemState.REJECTED) {
      log.warn("refused {} at registration: {} ({})", item.id(), item.reason(), item.lastError());
      events.onFailed(item, item.reason(), item.lastError(), true);
    }
    if (item.state() != ItemState.PENDING) {
      return Offer.NOT_OFFERED;
    }
    boolean leasedHere = result.created() && row.leased();
    // A row that was already there (a restarted recorder registering again) is offered like a swept
    // one: re-read before upload, and uploaded as a retry (mayExist), since a dead process may have
    // stored its object or left an unfinished multipart upload at its key.
    Offer offer = offer(item, !result.created(), leasedHere ? row.leaseUntil() : null);
    if (leasedHere && offer != Offer.ACCEPTED) {
      leases.release(item, Duration.ZERO); // the sweeper will find it
    }
    return offer;
  }

  /**
   * The rows one registration writes, in one transaction: the item itself (REJECTED with its
   * reason if the file fails the boundary; PENDING with the file's identity, which the upload
   * requires unchanged), then, for an original when repackaging, the
   * rendition's INIT and the segment's PLAYBACK row. A PLAYBACK row always waits for its INIT.
   * PENDING rows are leased to this instance until {@code leaseUntil}: it is about to upload them.
   *
   * @throws dev.segmentledger.core.UnsupportedFileNameException if the file's name cannot be
   *     stored exactly; thrown before any row of the batch is written
   */
  private List<NewItem> rowsFor(ItemId id, Path file, Instant now, Instant leaseUntil) {
    PathGuard.Checked checked;
    try {
      checked = guard.check(file);
    } catch (FileRejectedException e) {
      guard.requireRepresentable(file, null);
      return List.of(NewItem.rejected(id, guard.absolute(file).toString(), 0, e.reason(), e.getMessage(), now));
    }
    guard.requireRepresentable(file, checked.realPath());
    String path = checked.realPath().toString();
    try {
      PathGuard.requireNotEmpty(PathGuard.show(file), checked.size());
    } catch (FileRejectedException e) {
      return List.of(NewItem.rejected(id, path, 0, e.reason(), e.getMessage(), now));
    }
    String owner = leases.owner();
    if (id.axis() == Axis.PLAYBACK) {
      return List.of(new NewItem(id, path, null, checked.size(), ItemState.WAITING, null, null, now)
          .withFileIdentity(checked.identity()));
    }
    NewItem row = NewItem.pending(id, path, checked.size(), now).leasedTo(owner, leaseUntil)
        .withFileIdentity(checked.identity());
    if (!config.repackaging() || id.axis() != Axis.ORIGINAL) {
      return List.of(row);
    }
    ItemId init = ItemId.init(id.broadcastId(), id.rendition());
    ItemId playback = ItemId.playback(id.broadcastId(), id.rendition(), id.sequence());
    return List.of(row,
        NewItem.derived(init, producer.targetFor(init).toString(), path, now).leasedTo(owner, leaseUntil),
        NewItem.derived(playback, producer.targetFor(playback).toString(), path, now));
  }

  private Offer offer(LedgerItem item, boolean fromSweep, Instant leasedUntil) {
    Offer offer = queue.offer(item, fromSweep, leasedUntil);
    if (offer == Offer.ACCEPTED) {
      events.onAccepted(item);
    } else if (offer == Offer.SATURATED) {
      events.onSaturated(item);
    }
    return offer;
  }

  @Override
  public Optional<LedgerItem> find(ItemId id) {
    return store.find(Objects.requireNonNull(id, "id"));
  }

  @Override
  public boolean endBroadcast(String broadcastId) {
    Identifiers.requireValid("broadcastId", broadcastId);
    boolean ended = store.endBroadcast(broadcastId, config.clock().instant());
    if (ended) {
      log.info("broadcast {} ended: no new registrations; unconfirmed rows are still recovered", broadcastId);
    }
    return ended;
  }

  @Override
  public BroadcastStatus broadcastStatus(String broadcastId) {
    Identifiers.requireValid("broadcastId", broadcastId);
    return BroadcastViews.status(broadcastId, store.findBroadcast(broadcastId), store.findByBroadcast(broadcastId));
  }

  @Override
  public PlaybackView playback(String broadcastId, String rendition) {
    Identifiers.requireValid("broadcastId", broadcastId);
    Identifiers.requireValid("rendition", rendition);
    List<LedgerItem> rows = store.findByBroadcast(broadcastId);
    BroadcastStatus status = BroadcastViews.status(broadcastId, store.findBroadcast(broadcastId), rows);
    return BroadcastViews.playback(broadcastId, rendition, status, rows);
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
    return store.backlog(config.clock().instant());
  }

  @Override
  public boolean reopen(ItemId id) {
    Objects.requireNonNull(id, "id");
    boolean reopened = store.find(id).map(this::reopenTerminal).orElse(false);
    if (reopened) {
      sweepSoon();
    }
    return reopened;
  }

  @Override
  public int reopen(String broadcastId, Reason reason) {
    Objects.requireNonNull(reason, "reason");
    int reopened = 0;
    for (LedgerItem row : items(broadcastId)) {
      if (reason == row.reason() && reopenTerminal(row)) {
        reopened++;
      }
    }
    if (reopened > 0) {
      sweepSoon();
    }
    return reopened;
  }

  private boolean reopenTerminal(LedgerItem row) {
    if (row.state() != ItemState.REJECTED && row.state() != ItemState.EXCLUDED) {
      return false;
    }
    boolean reopened = store.reopen(row.rowId(), row.state(), Reason.REOPENED,
        "re-opened after " + row.state() + " (" + row.reason() + ")", config.clock().instant());
    if (reopened) {
      log.info("{} re-opened after {} ({})", row.id(), row.state(), row.reason());
    }
    return reopened;
  }

  @Override
  public LedgerStats stats() {
    return events.snapshot(queue.size(), queue.inFlight(), breaker.state());
  }

  @Override
  public void start() {
    if (manual || !lifecycle.compareAndSet(Lifecycle.NEW, Lifecycle.RUNNING)) {
      if (lifecycle.get() == Lifecycle.CLOSED) {
        throw new IllegalStateException("ledger is closed");
      }
      return;
    }
    takeBackOwnLeases();
    ThreadFactory factory = named("segment-ledger-worker-");
    for (int i = 0; i < config.workers(); i++) {
      Thread worker = factory.newThread(this::workLoop);
      workers.add(worker);
      worker.start();
    }
    sweepThread = Executors.newSingleThreadScheduledExecutor(named("segment-ledger-sweeper-"));
    long interval = config.sweepInterval().toMillis();
    sweepThread.scheduleWithFixedDelay(this::sweepSafely, 0, interval, TimeUnit.MILLISECONDS);
    log.info("ledger {} started: {} workers, queue capacity {}, sweep batch {} every {}, lease {}", config.nodeId(),
        config.workers(), config.queueCapacity(), config.sweepBatchSize(), config.sweepInterval(),
        config.leaseDuration());
  }

  /**
   * A node restarting under the same {@code nodeId} takes back the rows it was uploading when it
   * died at once, instead of waiting for their leases to expire. A store failure here only delays
   * them until the leases expire.
   */
  private void takeBackOwnLeases() {
    try {
      int released = store.releaseAllOf(config.nodeId(), config.clock().instant());
      if (released > 0) {
        log.info("ledger {} took back {} rows it held before a restart", config.nodeId(), released);
      }
    } catch (RuntimeException e) {
      log.warn("could not take back the leases of {}; they are retried when they expire", config.nodeId(), e);
    }
  }

  private void workLoop() {
    while (lifecycle.get() == Lifecycle.RUNNING) {
      Duration pause = breaker.pause();
      if (!pause.isZero()) {
        // Circuit open: take no work until a probe may run. Rows stay as they are.
        LockSupport.parkNanos(Math.min(pause.toNanos(), TimeUnit.MILLISECONDS.toNanos(100)));
        continue;
      }
      WorkQueue.Work work;
      try {
        work = queue.poll(100, TimeUnit.MILLISECONDS);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        return;
      }
      if (work != null) {
        processAndRelease(work);
      }
    }
  }

  /** Processes one item; its in-flight period ends here, or in the confirmer if it was handed over. */
  private void processAndRelease(WorkQueue.Work work) {
    boolean handedOver = false;
    try {
      handedOver = processor.process(work);
    } finally {
      if (!handedOver) {
        queue.release(work.item().rowId());
      }
    }
  }

  private void sweepSafely() {
    if (!breaker.pause().isZero()) {
      return; // circuit open: accept nothing; the rows wait in the store
    }
    try {
      SweepReport report = sweeper.round();
      if (report.accepted() > 0 || report.saturated() > 0) {
        log.debug("sweep {}", report);
      }
      if (report.fullPage() && report.accepted() > 0 && report.saturated() == 0
          && queue.remainingCapacity() >= config.sweepBatchSize()) {
        // A backlog (recovery after a restart): read the next page now rather than after the
        // interval, as long as the queue has room for it. Only new work re-triggers, so rows
        // already in flight never make this spin.
        sweepSoon();
      }
    } catch (RuntimeException | LinkageError | AssertionError e) {
      // A throwing task would silently cancel the scheduled sweeper: log and go on.
      log.warn("sweep round failed; retrying next round", e);
    }
  }

  /**
   * Runs a sweep round now rather than at the next tick: after an INIT confirm released waiting
   * playback rows, and while a backlog is being worked off.
   */
  private void sweepSoon() {
    ScheduledExecutorService thread = sweepThread;
    if (thread != null && lifecycle.get() == Lifecycle.RUNNING) {
      try {
        thread.execute(this::sweepSafely);
      } catch (RejectedExecutionException e) {
        // closing: the rows stay PENDING for the next start
      }
    }
  }

  @Override
  public SweepReport sweepRound() {
    requireOpen();
    return sweeper.round();
  }

  @Override
  public int drainQueue() {
    requireOpen();
    int processed = 0;
    for (WorkQueue.Work work = queue.poll(); work != null; work = queue.poll()) {
      processAndRelease(work);
      processed++;
    }
    return processed;
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
    sweepThread.shutdownNow();
    long deadline = System.nanoTime() + config.shutdownTimeout().toNanos();
    for (Thread worker : workers) {
      try {
        long remaining = deadline - System.nanoTime();
        if (remaining > 0) {
          TimeUnit.NANOSECONDS.timedJoin(worker, remaining);
        }
        worker.interrupt();
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        break;
      }
    }
    confirmer.confirmWaiting(); // a worker stopped while handing over leaves nothing behind
    guard.close();
    log.info("ledger closed; {} items were queued and remain in the store", queue.size());
  }

  private void requireOpen() {
    if (lifecycle.get() == Lifecycle.CLOSED) {
      throw new IllegalStateException("ledger is closed");
    }
  }

  private static ThreadFactory named(String prefix) {
    AtomicInteger counter = new AtomicInteger();
    return runnable -> {
      Thread thread = new Thread(runnable, prefix + counter.incrementAndGet());
      thread.setDaemon(true);
      return thread;
    };
  }
}
