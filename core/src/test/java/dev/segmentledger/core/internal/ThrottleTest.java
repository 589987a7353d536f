package dev.segmentledger.core.internal;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.InterruptedIOException;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.stream.IntStream;
import org.junit.jupiter.api.Test;

/**
 * The bandwidth cap on real time: streams that always want more get the cap's rate and no more,
 * and a change of the cap reaches the streams in flight. Four streams ask for 64 KiB chunks.
 */
class ThrottleTest {
  private static final int CHUNK_UNITS = 64; // 64 KiB
  private static final long MIB = 1024 * 1024;

  @Test
  void streamsThatWantMoreGetTheCapWithinFivePercentOverAWindow() throws Exception {
    Throttle throttle = new Throttle(8 * MIB, 0);
    long start = System.nanoTime();
    List<Long> grants = run(throttle, 4, TimeUnit.SECONDS.toNanos(4), null);
    double rate = bytesPerSecond(grants, start + TimeUnit.SECONDS.toNanos(1), start + TimeUnit.SECONDS.toNanos(4));
    assertTrue(rate <= 8 * MIB * 1.05, "over the cap: " + rate);
    assertTrue(rate >= 8 * MIB * 0.90, "far under the cap: " + rate);
    assertEquals(grants.size() * CHUNK_UNITS * (long) Throttle.UNIT, throttle.bodyBytes());
    assertTrue(throttle.tokenWait().toMillis() > 1_000, "the streams waited for tokens: " + throttle.tokenWait());
  }

  @Test
  void aCapChangedAtRunTimeIsFollowedWithinTwoSeconds() throws Exception {
    Throttle throttle = new Throttle(16 * MIB, 0);
    long start = System.nanoTime();
    long change = start + TimeUnit.SECONDS.toNanos(1);
    List<Long> grants = run(throttle, 4, TimeUnit.SECONDS.toNanos(4), new long[] {change, 4 * MIB});
    double before = bytesPerSecond(grants, start + TimeUnit.MILLISECONDS.toNanos(200), change);
    double after = bytesPerSecond(grants, change + TimeUnit.SECONDS.toNanos(2), start + TimeUnit.SECONDS.toNanos(4));
    assertTrue(before > 12 * MIB, "before the change: " + before);
    assertTrue(after <= 4 * MIB * 1.05 && after >= 4 * MIB * 0.90, "2 s after the change: " + after);
  }

  @Test
  void noCapLetsEverythingThroughAndStillCountsIt() throws Exception {
    Throttle throttle = new Throttle(0, 0);
    throttle.units(1_000_000, true);
    throttle.request();
    assertEquals(0, throttle.tokenWait().toSeconds());
  }

  /** Runs streams until {@code duration} has passed; {@code change}: at nanoTime [0] the cap becomes [1]. */
  private static List<Long> run(Throttle throttle, int streams, long duration, long[] change) throws Exception {
    ConcurrentLinkedQueue<Long> grants = new ConcurrentLinkedQueue<>();
    long end = System.nanoTime() + duration;
    AtomicLong changed = new AtomicLong();
    List<Thread> threads = IntStream.range(0, streams).mapToObj(i -> new Thread(() -> {
      try {
        while (System.nanoTime() < end) {
          if (change != null && System.nanoTime() >= change[0] && changed.compareAndSet(0, 1)) {
            throttle.set(change[1], 0, 1);
          }
          throttle.sent(CHUNK_UNITS * (long) Throttle.UNIT);
          throttle.units(CHUNK_UNITS, false);
          grants.add(System.nanoTime());
        }
      } catch (InterruptedIOException e) {
        Thread.currentThread().interrupt();
      }
    })).toList();
    threads.forEach(Thread::start);
    for (Thread thread : threads) {
      thread.join();
    }
    return List.copyOf(grants);
  }

  @Test
  void whileALiveStreamIsOpenTheLowerLanesKeepToTheirShareAndTheLiveStreamGetsTheRest() throws Exception {
    Throttle throttle = new Throttle(8 * MIB, 0, 0.4);
    long start = System.nanoTime();
    long liveFrom = start + TimeUnit.SECONDS.toNanos(1);
    long liveTo = start + TimeUnit.SECONDS.toNanos(3);
    long end = start + TimeUnit.SECONDS.toNanos(4);
    ConcurrentLinkedQueue<Long> lower = new ConcurrentLinkedQueue<>();
    ConcurrentLinkedQueue<Long> live = new ConcurrentLinkedQueue<>();
    List<Thread> threads = new java.util.ArrayList<>();
    for (int i = 0; i < 3; i++) {
      threads.add(stream(throttle, false, start, end, lower));
    }
    threads.add(stream(throttle, true, liveFrom, liveTo, live));
    threads.forEach(Thread::start);
    for (Thread thread : threads) {
      thread.join();
    }
    long settle = TimeUnit.MILLISECONDS.toNanos(200);
    double lowerAlone = bytesPerSecond(List.copyOf(lower), start + settle, liveFrom);
    double lowerBeside = bytesPerSecond(List.copyOf(lower), liveFrom + settle, liveTo);
    double liveRate = bytesPerSecond(List.copyOf(live), liveFrom + settle, liveTo);
    double lowerAfter = bytesPerSecond(List.copyOf(lower), liveTo + settle, end);
    assertTrue(lowerAlone >= 8 * MIB * 0.85, "without a live stream the lower lanes get the cap: " + lowerAlone);
    assertTrue(lowerBeside <= 8 * MIB * 0.4 * 1.1, "beside a live stream, at most their share: " + lowerBeside);
    assertTrue(lowerBeside >= 8 * MIB * 0.4 * 0.8, "beside a live stream, still their share: " + lowerBeside);
    assertTrue(liveRate >= 8 * MIB * 0.6 * 0.85, "the live stream gets the rest: " + liveRate);
    assertTrue(lowerBeside + liveRate <= 8 * MIB * 1.05, "the cap holds: " + (lowerBeside + liveRate));
    assertTrue(lowerAfter >= 8 * MIB * 0.85, "once the live stream ended, the cap again: " + lowerAfter);
  }

  @Test
  void withoutLanesALiveStreamGoesFirstInNoWay() throws Exception {
    Throttle throttle = new Throttle(8 * MIB, 0, 1);
    throttle.liveOpened();
    long start = System.nanoTime();
    List<Long> grants = run(throttle, 2, TimeUnit.SECONDS.toNanos(2), null);
    double rate = bytesPerSecond(grants, start + TimeUnit.MILLISECONDS.toNanos(200), start + TimeUnit.SECONDS.toNanos(2));
    assertTrue(rate >= 8 * MIB * 0.85, "every stream shares the whole cap: " + rate);
  }

  /** A stream that asks for chunks from {@code from} to {@code to}, counted as live from open to its end if {@code live}. */
  private static Thread stream(Throttle throttle, boolean live, long from, long to, ConcurrentLinkedQueue<Long> grants) {
    return new Thread(() -> {
      try {
        while (System.nanoTime() < from) {
          Thread.sleep(1);
        }
        if (live) {
          throttle.liveOpened();
        }
        try {
          while (System.nanoTime() < to) {
            throttle.units(CHUNK_UNITS, live);
            grants.add(System.nanoTime());
          }
        } finally {
          if (live) {
            throttle.liveEnded();
          }
        }
      } catch (InterruptedIOException | InterruptedException e) {
        Thread.currentThread().interrupt();
      }
    });
  }

  @Test
  void closeEndsEveryWaitForTokensPromptlyAndRefusesLaterOnes() throws Exception {
    Throttle throttle = new Throttle(Throttle.UNIT, 0); // one unit a second
    throttle.units(1, true); // the cap's first unit: the next asker waits
    CompletableFuture<Throwable> waiter = new CompletableFuture<>();
    Thread thread = new Thread(() -> {
      try {
        throttle.units(600, true); // ten minutes of tokens
        waiter.complete(null);
      } catch (Throwable t) {
        waiter.complete(t);
      }
    });
    thread.start();
    while (thread.getState() != Thread.State.TIMED_WAITING) {
      Thread.onSpinWait();
    }
    throttle.close();
    Throwable ended = waiter.get(5, TimeUnit.SECONDS);
    assertTrue(ended instanceof InterruptedIOException, "ended by close: " + ended);
    assertFalse(thread.isInterrupted(), "close does not interrupt the waiter");
    assertThrows(InterruptedIOException.class, () -> throttle.units(1, true));
  }

  private static double bytesPerSecond(List<Long> grants, long from, long to) {
    long chunks = grants.stream().filter(t -> t >= from && t < to).count();
    return chunks * CHUNK_UNITS * (double) Throttle.UNIT / ((to - from) / 1e9);
  }
}
