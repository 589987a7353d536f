package dev.segmentledger.testkit;

import dev.segmentledger.core.CircuitState;
import dev.segmentledger.core.LedgerItem;
import dev.segmentledger.core.LedgerListener;
import dev.segmentledger.core.Reason;
import dev.segmentledger.core.StoredObjectInfo;
import java.time.Duration;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.Condition;
import java.util.concurrent.locks.ReentrantLock;
import java.util.function.BooleanSupplier;

/**
 * A listener that lets a test wait for a condition on a running ledger without sleeping: the
 * condition is re-checked whenever the ledger reports an event (accepted, stored, confirmed,
 * failed, breaker change, playlist published or refused), and at least every 200 ms for changes that the store makes on its own
 * (such as the release of waiting playback rows). Thread-safe.
 */
public final class LedgerEvents implements LedgerListener {
  private final ReentrantLock lock = new ReentrantLock();
  private final Condition changed = lock.newCondition();

  /**
   * Waits until {@code condition} holds.
   *
   * @throws AssertionError naming {@code what} if it does not hold within {@code timeout}
   */
  public void awaitUntil(String what, BooleanSupplier condition, Duration timeout) throws InterruptedException {
    long deadline = System.nanoTime() + timeout.toNanos();
    while (!condition.getAsBoolean()) {
      long left = deadline - System.nanoTime();
      if (left <= 0) {
        throw new AssertionError("timed out after " + timeout + " waiting until " + what);
      }
      lock.lock();
      try {
        changed.await(Math.min(left, TimeUnit.MILLISECONDS.toNanos(200)), TimeUnit.NANOSECONDS);
      } finally {
        lock.unlock();
      }
    }
  }

  private void signal() {
    lock.lock();
    try {
      changed.signalAll();
    } finally {
      lock.unlock();
    }
  }

  @Override
  public void onAccepted(LedgerItem item) {
    signal();
  }

  @Override
  public void onStored(LedgerItem item, StoredObjectInfo object) {
    signal();
  }

  @Override
  public void onConfirmed(LedgerItem item) {
    signal();
  }

  @Override
  public void onConfirmLost(LedgerItem item) {
    signal();
  }

  @Override
  public void onFailed(LedgerItem item, Reason reason, String detail, boolean terminal) {
    signal();
  }

  @Override
  public void onCircuitStateChanged(CircuitState state) {
    signal();
  }

  @Override
  public void onCircuitOpened(Reason reason, String detail) {
    signal();
  }

  @Override
  public void onPlaylistPublished(String broadcastId, String rendition, int entries, boolean complete) {
    signal();
  }

  @Override
  public void onPlaylistRefused(String broadcastId, String rendition, String key, String detail) {
    signal();
  }
}
