package dev.segmentledger.testkit;

import dev.segmentledger.core.spi.RepackageException;
import dev.segmentledger.core.spi.RepackagedFile;
import dev.segmentledger.core.spi.Repackager;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.time.Duration;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * A {@link Repackager} for tests: deterministic output derived from the original's bytes (so a
 * re-run produces identical files), a fixed segment duration, call counters, and failures that
 * can be switched on for the init or for given sequences. Temporary files are named and cleaned
 * as the {@link Repackager} contract says ({@link Repackager}), like the ffmpeg
 * repackager's, so crash tests see the same leftovers. Thread-safe.
 */
public final class FakeRepackager implements Repackager {
  /** Other targets' temporaries older than this are left by a killed run; a fake run takes milliseconds. */
  public static final Duration LEFTOVER_AGE = Duration.ofMinutes(1);

  private final Duration segmentDuration;
  private final AtomicInteger initCalls = new AtomicInteger();
  private final AtomicInteger segmentCalls = new AtomicInteger();
  private final Set<Long> failingSequences = ConcurrentHashMap.newKeySet();
  private volatile boolean initFails;

  /** Segments of 4 seconds. */
  public FakeRepackager() {
    this(Duration.ofSeconds(4));
  }

  /** Segments of the given media duration. */
  public FakeRepackager(Duration segmentDuration) {
    this.segmentDuration = segmentDuration;
  }

  @Override
  public RepackagedFile init(Path original, Path target) throws RepackageException {
    initCalls.incrementAndGet();
    if (initFails) {
      throw new RepackageException("injected init failure for " + original.getFileName());
    }
    return write(target, "fake-init\n".getBytes(StandardCharsets.US_ASCII), Duration.ZERO);
  }

  @Override
  public RepackagedFile segment(Path original, long sequence, Path target) throws RepackageException {
    segmentCalls.incrementAndGet();
    if (failingSequences.contains(sequence)) {
      throw new RepackageException("injected segment failure for sequence " + sequence);
    }
    try {
      byte[] source = Files.readAllBytes(original);
      byte[] header = ("fake-segment " + sequence + "\n").getBytes(StandardCharsets.US_ASCII);
      byte[] out = new byte[header.length + source.length];
      System.arraycopy(header, 0, out, 0, header.length);
      System.arraycopy(source, 0, out, header.length, source.length);
      return write(target, out, segmentDuration);
    } catch (IOException e) {
      throw new RepackageException("cannot read " + original + ": " + e, e);
    }
  }

  /** Makes every init call fail ({@code true}) or succeed again. */
  public FakeRepackager failInit(boolean fail) {
    initFails = fail;
    return this;
  }

  /** Makes segment calls for {@code sequence} fail until {@link #heal(long)}. */
  public FakeRepackager failSegment(long sequence) {
    failingSequences.add(sequence);
    return this;
  }

  /** Lets segment calls for {@code sequence} succeed again. */
  public FakeRepackager heal(long sequence) {
    failingSequences.remove(sequence);
    return this;
  }

  /** How many times {@link #init} ran. */
  public int initCalls() {
    return initCalls.get();
  }

  /** How many times {@link #segment} ran. */
  public int segmentCalls() {
    return segmentCalls.get();
  }

  private static RepackagedFile write(Path target, byte[] bytes, Duration duration) throws RepackageException {
    Repackager.cleanTemporariesBeside(target, LEFTOVER_AGE);
    Path temp = null;
    try {
      temp = Repackager.createTemporaryBeside(target);
      Files.write(temp, bytes);
      Files.move(temp, target, StandardCopyOption.REPLACE_EXISTING, StandardCopyOption.ATOMIC_MOVE);
      return new RepackagedFile(target, bytes.length, duration);
    } catch (IOException e) {
      throw new RepackageException("cannot write " + target + ": " + e, e);
    } finally {
      deleteQuietly(temp);
    }
  }

  private static void deleteQuietly(Path temp) {
    try {
      if (temp != null) {
        Files.deleteIfExists(temp);
      }
    } catch (IOException e) {
      // a leftover is removed by the next run beside it
    }
  }
}
