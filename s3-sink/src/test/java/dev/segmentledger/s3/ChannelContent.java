package dev.segmentledger.s3;

import dev.segmentledger.core.spi.UploadContent;
import java.io.IOException;
import java.io.InputStream;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;

/**
 * Content as the ledger hands it to a sink: one {@code FileChannel} opened for the attempt, every
 * stream a positional reader of it. An interrupt of any thread reading it closes it for all
 * ({@link #isOpen()} tells). It records the totals reported to {@link #reportStored}, and can close
 * itself once a total is reported, as the ledger cancels an attempt by closing its file.
 */
final class ChannelContent implements UploadContent, AutoCloseable {
  private final FileChannel channel;
  private final long size;
  private final long closeWhenStored;
  final List<Long> reported = new CopyOnWriteArrayList<>();

  private ChannelContent(Path file, long closeWhenStored) throws IOException {
    this.channel = FileChannel.open(file, StandardOpenOption.READ);
    this.size = channel.size();
    this.closeWhenStored = closeWhenStored;
  }

  static ChannelContent of(Path file) throws IOException {
    return new ChannelContent(file, Long.MAX_VALUE);
  }

  /** Content that closes its channel once at least {@code bytes} are reported stored. */
  static ChannelContent closingOnceStored(Path file, long bytes) throws IOException {
    return new ChannelContent(file, bytes);
  }

  boolean isOpen() {
    return channel.isOpen();
  }

  @Override
  public long size() {
    return size;
  }

  @Override
  public InputStream openStream() {
    return new InputStream() {
      private long position;

      @Override
      public int read() throws IOException {
        byte[] one = new byte[1];
        return read(one, 0, 1) < 0 ? -1 : one[0] & 0xff;
      }

      @Override
      public int read(byte[] buffer, int offset, int length) throws IOException {
        if (length == 0) {
          return 0;
        }
        if (position >= size) {
          return -1;
        }
        int n = channel.read(ByteBuffer.wrap(buffer, offset, (int) Math.min(length, size - position)), position);
        if (n > 0) {
          position += n;
        }
        return n;
      }

      @Override
      public long skip(long n) {
        long skipped = Math.max(0, Math.min(n, size - position));
        position += skipped;
        return skipped;
      }
    };
  }

  @Override
  public void reportStored(long bytes) {
    reported.add(bytes);
    if (bytes >= closeWhenStored) {
      try {
        channel.close();
      } catch (IOException e) {
        throw new IllegalStateException(e);
      }
    }
  }

  @Override
  public void close() throws IOException {
    channel.close();
  }
}
