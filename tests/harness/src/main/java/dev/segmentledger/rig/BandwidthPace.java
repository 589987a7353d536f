package dev.segmentledger.rig;

import java.util.concurrent.TimeUnit;

/**
 * One direction of one connection of {@link FaultProxy} held to a byte rate: after each block it
 * waits until the bytes sent so far are due at that rate since the first. Blocks are at most a
 * twentieth of a second's worth, so the bursts stay short. A rate of 0 never waits. Not
 * thread-safe: one per direction of a connection, used by the thread relaying it.
 */
final class BandwidthPace {
  private final long bytesPerSecond;
  private final long start = System.nanoTime();
  private long sent;

  /** @param bytesPerSecond the rate to hold, or 0 for none */
  BandwidthPace(long bytesPerSecond) {
    this.bytesPerSecond = bytesPerSecond;
  }

  /** The size of the blocks to copy in. */
  int blockSize() {
    return bytesPerSecond == 0 ? 64 * 1024 : (int) Math.max(1024, Math.min(64 * 1024, bytesPerSecond / 20));
  }

  /** Counts {@code bytes} just sent and waits until they are due. */
  void sent(int bytes) throws InterruptedException {
    if (bytesPerSecond == 0) {
      return;
    }
    sent += bytes;
    long due = start + (long) (sent * 1e9 / bytesPerSecond);
    long wait = due - System.nanoTime();
    if (wait > 0) {
      TimeUnit.NANOSECONDS.sleep(wait);
    }
  }
}
