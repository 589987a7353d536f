package dev.segmentledger.core.internal;

import dev.failsafe.RateLimiter;
import dev.segmentledger.core.Uplink;
import java.io.InterruptedIOException;
import java.time.Duration;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
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
 * thread is not interrupted): waiting for the cap is not work in progress.
 *
 * <p>Live first: while a stream of {@link dev.segmentledger.core.Lane#LIVE live} work is open, the
 * streams of the lower lanes together get at most their share of the byte rate (the lanes' reserved
 * shares, {@link #lowerShare}): they wait on a second limiter of that rate before they ask the cap,
 * so they hold no token of the cap while they wait, and the live streams get the rest. With no live
 * stream open the lower lanes get the whole cap. A live stream counts as open from its opening to its
 * end of file or its close, whichever comes first. Thread-safe.
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

  /** The lower lanes' share of the byte rate while live streams are open when their reserved shares are 0. */
  static final double MIN_LOWER_SHARE = 0.01;

  private record Limits(RateLimiter<Object> bytes, RateLimiter<Object> lowerWhileLive, RateLimiter<Object> requests,
      long bytesPerSecond, long requestsPerSecond) {}

  private final AtomicReference<Limits> limits = new AtomicReference<>();
  private final AtomicInteger liveStreams = new AtomicInteger();
  private final LongAdder bodyBytes = new LongAdder();
  private final LongAdder waitNanos = new LongAdder();
  private final CountDownLatch closed = new CountDownLatch(1);

  /** Caps without live first: every stream shares the rate alike. */
  Throttle(long bytesPerSecond, long requestsPerSecond) {
    this(bytesPerSecond, requestsPerSecond, 1);
  }

  /** @param lowerShare see {@link #set(long, long, double)} */
  Throttle(long bytesPerSecond, long requestsPerSecond, double lowerShare) {
    set(bytesPerSecond, requestsPerSecond, lowerShare);
  }

  /** The lower lanes' share of the byte rate while live streams are open: 1 without lanes. */
  static double lowerShare(Uplink uplink) {
    return uplink.lanes() ? Math.max(MIN_LOWER_SHARE, uplink.originalShare() + uplink.backfillShare()) : 1;
  }

  /**
   * Changes the caps (0: none) for the next chunk of every stream.
   *
   * @param lowerShare the share of the byte cap the lower lanes' streams get together while a live
   *     stream is open, in (0, 1]; 1: live streams go first in no way
   */
  void set(long bytesPerSecond, long requestsPerSecond, double lowerShare) {
    long permits = Math.max(1, bytesPerSecond / UNIT);
    RateLimiter<Object> lower = lowerShare >= 1 || bytesPerSecond <= 0 ? null
        : limiter(Math.max(1, (long) (permits * lowerShare)), bytesPerSecond);
    limits.set(new Limits(limiter(permits, bytesPerSecond), lower, limiter(requestsPerSecond, requestsPerSecond),
        bytesPerSecond, requestsPerSecond));
  }

  /** A stream of live work opened: the lower lanes keep to their share until it ends. */
  void liveOpened() {
    liveStreams.incrementAndGet();
  }

  /** A stream counted by {@link #liveOpened} reached its end or was closed; once per stream. */
  void liveEnded() {
    liveStreams.decrementAndGet();
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
   * Counts {@code units} permits' worth of bytes a stream has read and waits until the cap lets them
   * go (the stream keeps the bytes short of a whole unit for its next call). A stream of a lower lane
   * ({@code live} false) first waits for its lanes' share of the rate while a live stream is open.
   */
  void units(int units, boolean live) throws InterruptedIOException {
    Limits in = limits.get();
    if (in.bytes() != null && units > 0) {
      if (!live && in.lowerWhileLive() != null && liveStreams.get() > 0) {
        await(in.lowerWhileLive(), units);
      }
      await(in.bytes(), units);
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
