package dev.segmentledger.core.internal;

import dev.segmentledger.core.Axis;
import dev.segmentledger.core.ItemState;
import dev.segmentledger.core.LedgerItem;
import dev.segmentledger.core.Reason;
import dev.segmentledger.core.StoredObjectInfo;
import dev.segmentledger.core.spi.Confirmation;
import dev.segmentledger.core.spi.StateStore;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ArrayBlockingQueue;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.ThreadFactory;
import java.util.concurrent.TimeUnit;
import java.util.function.LongConsumer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Confirms stored items in batches: group commit for the compare-and-set confirms.
 *
 * <p>A worker whose PUT succeeded hands the item over with {@link #submit} and goes on with its
 * next item; one confirmer thread turns whatever has gathered meanwhile into one {@link
 * StateStore#confirmAll} call. At a low rate every batch holds one item and adds no wait; under
 * load, batches grow by themselves while the previous one commits. Until its confirm has
 * committed, an item is still in flight (the queue's de-duplication holds its row) and its row is
 * still PENDING: a crash in between is the "after PUT, before confirm" row of the crash table, and
 * the retry sends the same bytes to the same key. A full hand-over queue blocks the worker, so the
 * confirms bound the uploads. If a batch fails, its items are confirmed one by one, and an item
 * whose confirm fails is recorded as {@link Reason#INTERNAL_ERROR} with backoff.
 *
 * <p>Without a thread ({@linkplain #inline inline}, for a manual ledger or after {@link #close}),
 * {@link #submit} confirms in the caller's thread. Thread-safe.
 */
final class Confirmer {
  static final int MAX_BATCH = 512;
  private static final Logger log = LoggerFactory.getLogger(Confirmer.class);

  private final StateStore store;
  private final LedgerConfig config;
  private final Events events;
  private final Failures failures;
  private final Runnable initConfirmed;
  private final LongConsumer done;
  private final BlockingQueue<Stored> pending = new ArrayBlockingQueue<>(4 * MAX_BATCH);
  private volatile Thread thread;
  private volatile boolean running;

  /**
   * @param initConfirmed run after a batch that confirmed an INIT (its playback rows were released)
   * @param done called with the row id of each item once its confirm is over, whatever its outcome
   */
  Confirmer(LedgerConfig config, Events events, Failures failures, Runnable initConfirmed, LongConsumer done) {
    this.config = config;
    this.store = config.stateStore();
    this.events = events;
    this.failures = failures;
    this.initConfirmed = initConfirmed;
    this.done = done;
  }

  /** An item whose object is stored, waiting for its confirm. */
  record Stored(LedgerItem item, StoredObjectInfo object) {}

  /** Starts the confirmer thread; until then (and for a manual ledger) confirms run inline. */
  void start(ThreadFactory factory) {
    Thread confirmerThread = factory.newThread(this::run);
    thread = confirmerThread;
    running = true;
    confirmerThread.start();
  }

  /**
   * Hands over a stored item; returns at once unless the hand-over queue is full. Confirms inline
   * if there is no confirmer thread.
   */
  void submit(LedgerItem item, StoredObjectInfo object) {
    Stored stored = new Stored(item, object);
    try {
      // A confirmer thread that died (an Error) must not leave workers waiting: confirm inline then.
      while (running && thread.isAlive()) {
        if (pending.offer(stored, 100, TimeUnit.MILLISECONDS)) {
          return;
        }
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
    confirm(List.of(stored));
  }

  private void run() {
    List<Stored> batch = new ArrayList<>(MAX_BATCH);
    while (running || !pending.isEmpty()) {
      try {
        Stored first = pending.poll(100, TimeUnit.MILLISECONDS);
        if (first == null) {
          continue;
        }
        batch.add(first);
        pending.drainTo(batch, MAX_BATCH - 1);
        confirm(batch);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        break;
      } catch (RuntimeException | LinkageError | AssertionError e) {
        log.warn("confirming a batch failed unexpectedly; its rows stay unconfirmed for the sweeper", e);
        batch.forEach(s -> done.accept(s.item().rowId()));
      } finally {
        batch.clear();
      }
    }
  }

  /**
   * Stops taking hand-overs, confirms what was handed over already (waiting up to the deadline for
   * the thread), and confirms inline from then on.
   */
  void close(long deadlineNanos) {
    running = false;
    Thread current = thread;
    if (current != null) {
      try {
        long remaining = deadlineNanos - System.nanoTime();
        if (remaining > 0) {
          TimeUnit.NANOSECONDS.timedJoin(current, remaining);
        }
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
      }
      current.interrupt();
    }
    List<Stored> left = new ArrayList<>();
    pending.drainTo(left);
    if (!left.isEmpty()) {
      confirm(left);
    }
  }

  /** Confirms a batch and settles each item; never throws for a store failure. */
  void confirm(List<Stored> batch) {
    Instant now = config.clock().instant();
    List<Confirmation> confirmations = batch.stream()
        .map(s -> new Confirmation(s.item().rowId(), ItemState.PENDING, s.item().sizeBytes(), s.object().checksum(),
            now))
        .toList();
    boolean[] confirmed;
    boolean[] failed = new boolean[batch.size()];
    try {
      confirmed = store.confirmAll(confirmations);
    } catch (RuntimeException e) {
      log.warn("confirming a batch of {} failed; confirming them one by one", batch.size(), e);
      confirmed = oneByOne(batch, confirmations, failed);
    }
    boolean initReleased = false;
    for (int i = 0; i < batch.size(); i++) {
      LedgerItem item = batch.get(i).item();
      try {
        if (confirmed[i]) {
          events.onConfirmed(item);
          initReleased |= item.id().axis() == Axis.INIT;
        } else if (!failed[i]) {
          events.onConfirmLost(item);
        }
      } finally {
        done.accept(item.rowId());
      }
    }
    if (initReleased) {
      initConfirmed.run();
    }
  }

  /** Confirms each item alone; an item whose confirm throws is recorded as failed and flagged in {@code failed}. */
  private boolean[] oneByOne(List<Stored> batch, List<Confirmation> confirmations, boolean[] failed) {
    boolean[] confirmed = new boolean[batch.size()];
    for (int i = 0; i < batch.size(); i++) {
      Confirmation c = confirmations.get(i);
      try {
        confirmed[i] = store.confirm(c.rowId(), c.expectedState(), c.expectedSize(), c.checksum(), c.confirmedAt());
      } catch (RuntimeException e) {
        log.warn("confirming {} failed; the row stays unconfirmed", batch.get(i).item().id(), e);
        failures.record(batch.get(i).item(), Reason.INTERNAL_ERROR, "confirm failed: " + e);
        failed[i] = true;
      }
    }
    return confirmed;
  }
}
