package dev.segmentledger.s3;

import dev.segmentledger.core.spi.UploadContent;
import java.io.BufferedInputStream;
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
    return new BufferedInputStream(content.openRange(offset, length), (int) Math.min(READ_BLOCK, Math.max(length, 1)));
  }
}
