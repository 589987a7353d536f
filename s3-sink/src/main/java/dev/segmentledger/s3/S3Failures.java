package dev.segmentledger.s3;

import dev.segmentledger.core.Printable;
import dev.segmentledger.core.spi.SinkException;
import java.util.Set;
import software.amazon.awssdk.awscore.exception.AwsServiceException;
import software.amazon.awssdk.core.exception.SdkClientException;
import software.amazon.awssdk.core.exception.SdkException;
import software.amazon.awssdk.core.exception.SdkServiceException;

/**
 * Turns what the SDK throws into a {@link SinkException}. Retryable: 5xx, 408, 429, throttling and
 * the S3 error codes below (including {@code 404 NoSuchUpload}: a multipart upload aborted under its
 * uploader), every client-side failure (timeout, reset, unknown outcome, unreadable content).
 * Permanent: every other 4xx (403 AccessDenied, 404 NoSuchBucket, 400 InvalidRequest...).
 */
final class S3Failures {
  /** 4xx codes that S3 documents as transient, or that a second attempt with the same bytes can pass. */
  private static final Set<String> RETRYABLE_CODES = Set.of(
      "RequestTimeout", "RequestTimeTooSkewed", "SlowDown", "Throttling", "ThrottlingException",
      "RequestLimitExceeded", "BadDigest", "IncompleteBody", "OperationAborted",
      // A multipart upload aborted under its uploader (by a retry elsewhere, or the reconciler):
      // a new attempt starts a new upload.
      "NoSuchUpload");

  private S3Failures() {}

  static SinkException classify(String operation, String bucket, String key, Exception e) {
    String where = operation + " s3://" + bucket + "/" + key;
    if (e instanceof SdkServiceException service) {
      String code = service instanceof AwsServiceException aws && aws.awsErrorDetails() != null
          ? aws.awsErrorDetails().errorCode() : null;
      int status = service.statusCode();
      // the error code and request id are the server's words: escaped like any outside input
      String message = Printable.escape(where + " failed: HTTP " + status + (code == null ? "" : " " + code)
          + (service.requestId() == null ? "" : ", request id " + service.requestId()));
      boolean retryable = status >= 500 || status == 408 || status == 429 || service.isThrottlingException()
          || (code != null && RETRYABLE_CODES.contains(code));
      return retryable ? SinkException.retryable(message, e) : SinkException.permanent(message, e);
    }
    if (e instanceof SdkClientException || e instanceof SdkException) {
      return SinkException.retryable(where + " failed without a reply from S3, outcome unknown", e);
    }
    return SinkException.retryable(where + " failed", e);
  }
}
