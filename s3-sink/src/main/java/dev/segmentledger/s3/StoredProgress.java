package dev.segmentledger.s3;

import dev.segmentledger.core.spi.UploadContent;

/**
 * What one put has durably stored so far, told to the content ({@link UploadContent#reportStored})
 * as it grows: parts an earlier attempt stored that the sink verified count at once, then each part
 * as its upload returns. Reports never decrease: if the put has to start over with a fresh upload
 * ({@link #startOver}), nothing is reported until the fresh upload has stored more than was
 * reported. Thread-safe (the parts of one upload complete on several lanes); a report is made under
 * the lock, so the content sees the totals in increasing order.
 */
final class StoredProgress {
  private final UploadContent content;
  private long stored;
  private long reported;

  StoredProgress(UploadContent content) {
    this.content = content;
  }

  /** {@code bytes} more are stored; reports the new total if it exceeds the last report. */
  synchronized void add(long bytes) {
    stored += bytes;
    if (stored > reported) {
      reported = stored;
      content.reportStored(reported);
    }
  }

  /** The parts stored so far no longer count (their upload is being replaced by a fresh one). */
  synchronized void startOver() {
    stored = 0;
  }
}
