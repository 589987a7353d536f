package dev.segmentledger.core.internal;

import dev.segmentledger.core.Reason;
import dev.segmentledger.core.spi.UploadContent;
import java.io.IOException;
import java.io.InputStream;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;

/**
 * An opened, verified file exposed as {@link UploadContent}. Every stream reads the same channel
 * with positional reads, so streams are independent and never read past the registered size.
 * {@link #verifyUnchanged()} re-reads the size from the open channel after the upload.
 */
final class VerifiedFile implements UploadContent, AutoCloseable {
  private final FileChannel channel;
  private final long size;
  private final String name;

  /** {@code name} is the file as shown in messages (already escaped). */
  VerifiedFile(FileChannel channel, long size, String name) {
    this.channel = channel;
    this.size = size;
    this.name = name;
  }

  /**
   * Checks that the open file still has the registered size ({@code fstat} on the channel). A file
   * that grew or shrank while it was uploaded did not yield a stable copy of the registered bytes,
   * so its upload must not be confirmed.
   *
   * @throws FileRejectedException {@link Reason#FILE_GREW} or
   *     {@link Reason#FILE_SHRANK}, or UNREADABLE if the size cannot be read
   */
  void verifyUnchanged() throws FileRejectedException {
    long now;
    try {
      now = channel.size();
    } catch (IOException e) {
      throw new FileRejectedException(Reason.UNREADABLE,
          "cannot re-read the size of " + name + " after upload: " + e.getClass().getSimpleName());
    }
    requireSize(name, now, size);
  }

  /** Rejects a size other than the registered one, naming which way it differs. */
  static void requireSize(String shownName, long actual, long registered) throws FileRejectedException {
    if (actual > registered) {
      throw new FileRejectedException(Reason.FILE_GREW, shownName + " has " + actual + " bytes, registered with "
          + registered + ": it was still being written or was appended to");
    }
    if (actual < registered) {
      throw new FileRejectedException(Reason.FILE_SHRANK, shownName + " has " + actual + " bytes, registered with "
          + registered + ": it was truncated or replaced");
    }
  }

  @Override
  public long size() {
    return size;
  }

  @Override
  public InputStream openStream() {
    return new PositionalStream();
  }

  @Override
  public void close() throws IOException {
    channel.close();
  }

  private final class PositionalStream extends InputStream {
    private long position;

    @Override
    public int read() throws IOException {
      byte[] one = new byte[1];
      int n = read(one, 0, 1);
      return n < 0 ? -1 : one[0] & 0xff;
    }

    @Override
    public int read(byte[] buffer, int offset, int length) throws IOException {
      if (length == 0) {
        return 0;
      }
      long remaining = size - position;
      if (remaining <= 0) {
        return -1;
      }
      int wanted = (int) Math.min(length, remaining);
      int n = channel.read(ByteBuffer.wrap(buffer, offset, wanted), position);
      if (n < 0) {
        throw new IOException("file shrank below its registered size of " + size + " bytes while being read");
      }
      position += n;
      return n;
    }

    @Override
    public long skip(long n) {
      long skipped = Math.max(0, Math.min(n, size - position));
      position += skipped;
      return skipped;
    }

    @Override
    public int available() {
      return (int) Math.min(Integer.MAX_VALUE, size - position);
    }
  }
}
