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
 * first only), and {@code If-Match} on {@code PutObject}, in which form of the ETag (Ceph RGW 16.2
 * compares the header with the ETag without its quotes). On a reserved key: a conditional PUT, a
 * second one that must be refused with {@code 412}; then a PUT with {@code If-Match} on another ETag,
 * which must be refused with {@code 412}, and one on the object's ETag as returned, which must be
 * stored (else the same without quotes); then a one-part multipart upload whose conditional
 * completion must be refused with {@code 412} too; then the key is deleted and any upload left
 * aborted. A server that ignores the header
 * overwrites (unsupported); one that rejects it ({@code 400}, {@code 501}) is unsupported too.
 * Other failures of the probe (access denied, 5xx) propagate. Thread-safe; holds no state.
 */
final class ConditionalWriteProbe {
  /** Where probe objects live, under the sink's prefix; each lives for the duration of one probe. */
  static final String PROBE_PREFIX = ".segment-ledger/probe/";

  /**
   * What the server refuses with {@code 412} when an object is at the key ({@code put}, {@code
   * complete}: {@code If-None-Match: *}), and how it takes {@code If-Match} on a PUT.
   */
  record Support(boolean put, boolean complete, EtagForm ifMatch) {
    static final Support NONE = new Support(false, false, EtagForm.NONE);
  }

  /** How {@code If-Match} must carry an ETag for the server to compare it, if it does at all. */
  enum EtagForm {
    /** {@code If-Match} is ignored, refused or never matches: PUTs over a version are unconditional. */
    NONE,
    /** The ETag as the server returns it, in quotes (HTTP's form; S3, S3Proxy). */
    QUOTED,
    /** The ETag without its quotes (Ceph RGW 16.2). */
    UNQUOTED;

    /** The header value for {@code etag} (as a response returned it). */
    String header(String etag) {
      return this == UNQUOTED ? unquoted(etag) : etag;
    }

    static String unquoted(String etag) {
      return etag.length() >= 2 && etag.startsWith("\"") && etag.endsWith("\"") ? etag.substring(1, etag.length() - 1)
          : etag;
    }
  }

  private ConditionalWriteProbe() {}

  /** What {@code bucket} honours, probed under {@code prefix}. */
  static Support probe(S3Client client, String bucket, String prefix) {
    String key = prefix + PROBE_PREFIX + UUID.randomUUID();
    try {
      String[] etag = new String[1];
      if (conditionalPut(client, bucket, key, null, etag) != 200 || conditionalPut(client, bucket, key, null, null) != 412) {
        return Support.NONE; // refused on a fresh key (not understood), or ignored (overwritten)
      }
      EtagForm ifMatch = ifMatchForm(client, bucket, key, etag[0]);
      return new Support(true, conditionalCompleteRefused(client, bucket, key), ifMatch);
    } finally {
      client.deleteObject(b -> b.bucket(bucket).key(key));
    }
  }

  /**
   * How the server takes {@code If-Match} on the object at {@code key} (ETag {@code etag}): a wrong
   * ETag must be refused with 412, the right one stored, quoted as returned or else unquoted.
   */
  private static EtagForm ifMatchForm(S3Client client, String bucket, String key, String etag) {
    if (etag == null || conditionalPut(client, bucket, key, "\"00000000000000000000000000000000\"", null) != 412) {
      return EtagForm.NONE; // no ETag to compare, or If-Match ignored (overwritten), or not understood
    }
    if (conditionalPut(client, bucket, key, EtagForm.QUOTED.header(etag), null) == 200) {
      return EtagForm.QUOTED;
    }
    return conditionalPut(client, bucket, key, EtagForm.UNQUOTED.header(etag), null) == 200 ? EtagForm.UNQUOTED
        : EtagForm.NONE;
  }

  /**
   * A PUT with {@code If-None-Match: *}, or with {@code If-Match: ifMatch} if given: 200 if stored
   * (its ETag then in {@code etag[0]} if given), else the status of a 412, 400, 404 or 501 refusal;
   * other failures are thrown.
   */
  private static int conditionalPut(S3Client client, String bucket, String key, String ifMatch, String[] etag) {
    try {
      String stored = client.putObject(b -> {
        b.bucket(bucket).key(key).contentLength(5L);
        if (ifMatch == null) {
          b.ifNoneMatch("*");
        } else {
          b.ifMatch(ifMatch);
        }
      }, RequestBody.fromString("probe")).eTag();
      if (etag != null) {
        etag[0] = stored;
      }
      return 200;
    } catch (S3Exception e) {
      if (e.statusCode() == 412 || e.statusCode() == 400 || e.statusCode() == 501
          || (ifMatch != null && e.statusCode() == 404)) {
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
