package dev.segmentledger.core.internal;

import java.io.FilterInputStream;
import java.io.IOException;
import java.io.InputStream;

/**
 * Yields at most {@code limit} bytes of the stream it wraps, so a reader never reads past a range
 * (a multipart part into the next one, a content past its size). Closing it closes the wrapped
 * stream. Not thread-safe, like any stream.
 */
public final class BoundedInputStream extends FilterInputStream {
  private long remaining;

  /** At most {@code limit} bytes of {@code in}. */
  public BoundedInputStream(InputStream in, long limit) {
    super(in);
    if (limit < 0) {
      throw new IllegalArgumentException("limit must be >= 0, got " + limit);
    }
    this.remaining = limit;
  }

  @Override
  public int read() throws IOException {
    if (remaining <= 0) {
      return -1;
    }
    int b = in.read();
    if (b >= 0) {
      remaining--;
    }
    return b;
  }

  @Override
  public int read(byte[] buffer, int offset, int length) throws IOException {
    if (length == 0) {
      return 0;
    }
    if (remaining <= 0) {
      return -1;
    }
    int n = in.read(buffer, offset, (int) Math.min(length, remaining));
    if (n > 0) {
      remaining -= n;
    }
    return n;
  }

  @Override
  public long skip(long n) throws IOException {
    long skipped = in.skip(Math.min(n, remaining));
    remaining -= skipped;
    return skipped;
  }

  @Override
  public int available() throws IOException {
    return (int) Math.min(in.available(), remaining);
  }

  @Override
  public boolean markSupported() {
    return false;
  }
}
