package dev.segmentledger.benchmarks;

import dev.segmentledger.core.ItemId;
import dev.segmentledger.core.Ledger;
import dev.segmentledger.core.Registration;
import dev.segmentledger.core.StoreException;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.locks.LockSupport;

/**
 * A recorder registering files live, one {@code register} per file from a pool of threads, each
 * file scheduled at {@code start + i / rate}, with the README's retry pattern: a
 * {@link StoreException} is logged with its outcome and the same file is registered again, after a
 * pause that doubles from 50 ms to 1 s, until a call returns. Everything a caller sees is kept per
 * file (in arrays by sequence, so the harness leaves no per-item objects): when its last attempt
 * started, when it returned, whether it created the row, how many attempts failed with which
 * outcome; and the failures themselves, counted by type, outcome and message.
 */
final class FailoverRecorder {
  static final long FIRST_PAUSE_MS = 50;
  static final long MAX_PAUSE_MS = 1_000;

  private final Ledger ledger;
  private final String broadcast;
  private final String rendition;
  private final List<Path> files;
  private final long periodNanos;
  private final int maxItems;
  private final ExecutorService threads;
  private final AtomicBoolean on = new AtomicBoolean(true);
  private final AtomicInteger scheduledUpTo = new AtomicInteger();
  private final AtomicInteger settled = new AtomicInteger();
  private final AtomicLong otherFailures = new AtomicLong();
  private volatile long faultAt = Long.MAX_VALUE;
  private final AtomicLong firstSuccessAfterFault = new AtomicLong(-1);
  private final Map<String, Long> failuresByKind = new LinkedHashMap<>();
  private final Map<String, String> firstOfKind = new LinkedHashMap<>();
  private final List<Long> failureTimes = new java.util.ArrayList<>();
  private Thread scheduler;
  final long[] scheduled;
  final long[] lastAttemptStart;
  final long[] returned;
  final boolean[] created;
  final int[] failedUnknown;
  final int[] failedNotWritten;

  FailoverRecorder(Ledger ledger, String broadcast, String rendition, List<Path> files, int perSecond, int threadCount,
      int maxItems) {
    this.ledger = ledger;
    this.broadcast = broadcast;
    this.rendition = rendition;
    this.files = files;
    this.periodNanos = TimeUnit.SECONDS.toNanos(1) / perSecond;
    this.maxItems = maxItems;
    AtomicInteger names = new AtomicInteger();
    this.threads = Executors.newFixedThreadPool(threadCount,
        r -> new Thread(r, "failover-recorder-" + names.incrementAndGet()));
    this.scheduled = new long[maxItems];
    this.lastAttemptStart = new long[maxItems];
    this.returned = new long[maxItems];
    this.created = new boolean[maxItems];
    this.failedUnknown = new int[maxItems];
    this.failedNotWritten = new int[maxItems];
    Arrays.fill(returned, -1);
  }

  ItemId idOf(int item) {
    return ItemId.original(broadcast, rendition, item);
  }

  /** Starts scheduling files from {@code t0}. */
  void start(long t0) {
    scheduler = new Thread(() -> {
      for (int i = 0; i < maxItems && on.get(); i++) {
        long at = t0 + i * periodNanos;
        long wait;
        while ((wait = at - System.nanoTime()) > 0) {
          LockSupport.parkNanos(wait);
        }
        int item = i;
        scheduled[item] = at;
        scheduledUpTo.set(item + 1);
        threads.execute(() -> registerUntilDone(item));
      }
    }, "failover-load");
    scheduler.start();
  }

  /** The README's retry pattern, with what the recorder saw kept for the figures. */
  private void registerUntilDone(int item) {
    long pauseMs = FIRST_PAUSE_MS;
    try {
      while (true) {
        long attemptStart = System.nanoTime();
        try {
          Registration registration = ledger.register(idOf(item), files.get(item % files.size()));
          lastAttemptStart[item] = attemptStart;
          created[item] = registration.created();
          long now = System.nanoTime();
          returned[item] = now;
          if (attemptStart >= faultAt) {
            firstSuccessAfterFault.compareAndSet(-1, now);
          }
          return;
        } catch (StoreException e) {
          if (e.mayHaveWritten()) {
            failedUnknown[item]++;
          } else {
            failedNotWritten[item]++;
          }
          count(e);
          TimeUnit.MILLISECONDS.sleep(pauseMs);
          pauseMs = Math.min(2 * pauseMs, MAX_PAUSE_MS);
        }
      }
    } catch (RuntimeException | InterruptedException e) {
      otherFailures.incrementAndGet(); // not a documented outcome of register: the measure reports it
      count(e);
    } finally {
      settled.incrementAndGet();
    }
  }

  private synchronized void count(Exception e) {
    failureTimes.add(System.nanoTime());
    String outcome = e instanceof StoreException s ? s.writeOutcome().name() : "not a StoreException";
    String kind = e.getClass().getSimpleName() + " " + outcome + ": " + shape(e.getMessage());
    failuresByKind.merge(kind, 1L, Long::sum);
    firstOfKind.putIfAbsent(kind, e.getClass().getName() + ": " + e.getMessage());
  }

  /** The message without its numbers (row counts, ports, milliseconds), so that alike failures count together. */
  private static String shape(String message) {
    String m = String.valueOf(message).replaceAll("\\d+", "N");
    return m.length() > 300 ? m.substring(0, 300) + "..." : m;
  }

  /** Stops scheduling; waits until every scheduled file is registered (or {@code within} passed). */
  boolean stopAndAwait(long withinMillis) throws InterruptedException {
    on.set(false);
    scheduler.join();
    threads.shutdown();
    return threads.awaitTermination(withinMillis, TimeUnit.MILLISECONDS);
  }

  /** The fault's instant: from then on, the first call that starts and returns is recorded. */
  void markFault(long nanos) {
    faultAt = nanos;
  }

  /** When the first call that started after the fault returned; -1 while none has. */
  long firstSuccessAfterFault() {
    return firstSuccessAfterFault.get();
  }

  int scheduledItems() {
    return scheduledUpTo.get();
  }

  long otherFailures() {
    return otherFailures.get();
  }

  /** Failed attempts by exception type, outcome and message shape. */
  synchronized Map<String, Long> failuresByKind() {
    return new LinkedHashMap<>(failuresByKind);
  }

  /** When each failed call returned ({@code System.nanoTime()}). */
  synchronized long[] failureTimes() {
    return failureTimes.stream().mapToLong(Long::longValue).toArray();
  }

  /** One full message per kind of {@link #failuresByKind()}. */
  synchronized Map<String, String> firstOfKind() {
    return new LinkedHashMap<>(firstOfKind);
  }
}
