package dev.segmentledger.core.internal;

import dev.segmentledger.core.ItemId;
import dev.segmentledger.core.ItemState;
import dev.segmentledger.core.LedgerItem;
import dev.segmentledger.core.LedgerStats;
import dev.segmentledger.core.ManualLedger;
import dev.segmentledger.core.Reason;
import dev.segmentledger.core.Registration;
import dev.segmentledger.core.Registration.Offer;
import dev.segmentledger.core.SweepReport;
import dev.segmentledger.core.spi.NewItem;
import dev.segmentledger.core.spi.RegisterResult;
import dev.segmentledger.core.spi.StateStore;
import java.nio.file.Path;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ThreadFactory;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The ledger engine.
 *
 * <p>Design note. The row is the ledger; everything in this class is disposable. {@link #register}
 * writes the row first (PENDING, or REJECTED with a reason if the file fails the boundary check)
 * and only then offers the item to the bounded {@link WorkQueue}; a full queue drops the offer and
 * the row waits for the {@link Sweeper}. Workers take items from the queue and hand them to the
 * {@link ItemProcessor}, which PUTs to the contract key and confirms by compare-and-set. The sweeper
 * runs on its own thread at a fixed delay and pages through due rows with a per-axis keyset cursor.
 * The in-flight set of the queue keeps one row from being processed twice in this process; across
 * processes, duplicate PUTs of identical bytes are accepted and the CAS confirm decides. A manual
 * ledger has no threads at all: the caller runs sweep rounds and drains the queue.
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
  private final ItemProcessor processor;
  private final Sweeper sweeper;
  private final AtomicReference<Lifecycle> lifecycle = new AtomicReference<>(Lifecycle.NEW);
  private final List<Thread> workers = new ArrayList<>();
  private ScheduledExecutorService sweepThread;

  public DefaultLedger(LedgerConfig config, boolean manual) {
    this.config = Objects.requireNonNull(config, "config");
    this.manual = manual;
    this.store = config.stateStore();
    this.guard = new PathGuard(config.allowedRoot());
    this.events = new Events(config.listeners());
    this.queue = new WorkQueue(config.queueCapacity());
    this.processor = new ItemProcessor(config, guard, events);
    this.sweeper = new Sweeper(store, config.clock(), config.sweepBatchSize(), this::offer);
  }

  @Override
  public Registration register(ItemId id, Path file) {
    Objects.requireNonNull(id, "id");
    if (file == null || file.toString().isEmpty()) {
      throw new IllegalArgumentException("file must be a non-empty path");
    }
    requireOpen();
    Instant now = config.clock().instant();
    NewItem row;
    try {
      PathGuard.Checked checked = guard.check(file);
      row = checked.size() == 0
          ? NewItem.rejected(id, checked.realPath().toString(), 0, Reason.EMPTY_FILE, file + " is empty", now)
          : NewItem.pending(id, checked.realPath().toString(), checked.size(), now);
    } catch (FileRejectedException e) {
      row = NewItem.rejected(id, guard.absolute(file).toString(), 0, e.reason(), e.getMessage(), now);
    }
    RegisterResult result = store.register(row);
    LedgerItem item = result.item();
    if (result.created() && item.state() == ItemState.REJECTED) {
      log.warn("refused {} at registration: {} ({})", id, item.reason(), item.lastError());
      events.onFailed(item, item.reason(), item.lastError(), true);
    }
    Offer offer = item.state() == ItemState.PENDING ? offer(item, false) : Offer.NOT_OFFERED;
    return new Registration(item, result.created(), offer);
  }

  private Offer offer(LedgerItem item, boolean fromSweep) {
    Offer offer = queue.offer(item, fromSweep);
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
  public LedgerStats stats() {
    return events.snapshot();
  }

  @Override
  public void start() {
    if (manual || !lifecycle.compareAndSet(Lifecycle.NEW, Lifecycle.RUNNING)) {
      if (lifecycle.get() == Lifecycle.CLOSED) {
        throw new IllegalStateException("ledger is closed");
      }
      return;
    }
    ThreadFactory factory = named("segment-ledger-worker-");
    for (int i = 0; i < config.workers(); i++) {
      Thread worker = factory.newThread(this::workLoop);
      workers.add(worker);
      worker.start();
    }
    sweepThread = Executors.newSingleThreadScheduledExecutor(named("segment-ledger-sweeper-"));
    long interval = config.sweepInterval().toMillis();
    sweepThread.scheduleWithFixedDelay(this::sweepSafely, 0, interval, TimeUnit.MILLISECONDS);
    log.info("ledger started: {} workers, queue capacity {}, sweep batch {} every {}", config.workers(),
        config.queueCapacity(), config.sweepBatchSize(), config.sweepInterval());
  }

  private void workLoop() {
    while (lifecycle.get() == Lifecycle.RUNNING) {
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

  private void processAndRelease(WorkQueue.Work work) {
    try {
      processor.process(work);
    } finally {
      queue.release(work.item().rowId());
    }
  }

  private void sweepSafely() {
    try {
      SweepReport report = sweeper.round();
      if (report.accepted() > 0 || report.saturated() > 0) {
        log.debug("sweep {}", report);
      }
    } catch (RuntimeException e) {
      log.warn("sweep round failed; retrying next round", e);
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
