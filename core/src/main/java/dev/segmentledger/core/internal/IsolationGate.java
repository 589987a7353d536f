package dev.segmentledger.core.internal;

import java.time.Duration;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.Lock;
import java.util.concurrent.locks.ReentrantReadWriteLock;

/**
 * Lets the work of a suspect row run alone in this process. Every attempt's work (producing and
 * uploading) runs under a {@linkplain #shared shared} permit; a suspect's under a permit to run
 * {@linkplain #alone alone}: it waits until no other attempt works, and no other attempt starts
 * until it ends. When the process dies during a suspect's lone run, nothing else it did can
 * explain the death, and the death is blamed on that row (see the design, "Long work"). The lock
 * is fair: a suspect waiting for the others to finish holds back new work, so a steady flow of
 * items does not starve it. Thread-safe.
 */
final class IsolationGate {
  private final ReentrantReadWriteLock lock = new ReentrantReadWriteLock(true);

  /** Held while working; closing it lets the others in. Closed once, by the thread that took it. */
  interface Permit extends AutoCloseable {
    @Override
    void close();
  }

  /**
   * A permit to work beside other shared work, once no suspect runs or waits; {@code null} if the
   * thread was interrupted while waiting (its attempt was cancelled, or the ledger is closing).
   */
  Permit shared() {
    return enter(lock.readLock(), null);
  }

  /**
   * A permit to work alone in this process, waiting at most {@code patience} for the shared work
   * in flight to end (new shared work waits meanwhile); {@code null} if the gate did not open in
   * time or the thread was interrupted.
   */
  Permit alone(Duration patience) {
    return enter(lock.writeLock(), patience);
  }

  private static Permit enter(Lock lock, Duration patience) {
    try {
      if (patience == null) {
        lock.lockInterruptibly();
      } else if (!lock.tryLock(patience.toNanos(), TimeUnit.NANOSECONDS)) {
        return null;
      }
    } catch (InterruptedException e) {
      return null;
    }
    return lock::unlock;
  }
}
