package dev.segmentledger.engine;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.segmentledger.core.Ledger;
import dev.segmentledger.core.spi.StateStore;
import dev.segmentledger.testkit.InMemoryStateStore;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Proxy;
import java.nio.file.Path;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code close()} returns only when none of the ledger's threads still runs a statement against the
 * store: a caller may drop the schema or close the pool next (a sweep round left running had
 * deadlocked with a test's {@code DROP SCHEMA}).
 */
class CloseTest {
  @TempDir Path temp;

  @Test
  void closeWaitsForTheSweepRoundInFlightEvenIfItIgnoresTheInterrupt() throws Exception {
    BlockingStore blocking = new BlockingStore(new InMemoryStateStore());
    LedgerFixture f = new LedgerFixture(temp, blocking.proxy());
    Ledger ledger = f.builder().sweepInterval(Duration.ofMillis(50)).build();
    ledger.start();
    assertTrue(blocking.entered.await(10, TimeUnit.SECONDS), "a sweep round reads the store");

    AtomicInteger inFlightWhenClosed = new AtomicInteger(-1);
    CompletableFuture<Void> closing = CompletableFuture.runAsync(() -> {
      ledger.close();
      inFlightWhenClosed.set(blocking.inFlight.get());
    });
    assertThrows(TimeoutException.class, () -> closing.get(300, TimeUnit.MILLISECONDS),
        "close() returned while a sweep round was still reading the store");
    blocking.release.countDown();
    closing.get(10, TimeUnit.SECONDS);
    assertEquals(0, inFlightWhenClosed.get(), "store calls in flight when close() returned");
  }

  /** Blocks the sweeper's first {@code findDue} until released, deaf to interrupts (as JDBC is). */
  private static final class BlockingStore {
    final StateStore delegate;
    final CountDownLatch entered = new CountDownLatch(1);
    final CountDownLatch release = new CountDownLatch(1);
    final AtomicInteger inFlight = new AtomicInteger();

    BlockingStore(StateStore delegate) {
      this.delegate = delegate;
    }

    StateStore proxy() {
      return (StateStore) Proxy.newProxyInstance(StateStore.class.getClassLoader(), new Class<?>[] {StateStore.class},
          (self, method, args) -> {
            inFlight.incrementAndGet();
            try {
              if (method.getName().equals("findDue") && release.getCount() > 0) {
                entered.countDown();
                awaitUninterruptibly(release);
              }
              return method.invoke(delegate, args);
            } catch (InvocationTargetException e) {
              throw e.getCause();
            } finally {
              inFlight.decrementAndGet();
            }
          });
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
  }
}
