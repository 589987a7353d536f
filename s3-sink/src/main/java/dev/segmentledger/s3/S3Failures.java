package dev.segmentledger.s3;

import dev.segmentledger.core.Printable;
import dev.segmentledger.core.SinkException;
import java.util.Set;
import software.amazon.awssdk.awscore.exception.AwsServiceException;
import software.amazon.awssdk.core.exception.SdkClientException;
import software.amazon.awssdk.core.exception.SdkException;
import software.amazon.awssdk.core.exception.SdkServiceException;

/**
 * Turns what the SDK throws into a {@link SinkException}, by S3 error code first:
 *
 * <ul>
 *   <li>{@link SinkException.Kind#CONFIGURATION}: the codes below and every {@code KMS...} code, which
 *       refuse the sink's credentials, bucket, permissions, encryption key or options whatever the
 *       item (checked before the status, because {@code 501 NotImplemented} is a 5xx);
 *   <li>retryable: 5xx, 408, 429, throttling and the retryable codes below (including
 *       {@code 404 NoSuchUpload}: a multipart upload aborted under its uploader), every client-side
 *       failure (timeout, reset, unknown outcome, unreadable content);
 *   <li>permanent: every other 4xx ({@code 400 InvalidRequest}, {@code EntityTooLarge}..., and a
 *       status without an error code, such as the bodiless 403 of a HEAD).
 * </ul>
 */
final class S3Failures {
  /** 4xx codes that S3 documents as transient, or that a second attempt with the same bytes can pass. */
  private static final Set<String> RETRYABLE_CODES = Set.of(
      "RequestTimeout", "RequestTimeTooSkewed", "SlowDown", "Throttling", "ThrottlingException",
      "RequestLimitExceeded", "BadDigest", "IncompleteBody", "OperationAborted",
      // A completion naming a part whose ETag is not the one stored: a part replaced after it was
      // listed or sent, as when two attempts send parts of one continued upload. The next attempt
      // lists the parts again.
      "InvalidPart",
      // A multipart upload aborted under its uploader (by a retry elsewhere, or the reconciler):
      // a new attempt starts a new upload.
      "NoSuchUpload",
      // A conditional write (If-None-Match) racing another write to the same key: S3 tells the
      // writer to try again (a PUT as it was, a multipart upload as a new one); the next attempt
      // finds the object, if one was stored, through the same condition and judges it.
      "ConditionalRequestConflict");

  /**
   * Codes that refuse the sink's configuration, not the item: every upload fails the same way until
   * someone fixes credentials, bucket, policy, KMS key, region or the client's settings.
   */
  static final Set<String> CONFIGURATION_CODES = Set.of(
      // credentials and signature
      "InvalidAccessKeyId", "SignatureDoesNotMatch", "ExpiredToken", "InvalidToken", "TokenRefreshRequired",
      "AuthorizationHeaderMalformed", "InvalidSecurity", "NotSignedUp",
      // permissions (IAM or bucket policy, a wrong expected bucket owner), account
      "AccessDenied", "AllAccessDisabled", "AccountProblem",
      // bucket and region
      "NoSuchBucket", "InvalidBucketName", "PermanentRedirect",
      // request options the bucket or server refuses for every object
      "InvalidStorageClass", "InvalidEncryptionAlgorithmError", "NotImplemented",
      // the client's checksum mode is refused by this server (aws-chunked trailers, see the README)
      "XAmzContentSHA256Mismatch");

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
      if (isConfiguration(code)) {
        return SinkException.configuration(message + " (a refusal of the sink's configuration, not of this object)", e);
      }
      boolean retryable = status >= 500 || status == 408 || status == 429 || service.isThrottlingException()
          || (code != null && RETRYABLE_CODES.contains(code));
      return retryable ? SinkException.retryable(message, e) : SinkException.permanent(message, e);
    }
    if (e instanceof SdkClientException || e instanceof SdkException) {
      return SinkException.retryable(where + " failed without a reply from S3, outcome unknown", e);
    }
    return SinkException.retryable(where + " failed", e);
  }

  /** The S3 error code of {@code e}, or null if the reply had none (a HEAD's). */
  static String errorCode(AwsServiceException e) {
    return e.awsErrorDetails() == null ? null : e.awsErrorDetails().errorCode();
  }

  /** Whether {@code code} refuses the configuration: one of {@link #CONFIGURATION_CODES}, or any KMS error. */
  static boolean isConfiguration(String code) {
    return code != null && (CONFIGURATION_CODES.contains(code) || code.startsWith("KMS"));
  }
}
