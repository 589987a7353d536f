package dev.segmentledger.benchmarks;

import dev.segmentledger.core.ItemId;
import dev.segmentledger.core.LedgerItem;
import dev.segmentledger.core.LedgerListener;
import dev.segmentledger.core.Reason;
import dev.segmentledger.core.StoredObjectInfo;
import java.time.Duration;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicLongArray;

/**
 * Counts confirms (and failures) and keeps the confirm time of each item, in System.nanoTime, in
 * arrays indexed by the item's sequence (the measures register sequences 0 to expected - 1). Not
 * maps: a map entry per item outlived every young collection of a run, and the collector's work
 * on those survivors was the harness's, not the ledger's (G1 pauses of 10 to 24 ms at 5,000
 * items/s). Thread-safe for the listener calls; read the instants after {@link #await}.
 */
final class ConfirmTracker implements LedgerListener {
  private final CountDownLatch remaining;
  private final AtomicLongArray confirmedAt;
  /** Stage instants of each item, kept only if {@link #withStages} asked for them; 0: none yet. */
  private final AtomicLongArray acceptedAt;
  private final AtomicLongArray storedAt;
  private volatile boolean stages;
  private final AtomicLong failed = new AtomicLong();
  private final AtomicLong saturated = new AtomicLong();
  private volatile long lastConfirmNanos;

  ConfirmTracker(int expected) {
    this.remaining = new CountDownLatch(expected);
    this.confirmedAt = new AtomicLongArray(expected);
    this.acceptedAt = new AtomicLongArray(expected);
    this.storedAt = new AtomicLongArray(expected);
  }

  /** Also keeps when each item was accepted into the queue and stored by the sink (a latency breakdown). */
  ConfirmTracker withStages() {
    stages = true;
    return this;
  }

  @Override
  public void onAccepted(LedgerItem item) {
    if (stages) {
      acceptedAt.compareAndSet(index(item.id()), 0, System.nanoTime());
    }
  }

  @Override
  public void onStored(LedgerItem item, StoredObjectInfo object, Duration putTime) {
    if (stages) {
      storedAt.compareAndSet(index(item.id()), 0, System.nanoTime());
    }
  }

  @Override
  public void onConfirmed(LedgerItem item) {
    long now = System.nanoTime();
    lastConfirmNanos = now;
    if (confirmedAt.compareAndSet(index(item.id()), 0, now)) {
      remaining.countDown();
    }
  }

  @Override
  public void onFailed(LedgerItem item, Reason reason, String detail, boolean terminal) {
    failed.incrementAndGet();
  }

  @Override
  public void onSaturated(LedgerItem item) {
    saturated.incrementAndGet();
  }

  /** Waits until every expected item is confirmed; throws if the timeout passes first. */
  void await(Duration timeout) throws InterruptedException {
    if (!remaining.await(timeout.toMillis(), TimeUnit.MILLISECONDS)) {
      throw new IllegalStateException(remaining.getCount() + " items not confirmed within " + timeout
          + " (failed attempts: " + failed.get() + ")");
    }
  }

  long lastConfirmNanos() {
    return lastConfirmNanos;
  }

  /** When the item of {@code sequence} was confirmed (System.nanoTime), or 0 if not yet. */
  long confirmedAt(int sequence) {
    return confirmedAt.get(sequence);
  }

  long acceptedAt(int sequence) {
    return acceptedAt.get(sequence);
  }

  long storedAt(int sequence) {
    return storedAt.get(sequence);
  }

  long failed() {
    return failed.get();
  }

  long saturated() {
    return saturated.get();
  }

  private int index(ItemId id) {
    return Math.toIntExact(id.sequence());
  }
}
