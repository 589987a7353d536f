package dev.segmentledger.core.internal;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;
import java.util.concurrent.locks.ReentrantLock;
import java.util.function.BooleanSupplier;
import java.util.function.Consumer;
import java.util.function.ToIntFunction;

/**
 * Group commit without a thread of its own: callers queue items, and whichever caller finds no
 * commit running becomes the leader and commits what is queued in batches. A lone caller commits
 * its own item immediately, so nothing waits for a batch to fill; under load, batches grow by
 * themselves while the previous one commits.
 *
 * <p>A batch takes queued items in order up to {@code maxWeight} (at least one item, whatever its
 * weight). The {@code commit} function must settle every item of its batch (complete a future,
 * release a slot) and should not throw; what it throws reaches the leading caller. The queue is
 * bounded: a caller that finds it full helps commit, or waits a moment while another caller
 * leads, so commits bound the producers.
 *
 * <p>Two ways to submit. {@link #submit} returns as soon as the item is queued for a leader, which
 * goes on committing while anything is queued (for workers that need not wait for their confirm).
 * {@link #submitAndAwait} is for callers that wait for their own item: a leader commits one batch,
 * wakes the callers of that batch and hands the lead to the caller of the oldest item still queued.
 * No caller is kept committing other callers' items after its own is done (a leader that did so
 * held back its own caller for as long as items kept arriving). Do not mix the two on one instance.
 * Thread-safe.
 *
 * @param <I> what is committed
 */
final class GroupCommit<I> {
  /** A queued item and the thread waiting for it ({@code null}: no one waits, see {@link #submit}). */
  private record Entry<I>(I item, Thread waiter) {}

  private final BlockingQueue<Entry<I>> waiting;
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
    Entry<I> entry = new Entry<>(item, null);
    while (!waiting.offer(entry)) {
      if (!commitWaiting()) {
        LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(1)); // full, and another caller leads
      }
    }
    commitWaiting();
  }

  /**
   * Queues {@code item} and returns once {@code done} says the commit function settled it. The
   * caller leads one batch at a time when no other caller leads, and otherwise parks until it is
   * woken: by the leader of the batch its item was in, or as the caller of the oldest queued item
   * when a leader gives up the lead. Every queued item has its caller parked or running here, so
   * the lead always passes on while anything is queued. An interrupt does not end the wait (the
   * item is queued and will be committed); the caller's interrupt status is kept.
   */
  void submitAndAwait(I item, BooleanSupplier done) {
    Entry<I> entry = new Entry<>(item, Thread.currentThread());
    while (!waiting.offer(entry)) {
      if (!commitOneBatch()) {
        LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(1)); // full, and another caller leads
      }
    }
    boolean interrupted = false;
    while (!done.getAsBoolean()) {
      if (!commitOneBatch()) {
        // A wake-up given before this park is not lost (LockSupport keeps it); a spurious one loops.
        LockSupport.park(this);
        // The item is queued: its outcome is still awaited (as join() would), without spinning on the flag.
        interrupted |= Thread.interrupted();
      }
    }
    if (interrupted) {
      Thread.currentThread().interrupt();
    }
  }

  /**
   * One batch, unless another caller leads or nothing is queued. Wakes the waiting callers of the
   * batch, and after giving up the lead, the caller of the oldest item still queued, to lead next.
   */
  private boolean commitOneBatch() {
    if (waiting.isEmpty() || !leader.tryLock()) {
      return false;
    }
    List<Entry<I>> batch = List.of();
    try {
      batch = takeBatch();
      if (batch.isEmpty()) {
        return false;
      }
      commit.accept(batch.stream().map(Entry::item).toList());
      return true;
    } finally {
      leader.unlock();
      for (Entry<I> settled : batch) {
        wake(settled);
      }
      wake(waiting.peek());
    }
  }

  private static void wake(Entry<?> entry) {
    if (entry != null && entry.waiter() != null && entry.waiter() != Thread.currentThread()) {
      LockSupport.unpark(entry.waiter());
    }
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
    while (commitOneBatch()) { // items of submit() have no waiter: waking them is a no-op
      committedAny = true;
    }
    return committedAny;
  }

  /** How many items are queued, not yet taken by a leader. */
  int queued() {
    return waiting.size();
  }

  /** The next batch; only the leader takes from the queue, so what it peeks is what it polls. */
  private List<Entry<I>> takeBatch() {
    List<Entry<I>> batch = new ArrayList<>();
    int total = 0;
    for (Entry<I> next = waiting.peek(); next != null; next = waiting.peek()) {
      int w = weight.applyAsInt(next.item());
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
