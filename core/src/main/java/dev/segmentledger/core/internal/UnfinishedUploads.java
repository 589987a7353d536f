package dev.segmentledger.core.internal;

import dev.segmentledger.core.LedgerItem;
import dev.segmentledger.core.UnfinishedUpload;
import dev.segmentledger.core.spi.ObjectSink;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Aborts the unfinished multipart uploads of a row that ended terminal: no attempt will continue
 * them, and their parts take (billed) storage until a bucket lifecycle rule removes them. Only the
 * row's own key is touched. A sink without unfinished uploads has nothing to abort; a failure is
 * logged and left to the lifecycle rule. Thread-safe.
 */
final class UnfinishedUploads {
  private static final Logger log = LoggerFactory.getLogger(UnfinishedUploads.class);

  private final ObjectSink sink;

  UnfinishedUploads(ObjectSink sink) {
    this.sink = sink;
  }

  /** Aborts every unfinished upload of {@code item}'s key; returns how many were aborted. */
  int abortOf(LedgerItem item) {
    if (sink == null || !sink.supportsUnfinishedUploads()) {
      return 0;
    }
    String key = item.objectKey();
    int aborted = 0;
    try {
      for (UnfinishedUpload upload : sink.listUnfinishedUploads(key)) {
        if (upload.key().equals(key) && sink.abortUnfinishedUpload(upload)) {
          aborted++;
        }
      }
    } catch (RuntimeException e) {
      log.warn("could not abort the unfinished uploads of {} (terminal); the bucket's lifecycle rule removes them",
          item.id(), e);
    }
    if (aborted > 0) {
      log.info("{}: aborted {} unfinished upload(s) of its key, since the row is terminal", item.id(), aborted);
    }
    return aborted;
  }
}
