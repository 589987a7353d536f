package dev.segmentledger.benchmarks;

import dev.segmentledger.core.ItemId;
import dev.segmentledger.core.LedgerItem;
import dev.segmentledger.core.LedgerListener;
import dev.segmentledger.core.Reason;
import dev.segmentledger.core.StoredObjectInfo;
import java.time.Duration;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;

/** Counts confirms (and failures) and keeps the confirm time of each item, in System.nanoTime. */
final class ConfirmTracker implements LedgerListener {
  private final CountDownLatch remaining;
  private final Map<ItemId, Long> confirmedAt = new ConcurrentHashMap<>();
  /** Stage instants of each item (System.nanoTime), kept only if {@link #withStages} asked for them. */
  private final Map<ItemId, Long> acceptedAt = new ConcurrentHashMap<>();
  private final Map<ItemId, Long> storedAt = new ConcurrentHashMap<>();
  private volatile boolean stages;
  private final AtomicLong failed = new AtomicLong();
  private final AtomicLong saturated = new AtomicLong();
  private volatile long lastConfirmNanos;

  ConfirmTracker(int expected) {
    this.remaining = new CountDownLatch(expected);
  }

  /** Also keeps when each item was accepted into the queue and stored by the sink (a latency breakdown). */
  ConfirmTracker withStages() {
    stages = true;
    return this;
  }

  @Override
  public void onAccepted(LedgerItem item) {
    if (stages) {
      acceptedAt.putIfAbsent(item.id(), System.nanoTime());
    }
  }

  @Override
  public void onStored(LedgerItem item, StoredObjectInfo object, Duration putTime) {
    if (stages) {
      storedAt.putIfAbsent(item.id(), System.nanoTime());
    }
  }

  @Override
  public void onConfirmed(LedgerItem item) {
    long now = System.nanoTime();
    lastConfirmNanos = now;
    if (confirmedAt.putIfAbsent(item.id(), now) == null) {
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

  Long confirmedAt(ItemId id) {
    return confirmedAt.get(id);
  }

  Long acceptedAt(ItemId id) {
    return acceptedAt.get(id);
  }

  Long storedAt(ItemId id) {
    return storedAt.get(id);
  }

  long failed() {
    return failed.get();
  }

  long saturated() {
    return saturated.get();
  }
}
