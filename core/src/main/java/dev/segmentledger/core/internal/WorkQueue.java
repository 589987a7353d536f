package dev.segmentledger.core.internal;

import dev.segmentledger.core.LedgerItem;
import dev.segmentledger.core.Registration.Offer;
import java.time.Instant;
import java.util.Set;
import java.util.concurrent.ArrayBlockingQueue;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;

/**
 * The bounded queue between registration/sweeper and the workers. It limits pressure; it is not
 * a ledger: anything in it may vanish with the process, and the rows bring it back.
 *
 * <p>An offer never blocks. A row already queued or being processed is not queued twice (the
 * in-flight set holds it from offer until {@link #release}). A full queue drops the offer and the
 * caller counts saturation. Thread-safe.
 */
final class WorkQueue {
  private final BlockingQueue<Work> queue;
  private final Set<Long> inFlight = ConcurrentHashMap.newKeySet();

  WorkQueue(int capacity) {
    this.queue = new ArrayBlockingQueue<>(capacity);
  }

  /**
   * Offers an item.
   *
   * @param leasedUntil the end of the lease this instance took on the row at its registration, or
   *     {@code null}
   */
  Offer offer(LedgerItem item, boolean fromSweep, Instant leasedUntil) {
    if (!inFlight.add(item.rowId())) {
      return Offer.DUPLICATE;
    }
    if (!queue.offer(new Work(item, fromSweep, leasedUntil))) {
      inFlight.remove(item.rowId());
      return Offer.SATURATED;
    }
    return Offer.ACCEPTED;
  }

  /** The next work, waiting up to the timeout; {@code null} if none arrived. */
  Work poll(long timeout, TimeUnit unit) throws InterruptedException {
    return queue.poll(timeout, unit);
  }

  /** The next work without waiting; {@code null} if the queue is empty. */
  Work poll() {
    return queue.poll();
  }

  /** Ends the in-flight period of a row taken from the queue. */
  void release(long rowId) {
    inFlight.remove(rowId);
  }

  int remainingCapacity() {
    return queue.remainingCapacity();
  }

  int size() {
    return queue.size();
  }

  int inFlight() {
    return inFlight.size();
  }

  /**
   * One queued item; {@code fromSweep} items are re-read before upload (the page may be stale);
   * {@code leasedUntil} is the end of the lease taken at registration, or {@code null}.
   */
  record Work(LedgerItem item, boolean fromSweep, Instant leasedUntil) {}
}
