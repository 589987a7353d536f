package dev.segmentledger.benchmarks;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;
import java.util.ArrayDeque;
import java.util.Deque;
import java.util.Random;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.locks.LockSupport;

/**
 * Puts media files on a disk at a steady rate, as a recorder does next to the ledger: segments of
 * {@value #SEGMENT_BYTES} bytes written in 1 MiB chunks paced to {@code bytesPerSecond}, each
 * fsync'd and renamed into place when complete (a crash-safe recorder's atomic write), the oldest
 * deleted so that the disk use stays bounded. Runs on a daemon thread until closed.
 */
final class BackgroundWriter implements AutoCloseable {
  static final int CHUNK = 1024 * 1024;
  static final int SEGMENT_BYTES = 4 * CHUNK;
  static final int KEEP = 16;
  private final Path dir;
  private final long bytesPerSecond;
  private final AtomicLong written = new AtomicLong();
  private final Thread thread;
  private volatile boolean running = true;
  private volatile IOException failure;
  private long startNanos;
  private long endNanos;

  BackgroundWriter(Path dir, long bytesPerSecond) {
    this.dir = dir;
    this.bytesPerSecond = bytesPerSecond;
    this.thread = new Thread(this::loop, "bench-background-writer");
    thread.setDaemon(true);
  }

  BackgroundWriter start() {
    startNanos = System.nanoTime();
    thread.start();
    return this;
  }

  private void loop() {
    byte[] bytes = new byte[CHUNK];
    new Random(7).nextBytes(bytes);
    Deque<Path> kept = new ArrayDeque<>();
    long chunk = 0;
    try {
      Files.createDirectories(dir);
      for (int segment = 0; running; segment++) {
        Path part = dir.resolve(String.format("bg-%06d.ts.part", segment));
        try (FileChannel out = FileChannel.open(part, StandardOpenOption.CREATE, StandardOpenOption.WRITE,
            StandardOpenOption.TRUNCATE_EXISTING)) {
          for (int written = 0; written < SEGMENT_BYTES && running; written += CHUNK) {
            long due = startNanos + chunk * CHUNK * 1_000_000_000L / bytesPerSecond;
            long wait = due - System.nanoTime();
            if (wait > 0) {
              LockSupport.parkNanos(wait);
            }
            ByteBuffer buffer = ByteBuffer.wrap(bytes);
            while (buffer.hasRemaining()) {
              out.write(buffer);
            }
            this.written.addAndGet(CHUNK);
            chunk++;
          }
          out.force(true);
        }
        Path done = dir.resolve(String.format("bg-%06d.ts", segment));
        Files.move(part, done, StandardCopyOption.ATOMIC_MOVE);
        kept.addLast(done);
        while (kept.size() > KEEP) {
          Files.deleteIfExists(kept.removeFirst());
        }
      }
    } catch (IOException e) {
      failure = e;
    }
  }

  /** Bytes per second actually written since start. */
  double achievedBytesPerSecond() {
    long end = endNanos == 0 ? System.nanoTime() : endNanos;
    return written.get() * 1e9 / (end - startNanos);
  }

  @Override
  public void close() throws InterruptedException, IOException {
    running = false;
    thread.join(30_000);
    endNanos = System.nanoTime();
    if (failure != null) {
      throw failure;
    }
  }
}
