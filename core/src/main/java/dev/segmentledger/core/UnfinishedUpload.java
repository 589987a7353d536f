package dev.segmentledger.core;

import java.time.Instant;
import java.util.Objects;

/**
 * An upload a sink started and that was neither completed nor aborted, for example an S3 multipart
 * upload whose process was killed. It holds no object (nothing is visible at its key because of
 * it), but its parts take storage until it is {@linkplain
 * dev.segmentledger.core.spi.ObjectSink#abortUnfinishedUpload aborted}. Listed by {@link
 * dev.segmentledger.core.spi.ObjectSink#listUnfinishedUploads}. Immutable.
 *
 * @param key the object key the upload would have written (without any sink-level prefix)
 * @param uploadId the sink's identifier of the upload (S3's {@code UploadId})
 * @param initiated when the upload was started, as the server reports it; {@code null} if it does
 *     not say. Some servers report something else: S3Proxy 2.9 reports the time of the listing
 */
public record UnfinishedUpload(String key, String uploadId, Instant initiated) {
  public UnfinishedUpload {
    Objects.requireNonNull(key, "key");
    Objects.requireNonNull(uploadId, "uploadId");
  }
}
