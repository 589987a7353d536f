package dev.segmentledger.core.internal;

import dev.segmentledger.core.Lane;
import dev.segmentledger.core.LedgerItem;
import dev.segmentledger.core.Registration.Offer;
import dev.segmentledger.core.Uplink;
import dev.segmentledger.core.UplinkStats.LaneStats;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.EnumMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.Condition;
import java.util.concurrent.locks.ReentrantLock;
import java.util.function.Consumer;
import java.util.function.Function;

/**
 * The bounded queue between registration/sweeper and the workers. It limits pressure; it is not
 * a ledger: anything in it may vanish with the process, and the rows bring it back.
 *
 * <p>An offer never blocks. A row already queued or being processed is not queued twice: its
 * slot is held by its {@link InFlight} handle from the offer until the handle is released. A full
 * queue drops the offer and the caller counts saturation. One capacity for all lanes, of which the
 * lower lanes may not fill the last part: an original of a live broadcast is refused once the queue
 * is 7/8 full, backfill once it is 3/4 full, so that a backlog never keeps live work out of the
 * queue. Each offer goes into the lane {@code laneOf} gives it, and each take comes from the lane the
 * {@link LanePicker} picks (in arrival order within a lane). Thread-safe.
 */
final class WorkQueue {
  private final int capacity;
  private final Function<LedgerItem, Lane> laneOf;
  private final Clock clock;
  private final LanePicker picker;
  private final List<ArrayDeque<Waiting>> lanes = new ArrayList<>();
  private final long[] taken = new long[Lane.values().length];
  private final ReentrantLock lock = new ReentrantLock();
  private final Condition notEmpty = lock.newCondition();
  private final Map<Long, InFlight> slots = new ConcurrentHashMap<>();
  private int count;
  /** Work of the lower lanes taken and not yet released: at most {@link #maxLowerBusy} at a time. */
  private final java.util.Set<InFlight> lowerBusy = ConcurrentHashMap.newKeySet();
  private final int maxLowerBusy;
  /** Whether originals of live broadcasts count as lower work too (with three workers or more). */
  private final boolean originalsKeptOffTheLastWorker;

  private record Waiting(InFlight work, Instant since) {}

  /** One lane, arrival order: the queue as it was before lanes (no aging, so a fixed clock). */
  WorkQueue(int capacity) {
    this(capacity, item -> Lane.LIVE, Clock.fixed(Instant.EPOCH, java.time.ZoneOffset.UTC), Uplink.DEFAULT);
  }

  /** @param laneOf the lane a row's intent gives it (its axis, its broadcast's phase, a hint) */
  WorkQueue(int capacity, Function<LedgerItem, Lane> laneOf, Clock clock, Uplink settings) {
    this(capacity, laneOf, clock, settings, 0);
  }

  /**
   * @param workers the workers taking from this queue: with two or more (and lanes on), backfill
   *     occupies at most all but one of them, so live work never waits for a long upload to end;
   *     with three or more, backfill and originals of live broadcasts together (with two, an
   *     original may wait for another's judgement: both may go); 0: no such limit (a manual ledger
   *     drains in the caller)
   */
  WorkQueue(int capacity, Function<LedgerItem, Lane> laneOf, Clock clock, Uplink settings, int workers) {
    this.maxLowerBusy = workers >= 2 ? workers - 1 : Integer.MAX_VALUE;
    this.originalsKeptOffTheLastWorker = workers >= 3;
    this.capacity = capacity;
    this.laneOf = laneOf;
    this.clock = clock;
    this.picker = new LanePicker(settings);
    for (Lane ignored : Lane.values()) {
      lanes.add(new ArrayDeque<>());
    }
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
    Lane intended = laneOf.apply(item); // may read the store: outside the lock
    lock.lock();
    try {
      Lane lane = picker.queueOf(intended);
      if (count < capacity - headroom(lane)) {
        lanes.get(lane.ordinal()).addLast(new Waiting(work, clock.instant()));
        count++;
        notEmpty.signal();
        return Offer.ACCEPTED;
      }
    } finally {
      lock.unlock();
    }
    work.release();
    return Offer.SATURATED;
  }

  /** Whether work is taken by lanes now ({@link Uplink#lanes}), or in one queue in arrival order. */
  boolean lanes() {
    return picker.settings().lanes();
  }

  /** The part of the capacity kept for the lanes above {@code lane}. */
  private int headroom(Lane lane) {
    return switch (lane) {
      case LIVE -> 0;
      case ORIGINAL -> capacity / 8;
      case BACKFILL -> capacity / 4;
    };
  }

  private void free(InFlight work) {
    slots.remove(work.item().rowId(), work);
    if (lowerBusy.remove(work)) {
      lock.lock();
      try {
        notEmpty.signalAll(); // lower-lane work waiting for a worker may be taken now
      } finally {
        lock.unlock();
      }
    }
  }

  /** The next work, waiting up to the timeout; {@code null} if none arrived. The taker must finish it. */
  InFlight poll(long timeout, TimeUnit unit) throws InterruptedException {
    long nanos = unit.toNanos(timeout);
    lock.lockInterruptibly();
    try {
      InFlight work;
      while ((work = take()) == null) {
        if (nanos <= 0) {
          return null;
        }
        nanos = notEmpty.awaitNanos(nanos);
      }
      return work;
    } finally {
      lock.unlock();
    }
  }

  /** The next work without waiting; {@code null} if the queue is empty. The taker must finish it. */
  InFlight poll() {
    lock.lock();
    try {
      return take();
    } finally {
      lock.unlock();
    }
  }

  /** The next work the picker gives, under the lock; {@code null} if none may be taken now. */
  private InFlight take() {
    if (count == 0) {
      return null;
    }
    int[] waiting = new int[lanes.size()];
    boolean lowerMayGo = lowerBusy.size() < maxLowerBusy || !picker.settings().lanes();
    for (int i = 0; i < waiting.length; i++) {
      waiting[i] = !isLower(Lane.values()[i]) || lowerMayGo ? lanes.get(i).size() : 0;
    }
    Lane lane = picker.pick(waiting, waited(lanes.get(Lane.BACKFILL.ordinal()).peekFirst(), clock.instant()));
    if (lane == null) {
      return null;
    }
    count--;
    taken[lane.ordinal()]++;
    InFlight work = lanes.get(lane.ordinal()).pollFirst().work();
    work.takenFrom(lane);
    if (isLower(lane) && picker.settings().lanes()) {
      lowerBusy.add(work);
    }
    return work;
  }

  /** Whether work of {@code lane} is kept off the last worker. */
  private boolean isLower(Lane lane) {
    return lane == Lane.BACKFILL || lane == Lane.ORIGINAL && originalsKeptOffTheLastWorker;
  }

  private static Duration waited(Waiting head, Instant now) {
    return head == null || now.isBefore(head.since()) ? Duration.ZERO : Duration.between(head.since(), now);
  }

  /**
   * Hands {@code action} the queued work, highest lane first and the longest waiting first within a
   * lane, at most {@code max} of them, without taking it: a snapshot, which may miss work offered
   * or taken meanwhile, and work handed here may be taken by a worker at any time.
   */
  void forEachQueued(int max, Consumer<InFlight> action) {
    List<InFlight> snapshot = new ArrayList<>();
    lock.lock();
    try {
      for (ArrayDeque<Waiting> lane : lanes) {
        for (Waiting waiting : lane) {
          if (snapshot.size() >= max) {
            break;
          }
          snapshot.add(waiting.work());
        }
      }
    } finally {
      lock.unlock();
    }
    snapshot.forEach(action);
  }

  /**
   * Moves the queued work of {@code broadcastId} that is not backfill to the end of the backfill lane
   * (the broadcast has just ended), unless lanes are off. Work offered later gets its lane as usual.
   */
  void toBackfill(String broadcastId) {
    lock.lock();
    try {
      if (!picker.settings().lanes()) {
        return;
      }
      ArrayDeque<Waiting> backfill = lanes.get(Lane.BACKFILL.ordinal());
      for (Lane lane : List.of(Lane.LIVE, Lane.ORIGINAL)) {
        lanes.get(lane.ordinal()).removeIf(waiting -> {
          boolean moves = waiting.work().item().id().broadcastId().equals(broadcastId);
          if (moves) {
            backfill.addLast(waiting);
          }
          return moves;
        });
      }
    } finally {
      lock.unlock();
    }
  }

  /** Changes the lanes' settings for the next offers and takes (work already queued keeps its lane). */
  void settings(Uplink settings) {
    lock.lock();
    try {
      picker.settings(settings);
    } finally {
      lock.unlock();
    }
  }

  /** Per lane: the work waiting, how long its oldest has waited, the work taken since start. */
  Map<Lane, LaneStats> laneStats() {
    Map<Lane, LaneStats> stats = new EnumMap<>(Lane.class);
    lock.lock();
    try {
      Instant now = clock.instant();
      for (Lane lane : Lane.values()) {
        ArrayDeque<Waiting> queued = lanes.get(lane.ordinal());
        stats.put(lane, new LaneStats(queued.size(), waited(queued.peekFirst(), now), taken[lane.ordinal()]));
      }
    } finally {
      lock.unlock();
    }
    return stats;
  }

  /** How many more items the queue takes now in every lane: the lowest lane's room. */
  int remainingCapacity() {
    lock.lock();
    try {
      return Math.max(0, capacity - headroom(picker.queueOf(Lane.BACKFILL)) - count);
    } finally {
      lock.unlock();
    }
  }

  int size() {
    lock.lock();
    try {
      return count;
    } finally {
      lock.unlock();
    }
  }

  int inFlight() {
    return slots.size();
  }
}
