package dev.segmentledger.core.spi;

import dev.segmentledger.core.internal.BoundedInputStream;
import java.io.IOException;
import java.io.InputStream;

/**
 * The bytes of one item, handed to the sink by the ledger after the file boundary checks. The
 * ledger keeps the underlying file open and verified for the duration of the sink call.
 */
public interface UploadContent {

  /** The number of bytes every stream of this content yields. */
  long size();

  /**
   * A new stream over the content from its first byte, yielding exactly {@link #size()} bytes.
   * May be called more than once (for example by an SDK retry); each stream is independent.
   * The caller closes it.
   */
  InputStream openStream() throws IOException;

  /**
   * A new stream over {@code length} bytes of the content from byte {@code offset}, yielding
   * exactly those bytes and never one past them (a sink sends a multipart part from it). The
   * default opens a {@linkplain #openStream stream}, skips to {@code offset} and stops after
   * {@code length} bytes. The caller closes it.
   *
   * @throws IllegalArgumentException if the range is not inside the content
   */
  default InputStream openRange(long offset, long length) throws IOException {
    if (offset < 0 || length < 0 || offset + length > size()) {
      throw new IllegalArgumentException("range " + offset + "+" + length + " is not inside " + size() + " bytes");
    }
    InputStream in = openStream();
    try {
      in.skipNBytes(offset);
    } catch (IOException | RuntimeException e) {
      in.close();
      throw e;
    }
    return new BoundedInputStream(in, length);
  }

  /**
   * Tells the ledger how much of this content is durably stored at the sink so far: {@code bytes}
   * in all, counted over the whole content, including parts an earlier attempt stored that the
   * sink verified and kept. A sink that stores content in parts (S3 multipart) calls it each time a
   * part is stored; the value never decreases within one call of {@link ObjectSink#put}. The ledger
   * uses it as evidence that a long upload makes progress: an attempt that stored something before
   * its process died is not counted against its row (see the design's "Long work"). A sink that
   * stores all-or-nothing never calls it. Thread-safe; cheap (no I/O); the default does nothing.
   */
  default void reportStored(long bytes) {}

  /**
   * The sink starts sending part {@code number} of the content (bytes {@code offset} to
   * {@code offset + length}); it ends the returned span when the part is stored or failed, on any
   * thread. The ledger records it as a child of the PUT's span ({@link Tracing}); the default
   * records nothing.
   */
  default Tracing.Span part(int number, long offset, long length) {
    return Tracing.Span.NONE;
  }
}
