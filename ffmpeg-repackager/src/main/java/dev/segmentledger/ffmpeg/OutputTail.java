package dev.segmentledger.ffmpeg;

import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;

/**
 * Drains a process stream on its own thread, keeping only the last {@code capacity} bytes, so a
 * chatty process can never block on a full pipe nor fill the heap. For diagnostics (stderr in a
 * failure message) only: what it keeps may be cut, so it is never parsed ({@link OutputLines}
 * reads what is).
 */
final class OutputTail {
  private final byte[] ring;
  private final Thread drainer;
  private long written;

  private OutputTail(InputStream in, int capacity, String threadName) {
    this.ring = new byte[capacity];
    this.drainer = new Thread(() -> drain(in), threadName);
    this.drainer.setDaemon(true);
  }

  /** Starts draining {@code in}; the stream is closed when it ends. */
  static OutputTail start(InputStream in, int capacity, String threadName) {
    OutputTail tail = new OutputTail(in, capacity, threadName);
    tail.drainer.start();
    return tail;
  }

  private void drain(InputStream in) {
    byte[] buffer = new byte[4096];
    try (in) {
      int n;
      while ((n = in.read(buffer)) >= 0) {
        append(buffer, n);
      }
    } catch (IOException e) {
      // The process went away (killed on timeout); what was read so far is kept.
    }
  }

  private synchronized void append(byte[] buffer, int length) {
    for (int i = 0; i < length; i++) {
      ring[(int) (written++ % ring.length)] = buffer[i];
    }
  }

  /** Waits up to {@code millis} for the stream to end, then returns what was kept. */
  String await(long millis) throws InterruptedException {
    drainer.join(millis);
    return text();
  }

  /** The kept bytes as UTF-8 text; prefixed with {@code ...} if older output was dropped. */
  synchronized String text() {
    int size = (int) Math.min(written, ring.length);
    byte[] ordered = new byte[size];
    int start = (int) ((written - size) % ring.length);
    for (int i = 0; i < size; i++) {
      ordered[i] = ring[(start + i) % ring.length];
    }
    String text = new String(ordered, StandardCharsets.UTF_8);
    return written > ring.length ? "..." + text : text;
  }
}
