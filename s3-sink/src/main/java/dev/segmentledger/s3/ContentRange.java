package dev.segmentledger.s3;

import dev.segmentledger.core.spi.UploadContent;
import java.io.BufferedInputStream;
import java.io.FilterInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import software.amazon.awssdk.core.sync.RequestBody;

/**
 * A request body over {@code length} bytes of the content from {@code offset}, re-openable for SDK
 * retries. The HTTP client copies a body 4 KiB at a time; the content is read in blocks of
 * {@value #READ_BLOCK} bytes instead, so that a 2 MiB body costs 32 reads of the file, not 512. The
 * stream does not support mark/reset: a retry opens a new one. Each body, and each part of a
 * multipart upload, opens a stream of its own over its range: parts sent in parallel never share a
 * stream, and never more than one block of a part is held in memory.
 */
final class ContentRange {
  static final int READ_BLOCK = 64 * 1024;

  private ContentRange() {}

  static RequestBody body(UploadContent content, long offset, long length) {
    return RequestBody.fromContentProvider(() -> {
      try {
        return open(content, offset, length);
      } catch (IOException e) {
        throw new UncheckedIOException("opening the upload content failed", e);
      }
    }, length, "application/octet-stream");
  }

  /** A new stream over {@code length} bytes of the content from {@code offset}, read in blocks. */
  static InputStream open(UploadContent content, long offset, long length) throws IOException {
    InputStream in = content.openStream();
    try {
      in.skipNBytes(offset);
    } catch (IOException | RuntimeException e) {
      in.close();
      throw e;
    }
    return new Bounded(new BufferedInputStream(in, (int) Math.min(READ_BLOCK, Math.max(length, 1))), length);
  }

  /** Yields at most {@code limit} bytes, so a part never reads into the next one. */
  private static final class Bounded extends FilterInputStream {
    private long remaining;

    Bounded(InputStream in, long limit) {
      super(in);
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
}
