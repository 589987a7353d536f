package dev.segmentledger.core.internal;

import dev.segmentledger.core.spi.UploadContent;
import java.io.FilterInputStream;
import java.io.IOException;
import java.io.InputStream;

/**
 * The content of an attempt's upload as the sink sees it: the verified file, with every byte the
 * sink reads and every stored total it reports counted as the attempt's progress
 * ({@link Attempt#moved}, {@link Attempt#stored}). Thread-safe, as the file is.
 */
final class AttemptContent implements UploadContent {
  private final UploadContent file;
  private final Attempt attempt;

  AttemptContent(UploadContent file, Attempt attempt) {
    this.file = file;
    this.attempt = attempt;
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
