package dev.segmentledger.console;

import java.io.Closeable;
import java.io.IOException;
import java.io.OutputStream;

/**
 * A response body the host copies to the client as it arrives, instead of one held in memory (a
 * media object read through the console). The host calls {@link #writeTo} at most once, and
 * {@link #close} always, written or not (a HEAD, a client gone). Not thread-safe: one request's.
 */
public interface StreamedBody extends Closeable {
  /** The body's length in bytes, or -1 if unknown (the host then sends it chunked). */
  long length();

  /**
   * Copies the body to {@code out} as it is read.
   *
   * @throws IOException if reading the body or writing to {@code out} fails
   */
  void writeTo(OutputStream out) throws IOException;
}
