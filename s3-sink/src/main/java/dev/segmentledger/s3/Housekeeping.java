package dev.segmentledger.s3;

import dev.segmentledger.core.SinkException;
import java.util.Set;
import java.util.concurrent.atomic.AtomicBoolean;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import software.amazon.awssdk.awscore.exception.AwsServiceException;

/**
 * The failures of a sink's work around its uploads (listing and aborting unfinished uploads,
 * listing their parts): they never fail a put, except for a configuration error the put itself
 * would fail on. The first is logged at WARN with what it costs, later ones at DEBUG, so a role
 * without {@code s3:ListBucketMultipartUploads} does not flood the log. Thread-safe.
 */
final class Housekeeping {
  private static final Logger log = LoggerFactory.getLogger(S3ObjectSink.class);
  /** Refusals that the upload itself would hit: thrown, not logged. */
  private static final Set<String> CONFIGURATION_ERRORS = Set.of(
      "NoSuchBucket", "InvalidBucketName", "InvalidAccessKeyId", "SignatureDoesNotMatch",
      "AuthorizationHeaderMalformed", "PermanentRedirect");

  private final AtomicBoolean warned = new AtomicBoolean();

  /** Whether {@code e} refuses every request of this sink (the put would fail the same way). */
  static boolean failsEveryRequest(SinkException e) {
    return e.getCause() instanceof AwsServiceException aws && aws.awsErrorDetails() != null
        && CONFIGURATION_ERRORS.contains(aws.awsErrorDetails().errorCode());
  }

  /**
   * Logs {@code e}, a failure of {@code what} at {@code where}; {@code consequence} says what it
   * leaves (for example "uploading anyway").
   */
  void failed(String what, String where, String consequence, SinkException e) {
    if (warned.compareAndSet(false, true)) {
      log.warn("could not {} of {}; {}. Unfinished uploads this leaves keep their parts until a retry of the key,"
          + " the reconciler or a bucket lifecycle rule AbortIncompleteMultipartUpload removes them. Later"
          + " failures of this kind are logged at DEBUG. {}", what, where, consequence, e.getMessage());
    } else {
      log.debug("could not {} of {}; {}: {}", what, where, consequence, e.getMessage());
    }
  }
}
