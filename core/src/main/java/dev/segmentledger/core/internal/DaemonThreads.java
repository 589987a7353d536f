package dev.segmentledger.core.internal;

import java.time.Duration;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.ThreadFactory;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/** Daemon threads named {@code prefix1}, {@code prefix2}, ...: the engine's threads never keep a JVM alive. */
final class DaemonThreads {
  private static final Logger log = LoggerFactory.getLogger(DaemonThreads.class);

  private DaemonThreads() {}

  static ThreadFactory named(String prefix) {
    AtomicInteger counter = new AtomicInteger();
    return runnable -> {
      Thread thread = new Thread(runnable, prefix + counter.incrementAndGet());
      thread.setDaemon(true);
      return thread;
    };
  }

  /**
   * Interrupts the executor's task in flight and waits, at most {@code timeout}, until it has ended:
   * once the ledger's {@code close()} returns, none of its threads still runs a statement against the
   * store (a caller may drop the schema or close the pool next). A JDBC statement does not heed the
   * interrupt, so the wait is what guarantees it; a task still running after the timeout is logged.
   */
  static void stopAndAwait(ExecutorService executor, Duration timeout) {
    executor.shutdownNow();
    try {
      if (!executor.awaitTermination(timeout.toMillis(), TimeUnit.MILLISECONDS)) {
        log.warn("a segment ledger thread did not stop within {}; it is left to end on its own", timeout);
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }
}
