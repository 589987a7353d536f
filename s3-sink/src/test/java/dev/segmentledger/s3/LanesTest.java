package dev.segmentledger.s3;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

class LanesTest {
  private final ExecutorService pool = Lanes.helperPool("lanes-test");

  @Test
  void runsEveryTaskOnceOnAtMostWidthThreads() throws Exception {
    Set<Integer> ran = ConcurrentHashMap.newKeySet();
    Set<String> threads = ConcurrentHashMap.newKeySet();
    AtomicInteger running = new AtomicInteger();
    AtomicInteger most = new AtomicInteger();
    CountDownLatch threeTogether = new CountDownLatch(3);

    new Lanes(pool, 3).run(20, i -> {
      most.accumulateAndGet(running.incrementAndGet(), Math::max);
      threeTogether.countDown();
      await(threeTogether);
      assertTrue(ran.add(i), "task " + i + " ran twice");
      threads.add(Thread.currentThread().getName());
      running.decrementAndGet();
    });

    assertEquals(20, ran.size());
    assertEquals(3, most.get());
    assertEquals(3, threads.size());
    assertTrue(threads.contains(Thread.currentThread().getName()), "the caller is a lane: " + threads);
  }

  @Test
  void aFailureStartsNoFurtherTaskAndIsThrownWithTheLaterOnesSuppressed() throws Exception {
    List<Integer> started = new CopyOnWriteArrayList<>();
    CountDownLatch bothRunning = new CountDownLatch(2);
    List<IOException> failures = List.of(new IOException("task 0"), new IOException("task 1"));

    IOException thrown = assertThrows(IOException.class, () -> new Lanes(pool, 2).run(10, i -> {
      started.add(i);
      bothRunning.countDown();
      await(bothRunning);
      throw failures.get(i);
    }));

    assertTrue(failures.contains(thrown), thrown::toString);
    assertEquals(failures.stream().filter(f -> f != thrown).toList(), List.of(thrown.getSuppressed()));
    assertEquals(Set.of(0, 1), Set.copyOf(started), "nothing started after the failures");
  }

  @Test
  void theCallerWaitsForItsHelpersEvenWhenInterruptedAndKeepsTheInterrupt() throws Exception {
    CountDownLatch helperRunning = new CountDownLatch(1);
    AtomicBoolean helperInterrupted = new AtomicBoolean();
    AtomicBoolean helperDone = new AtomicBoolean();
    Thread caller = Thread.currentThread();

    new Lanes(pool, 2).run(2, i -> {
      if (Thread.currentThread() == caller) {
        await(helperRunning);
        caller.interrupt();
      } else {
        helperRunning.countDown();
        awaitBlocked(caller); // the caller, interrupted, now waits for this helper
        helperInterrupted.set(Thread.currentThread().isInterrupted());
        helperDone.set(true);
      }
    });

    assertTrue(Thread.interrupted(), "the interrupt is kept (and cleared here)");
    assertTrue(helperDone.get(), "run returned only after the helper ended");
    assertFalse(helperInterrupted.get(), "the helper was never interrupted");
  }

  @Test
  void withNoHelperAvailableTheCallerRunsEveryTask() throws Exception {
    ExecutorService refusing = Executors.newSingleThreadExecutor();
    refusing.shutdown();
    List<String> threads = new CopyOnWriteArrayList<>();

    new Lanes(refusing, 4).run(5, i -> threads.add(Thread.currentThread().getName()));

    assertEquals(5, threads.size());
    assertEquals(Set.of(Thread.currentThread().getName()), Set.copyOf(threads));
  }

  @Test
  void helperThreadsAreNamedDaemons() throws Exception {
    List<Thread> helpers = new CopyOnWriteArrayList<>();
    CountDownLatch both = new CountDownLatch(2);
    Thread caller = Thread.currentThread();

    new Lanes(pool, 2).run(2, i -> {
      both.countDown();
      await(both);
      if (Thread.currentThread() != caller) {
        helpers.add(Thread.currentThread());
      }
    });

    assertEquals(1, helpers.size());
    assertTrue(helpers.get(0).isDaemon() && helpers.get(0).getName().startsWith("lanes-test-"), helpers::toString);
  }

  private static void await(CountDownLatch latch) {
    try {
      assertTrue(latch.await(10, TimeUnit.SECONDS), "timed out waiting for the other lanes");
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new AssertionError(e);
    }
  }

  /** Waits until {@code thread} blocks (waiting on a lock or latch), the event this test needs. */
  private static void awaitBlocked(Thread thread) {
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
    while (thread.getState() != Thread.State.WAITING && thread.getState() != Thread.State.TIMED_WAITING) {
      assertTrue(System.nanoTime() < deadline, "the caller never blocked: " + thread.getState());
      Thread.onSpinWait();
    }
  }
}
