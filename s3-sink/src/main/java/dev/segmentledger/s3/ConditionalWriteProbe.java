package dev.segmentledger.s3;

import java.util.List;
import java.util.UUID;
import software.amazon.awssdk.core.sync.RequestBody;
import software.amazon.awssdk.services.s3.S3Client;
import software.amazon.awssdk.services.s3.model.CompletedPart;
import software.amazon.awssdk.services.s3.model.S3Exception;

/**
 * Finds out whether a bucket's server honours {@code If-None-Match: *}, separately on {@code
 * PutObject} and on {@code CompleteMultipartUpload} (servers differ: S3Proxy 3.3 honours it on the
 * first only). On a reserved key: a conditional PUT, a second one that must be refused with {@code
 * 412}, then a one-part multipart upload whose conditional completion must be refused with {@code
 * 412} too; then the key is deleted and any upload left aborted. A server that ignores the header
 * overwrites (unsupported); one that rejects it ({@code 400}, {@code 501}) is unsupported too.
 * Other failures of the probe (access denied, 5xx) propagate. Thread-safe; holds no state.
 */
final class ConditionalWriteProbe {
  /** Where probe objects live, under the sink's prefix; each lives for the duration of one probe. */
  static final String PROBE_PREFIX = ".segment-ledger/probe/";

  /** What the server refuses with {@code 412} when an object is at the key. */
  record Support(boolean put, boolean complete) {
    static final Support NONE = new Support(false, false);
  }

  private ConditionalWriteProbe() {}

  /** What {@code bucket} honours, probed under {@code prefix}. */
  static Support probe(S3Client client, String bucket, String prefix) {
    String key = prefix + PROBE_PREFIX + UUID.randomUUID();
    try {
      if (conditionalPut(client, bucket, key) != 200 || conditionalPut(client, bucket, key) != 412) {
        return Support.NONE; // refused on a fresh key (not understood), or ignored (overwritten)
      }
      return new Support(true, conditionalCompleteRefused(client, bucket, key));
    } finally {
      client.deleteObject(b -> b.bucket(bucket).key(key));
    }
  }

  /** 200 if stored, else the status of a 412, 400 or 501 refusal; other failures are thrown. */
  private static int conditionalPut(S3Client client, String bucket, String key) {
    try {
      client.putObject(b -> b.bucket(bucket).key(key).ifNoneMatch("*").contentLength(5L), RequestBody.fromString("probe"));
      return 200;
    } catch (S3Exception e) {
      if (e.statusCode() == 412 || e.statusCode() == 400 || e.statusCode() == 501) {
        return e.statusCode();
      }
      throw e;
    }
  }

  /** Whether a conditional completion on the existing {@code key} is refused with 412 (the upload is then aborted). */
  private static boolean conditionalCompleteRefused(S3Client client, String bucket, String key) {
    String uploadId = client.createMultipartUpload(b -> b.bucket(bucket).key(key)).uploadId();
    try {
      String etag = client.uploadPart(b -> b.bucket(bucket).key(key).uploadId(uploadId).partNumber(1)
          .contentLength(10L), RequestBody.fromString("probe part")).eTag();
      client.completeMultipartUpload(b -> b.bucket(bucket).key(key).uploadId(uploadId).ifNoneMatch("*")
          .multipartUpload(m -> m.parts(List.of(CompletedPart.builder().partNumber(1).eTag(etag).build()))));
      return false;
    } catch (S3Exception e) {
      if (e.statusCode() == 412 || e.statusCode() == 400 || e.statusCode() == 501) {
        abortQuietly(client, bucket, key, uploadId);
        return e.statusCode() == 412;
      }
      abortQuietly(client, bucket, key, uploadId);
      throw e;
    }
  }

  private static void abortQuietly(S3Client client, String bucket, String key, String uploadId) {
    try {
      client.abortMultipartUpload(b -> b.bucket(bucket).key(key).uploadId(uploadId));
    } catch (S3Exception e) {
      // already gone (NoSuchUpload) or not allowed: the key's lifecycle rule is the backstop
    }
  }
}
