package dev.segmentledger.core.internal;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;
import java.util.concurrent.locks.ReentrantLock;
import java.util.function.Consumer;
import java.util.function.ToIntFunction;

/**
 * Group commit without a thread of its own: callers queue items, and whichever caller finds no
 * commit running becomes the leader and commits everything queued so far in batches, while the
 * others return at once. A lone caller commits its own item immediately, so nothing waits for a
 * batch to fill; under load, batches grow by themselves while the previous one commits.
 *
 * <p>A batch takes queued items in order up to {@code maxWeight} (at least one item, whatever its
 * weight). The {@code commit} function must settle every item of its batch (complete a future,
 * release a slot) and should not throw; what it throws reaches the leading caller. The queue is
 * bounded: a caller that finds it full helps commit, or waits a moment while another caller
 * leads, so commits bound the producers. Thread-safe.
 *
 * @param <I> what is committed
 */
final class GroupCommit<I> {
  private final BlockingQueue<I> waiting;
  private final int maxWeight;
  private final ToIntFunction<I> weight;
  private final Consumer<List<I>> commit;
  private final ReentrantLock leader = new ReentrantLock();

  GroupCommit(int capacity, int maxWeight, ToIntFunction<I> weight, Consumer<List<I>> commit) {
    this.waiting = new LinkedBlockingQueue<>(capacity);
    this.maxWeight = maxWeight;
    this.weight = weight;
    this.commit = commit;
  }

  /**
   * Queues {@code item} and commits what is waiting unless another caller does so already. Returns
   * once the item is committed, or queued for the caller leading now.
   */
  void submit(I item) {
    while (!waiting.offer(item)) {
      if (!commitWaiting()) {
        LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(1)); // full, and another caller leads
      }
    }
    commitWaiting();
  }

  /**
   * Commits, in batches, whatever is waiting, unless another caller leads already. Leading until
   * the queue is empty, and checking again after giving up the lead, means an item queued while
   * another caller leads is always committed by someone.
   *
   * @return whether this call committed anything
   */
  boolean commitWaiting() {
    boolean committedAny = false;
    while (!waiting.isEmpty() && leader.tryLock()) {
      try {
        List<I> batch = takeBatch();
        if (!batch.isEmpty()) {
          commit.accept(batch);
          committedAny = true;
        }
      } finally {
        leader.unlock();
      }
    }
    return committedAny;
  }

  /** The next batch; only the leader takes from the queue, so what it peeks is what it polls. */
  private List<I> takeBatch() {
    List<I> batch = new ArrayList<>();
    int total = 0;
    for (I next = waiting.peek(); next != null; next = waiting.peek()) {
      int w = weight.applyAsInt(next);
      if (!batch.isEmpty() && total + w > maxWeight) {
        break;
      }
      waiting.poll();
      batch.add(next);
      total += w;
    }
    return batch;
  }
}
