package dev.segmentledger.core.internal;

import dev.segmentledger.core.spi.Tracing.Span;
import dev.segmentledger.core.spi.UploadContent;
import java.io.FilterInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.util.Queue;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.atomic.AtomicBoolean;

/**
 * The content of an attempt's upload as the sink sees it: the verified file, with every byte the
 * sink reads and every stored total it reports counted as the attempt's progress
 * ({@link Attempt#moved}, {@link Attempt#stored}), and each part it sends traced as a child of the
 * PUT's span; the bytes of a PUT's streams go through the node's {@link Throttle} as they are read,
 * the streams of live work counted as open there until their end of file, their close or
 * {@link #finished}, whichever comes first. Thread-safe, as the file is.
 */
final class AttemptContent implements UploadContent {
  private final UploadContent file;
  private final Attempt attempt;
  private final Span put;
  private final Throttle throttle;
  private final boolean live;
  private final Queue<Counting> opened = new ConcurrentLinkedQueue<>();

  /** @param put the span of the PUT, the parent of the parts' spans */
  AttemptContent(UploadContent file, Attempt attempt, Span put) {
    this(file, attempt, put, null, true);
  }

  /**
   * @param throttle the cap the streams' bytes go through (a PUT's body); {@code null}: none (a read to compare)
   * @param live whether the attempt is live work, whose streams the lower lanes' streams make way for
   */
  AttemptContent(UploadContent file, Attempt attempt, Span put, Throttle throttle, boolean live) {
    this.file = file;
    this.attempt = attempt;
    this.put = put;
    this.throttle = throttle;
    this.live = live;
  }

  @Override
  public long size() {
    return file.size();
  }

  /** Waits until a request body may start; a close ending the wait cancels the attempt as a close does. */
  private void request() throws IOException {
    if (throttle != null) {
      try {
        throttle.request();
      } catch (Throttle.Closed e) {
        attempt.cancelOnClose();
        throw e;
      }
    }
  }

  @Override
  public InputStream openStream() throws IOException {
    request();
    return counted(new Counting(file.openStream(), attempt, throttle, live));
  }

  @Override
  public InputStream openRange(long offset, long length) throws IOException {
    request();
    return counted(new Counting(file.openRange(offset, length), attempt, throttle, live));
  }

  private Counting counted(Counting stream) {
    if (stream.live) {
      opened.add(stream);
    }
    return stream;
  }

  /**
   * The sink call is over: streams it left open no longer count as live streams (a sink need not
   * close what it opened before it returns).
   */
  void finished() {
    for (Counting stream; (stream = opened.poll()) != null; ) {
      stream.liveEnded();
    }
  }

  @Override
  public void reportStored(long bytes) {
    attempt.stored(bytes);
  }

  @Override
  public Span part(int number, long offset, long length) {
    return put.child("segment-ledger.put.part").tag("part", String.valueOf(number))
        .tag("bytes", String.valueOf(length));
  }

  /**
   * Counts what is read as moved bytes and, with a throttle, lets it go at the cap's rate: each read
   * waits for the whole units it completes; the last bytes short of a unit are charged at close
   * without waiting. (A part's stream was skipped to its range before: the skip is not sent.)
   */
  private static final class Counting extends FilterInputStream {
    private final Attempt attempt;
    private final Throttle throttle;
    private final boolean live;
    private final AtomicBoolean liveOpen = new AtomicBoolean();
    private long owed;

    Counting(InputStream in, Attempt attempt, Throttle throttle, boolean live) {
      super(in);
      this.attempt = attempt;
      this.throttle = throttle;
      this.live = throttle != null && live;
      if (this.live) {
        liveOpen.set(true);
        throttle.liveOpened();
      }
    }

    /** Ends this stream's count as an open live stream; once, whoever calls it first. */
    void liveEnded() {
      if (liveOpen.compareAndSet(true, false)) {
        throttle.liveEnded();
      }
    }

    private void charge(int n) throws IOException {
      attempt.moved(n);
      if (throttle != null) {
        throttle.sent(n);
        owed += n;
        int units = (int) (owed / Throttle.UNIT);
        owed -= (long) units * Throttle.UNIT;
        try {
          throttle.units(units, live);
        } catch (Throttle.Closed e) {
          attempt.cancelOnClose(); // waiting for tokens is not work in progress: ended as a close ends it
          throw e;
        }
      }
    }

    @Override
    public void close() throws IOException {
      if (throttle != null && owed > 0) {
        owed = 0;
        throttle.reserveUnit();
      }
      if (live) {
        liveEnded();
      }
      super.close();
    }

    @Override
    public int read() throws IOException {
      int b = in.read();
      if (b >= 0) {
        charge(1);
      } else if (live) {
        liveEnded();
      }
      return b;
    }

    @Override
    public int read(byte[] buffer, int offset, int length) throws IOException {
      int n = in.read(buffer, offset, length);
      if (n > 0) {
        charge(n);
      } else if (n < 0 && live) {
        liveEnded();
      }
      return n;
    }
  }
}
