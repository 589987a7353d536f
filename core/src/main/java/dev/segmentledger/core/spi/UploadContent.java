package dev.segmentledger.core.spi;

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
}
