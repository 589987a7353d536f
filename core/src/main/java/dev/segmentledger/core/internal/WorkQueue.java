package dev.segmentledger.core.internal;

import dev.segmentledger.core.LedgerItem;
import dev.segmentledger.core.Registration.Offer;
import java.time.Instant;
import java.util.Iterator;
import java.util.Map;
import java.util.concurrent.ArrayBlockingQueue;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;

/**
 * The bounded queue between registration/sweeper and the workers. It limits pressure; it is not
 * a ledger: anything in it may vanish with the process, and the rows bring it back.
 *
 * <p>An offer never blocks. A row already queued or being processed is not queued twice: its
 * slot is held by its {@link InFlight} handle from the offer until the handle is released. A full
 * queue drops the offer and the caller counts saturation. Thread-safe.
 */
final class WorkQueue {
  private final BlockingQueue<InFlight> queue;
  private final Map<Long, InFlight> slots = new ConcurrentHashMap<>();

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
    InFlight work = new InFlight(item, fromSweep, leasedUntil, this::free);
    if (slots.putIfAbsent(item.rowId(), work) != null) {
      return Offer.DUPLICATE;
    }
    if (!queue.offer(work)) {
      work.release();
      return Offer.SATURATED;
    }
    return Offer.ACCEPTED;
  }

  private void free(InFlight work) {
    slots.remove(work.item().rowId(), work);
  }

  /** The next work, waiting up to the timeout; {@code null} if none arrived. The taker must finish it. */
  InFlight poll(long timeout, TimeUnit unit) throws InterruptedException {
    return queue.poll(timeout, unit);
  }

  /** The next work without waiting; {@code null} if the queue is empty. The taker must finish it. */
  InFlight poll() {
    return queue.poll();
  }

  /**
   * Hands {@code action} the queued work from the head (the longest waiting first), at most
   * {@code max} of them, without taking it: a weakly consistent view, which may miss work offered
   * or taken meanwhile, and work handed here may be taken by a worker at any time.
   */
  void forEachQueued(int max, Consumer<InFlight> action) {
    Iterator<InFlight> queued = queue.iterator();
    for (int i = 0; i < max && queued.hasNext(); i++) {
      action.accept(queued.next());
    }
  }

  int remainingCapacity() {
    return queue.remainingCapacity();
  }

  int size() {
    return queue.size();
  }

  int inFlight() {
    return slots.size();
  }
}
