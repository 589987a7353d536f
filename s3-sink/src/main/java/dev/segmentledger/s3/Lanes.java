package dev.segmentledger.s3;

import java.io.IOException;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.SynchronousQueue;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * Runs the indexed tasks of one upload (the parts, or the digests of the parts) on up to {@code
 * width} lanes at once: the calling thread is always one lane, the others are helper threads of
 * the sink's pool. Tasks are taken in index order, one at a time, by whichever lane is free.
 *
 * <p>Design note. The content of an upload is, in the ledger, one {@code FileChannel} opened for
 * the attempt, and an interrupt of <em>any</em> thread reading a {@code FileChannel} closes the
 * channel for every reader. So nothing here ever interrupts a lane: when a task fails, no new task
 * is started, the running ones are left to end on their own (the HTTP client's timeouts bound
 * them), and the first failure is thrown with the later ones attached as suppressed. The caller
 * waits for its helpers without being interruptible (an interrupt is kept and restored), so that
 * no helper still reads the content once {@link #run} has returned. A helper that the pool cannot
 * give (every thread busy) is simply not started: the tasks run on fewer lanes, never fewer than
 * the caller's own, so an upload never waits for a thread and never deadlocks.
 *
 * <p>Thread-safe; one instance serves every upload of a sink.
 */
final class Lanes {
  /** Helper threads of one sink's pool, at most; a put that finds them all busy runs narrower. */
  static final int MAX_HELPER_THREADS = 64;
  /** An idle helper thread ends after this long, so a sink needs no close. */
  static final long HELPER_IDLE_SECONDS = 30;

  /** One task of a run, by its index. */
  @FunctionalInterface
  interface Task {
    void run(int index) throws IOException;
  }

  private final ExecutorService helpers;
  private final int width;

  Lanes(ExecutorService helpers, int width) {
    this.helpers = helpers;
    this.width = width;
  }

  /**
   * A pool of daemon helper threads, named {@code name-N}: at most {@value #MAX_HELPER_THREADS},
   * created on demand, each ending after {@value #HELPER_IDLE_SECONDS} s idle; never shut down.
   */
  static ExecutorService helperPool(String name) {
    AtomicInteger threads = new AtomicInteger();
    ThreadPoolExecutor pool = new ThreadPoolExecutor(0, MAX_HELPER_THREADS, HELPER_IDLE_SECONDS, TimeUnit.SECONDS,
        new SynchronousQueue<>(), r -> {
          Thread t = new Thread(r, name + "-" + threads.incrementAndGet());
          t.setDaemon(true);
          return t;
        });
    return pool;
  }

  /** The most lanes one run uses. */
  int width() {
    return width;
  }

  /**
   * Runs tasks {@code 0 .. count - 1}, each once, unless one fails: then no task starts after it,
   * and the first failure is thrown (the later ones suppressed) once every running task has ended.
   */
  void run(int count, Task task) throws IOException {
    Run run = new Run(count, task);
    int helperLanes = Math.min(width, count) - 1;
    CountDownLatch helpersDone = new CountDownLatch(Math.max(helperLanes, 0));
    for (int i = 0; i < helperLanes; i++) {
      try {
        helpers.execute(() -> {
          try {
            run.lane();
          } finally {
            helpersDone.countDown();
          }
        });
      } catch (RejectedExecutionException busy) {
        helpersDone.countDown(); // every helper busy: one lane fewer
      }
    }
    run.lane();
    awaitUninterruptibly(helpersDone);
    run.throwFirstFailure();
  }

  private static void awaitUninterruptibly(CountDownLatch latch) {
    boolean interrupted = false;
    while (true) {
      try {
        latch.await();
        break;
      } catch (InterruptedException e) {
        interrupted = true;
      }
    }
    if (interrupted) {
      Thread.currentThread().interrupt();
    }
  }

  /** The shared state of one {@link #run}. */
  private static final class Run {
    private final int count;
    private final Task task;
    private final AtomicInteger next = new AtomicInteger();
    private volatile boolean failed;
    private Throwable first;

    Run(int count, Task task) {
      this.count = count;
      this.task = task;
    }

    void lane() {
      while (!failed) {
        int index = next.getAndIncrement();
        if (index >= count) {
          return;
        }
        try {
          task.run(index);
        } catch (IOException | RuntimeException | Error e) {
          fail(e);
        }
      }
    }

    private synchronized void fail(Throwable e) {
      failed = true;
      if (first == null) {
        first = e;
      } else if (first != e) {
        first.addSuppressed(e);
      }
    }

    synchronized void throwFirstFailure() throws IOException {
      if (first instanceof IOException e) {
        throw e;
      }
      if (first instanceof RuntimeException e) {
        throw e;
      }
      if (first instanceof Error e) {
        throw e;
      }
    }
  }
}
