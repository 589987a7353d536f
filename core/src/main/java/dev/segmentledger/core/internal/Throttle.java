package dev.segmentledger.core.internal;

import dev.failsafe.RateLimiter;
import java.io.InterruptedIOException;
import java.time.Duration;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import java.util.concurrent.atomic.LongAdder;

/**
 * The node's bandwidth cap: request body bytes a second and request bodies started a second, over
 * every stream of every upload. A stream asks for its bytes as it reads them, chunk by chunk, so no
 * stream holds what it does not send, and concurrent streams share the rate in the order they ask.
 * Each cap is a Failsafe smooth {@link RateLimiter} (no burst: an idle cap saves nothing), whose
 * permits are {@link #UNIT} bytes so that high rates keep their precision; a change replaces the
 * limiter atomically, and the next chunk of every stream, those in flight too, waits on the new one.
 * The limiters keep their own monotonic time, not the ledger's clock. {@link #close} ends every
 * wait for tokens at once, and every later one, with an {@link InterruptedIOException} (the waiting
 * thread is not interrupted): waiting for the cap is not work in progress. Thread-safe.
 */
final class Throttle {
  /** The bytes one permit stands for. */
  static final int UNIT = 1024;

  /** A wait for tokens ended, or refused, because the ledger is closing. */
  static final class Closed extends InterruptedIOException {
    Closed() {
      super("the ledger is closing: no more waiting for the bandwidth cap");
    }
  }

  private record Limits(RateLimiter<Object> bytes, RateLimiter<Object> requests, long bytesPerSecond,
      long requestsPerSecond) {}

  private final AtomicReference<Limits> limits = new AtomicReference<>();
  private final LongAdder bodyBytes = new LongAdder();
  private final LongAdder waitNanos = new LongAdder();
  private final CountDownLatch closed = new CountDownLatch(1);

  Throttle(long bytesPerSecond, long requestsPerSecond) {
    set(bytesPerSecond, requestsPerSecond);
  }

  /** Changes the caps (0: none) for the next chunk of every stream. */
  void set(long bytesPerSecond, long requestsPerSecond) {
    limits.set(new Limits(limiter(Math.max(1, bytesPerSecond / UNIT), bytesPerSecond),
        limiter(requestsPerSecond, requestsPerSecond), bytesPerSecond, requestsPerSecond));
  }

  private static RateLimiter<Object> limiter(long permitsPerSecond, long cap) {
    return cap <= 0 ? null : RateLimiter.smoothBuilder(permitsPerSecond, Duration.ofSeconds(1)).build();
  }

  /** Waits until a new request body may start. */
  void request() throws InterruptedIOException {
    RateLimiter<Object> requests = limits.get().requests();
    if (requests != null) {
      await(requests, 1);
    }
  }

  /**
   * Counts {@code units} permits' worth of bytes the caller has read and waits until the cap lets
   * them go (the stream keeps the bytes short of a whole unit for its next call).
   */
  void units(int units) throws InterruptedIOException {
    RateLimiter<Object> bytes = limits.get().bytes();
    if (bytes != null && units > 0) {
      await(bytes, units);
    }
  }

  /** Charges one unit without waiting (a stream's last bytes short of a unit): the next asker waits for it. */
  void reserveUnit() {
    RateLimiter<Object> bytes = limits.get().bytes();
    if (bytes != null) {
      bytes.reservePermits(1);
    }
  }

  /** Counts bytes sent (whether or not there is a cap). */
  void sent(long bytes) {
    bodyBytes.add(bytes);
  }

  private void await(RateLimiter<Object> limiter, int permits) throws InterruptedIOException {
    long start = System.nanoTime();
    try {
      if (closed.getCount() == 0 || closed.await(limiter.reservePermits(permits).toNanos(), TimeUnit.NANOSECONDS)) {
        throw new Closed();
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new InterruptedIOException("interrupted while waiting for the bandwidth cap");
    } finally {
      waitNanos.add(System.nanoTime() - start);
    }
  }

  /** Wakes every thread waiting for tokens, and refuses every later wait; idempotent. */
  void close() {
    closed.countDown();
  }

  long bodyBytes() {
    return bodyBytes.sum();
  }

  Duration tokenWait() {
    return Duration.ofNanos(waitNanos.sum());
  }
}
