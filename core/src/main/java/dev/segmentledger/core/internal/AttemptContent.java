package dev.segmentledger.core.internal;

import dev.segmentledger.core.spi.Tracing.Span;
import dev.segmentledger.core.spi.UploadContent;
import java.io.FilterInputStream;
import java.io.IOException;
import java.io.InputStream;

/**
 * The content of an attempt's upload as the sink sees it: the verified file, with every byte the
 * sink reads and every stored total it reports counted as the attempt's progress
 * ({@link Attempt#moved}, {@link Attempt#stored}), and each part it sends traced as a child of the
 * PUT's span. Thread-safe, as the file is.
 */
final class AttemptContent implements UploadContent {
  private final UploadContent file;
  private final Attempt attempt;
  private final Span put;

  /** @param put the span of the PUT, the parent of the parts' spans */
  AttemptContent(UploadContent file, Attempt attempt, Span put) {
    this.file = file;
    this.attempt = attempt;
    this.put = put;
  }

  @Override
  public long size() {
    return file.size();
  }

  @Override
  public InputStream openStream() throws IOException {
    return new Counting(file.openStream(), attempt);
  }

  @Override
  public InputStream openRange(long offset, long length) throws IOException {
    return new Counting(file.openRange(offset, length), attempt);
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

  /** Counts what is read (and skipped: a part's stream skips to its range) as moved bytes. */
  private static final class Counting extends FilterInputStream {
    private final Attempt attempt;

    Counting(InputStream in, Attempt attempt) {
      super(in);
      this.attempt = attempt;
    }

    @Override
    public int read() throws IOException {
      int b = in.read();
      if (b >= 0) {
        attempt.moved(1);
      }
      return b;
    }

    @Override
    public int read(byte[] buffer, int offset, int length) throws IOException {
      int n = in.read(buffer, offset, length);
      if (n > 0) {
        attempt.moved(n);
      }
      return n;
    }
  }
}
