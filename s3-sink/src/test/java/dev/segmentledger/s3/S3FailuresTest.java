package dev.segmentledger.s3;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.segmentledger.core.SinkException;
import org.junit.jupiter.api.Test;
import software.amazon.awssdk.awscore.exception.AwsErrorDetails;
import software.amazon.awssdk.services.s3.model.S3Exception;

class S3FailuresTest {

  /** The error code and request id are the server's words: a forged line in them is escaped. */
  @Test
  void theServersErrorCodeAndRequestIdAreEscaped() {
    S3Exception reply = (S3Exception) S3Exception.builder().statusCode(403).requestId("r1\u2028x")
        .awsErrorDetails(AwsErrorDetails.builder().errorCode("AccessDenied\nINFO forged \u202e").build()).build();

    SinkException e = S3Failures.classify("PUT", "bucket", "b1/720p/init.mp4", reply);

    assertFalse(e.isRetryable());
    assertEquals("PUT s3://bucket/b1/720p/init.mp4 failed: HTTP 403 AccessDenied\\u000aINFO forged \\u202e,"
        + " request id r1\\u2028x", e.getMessage());
  }

  /**
   * A conditional PUT that raced another write to its key (409 ConditionalRequestConflict) is tried
   * again, as S3 documents: failing the row for good would lose an upload another writer may not finish.
   */
  @Test
  void aConditionalWriteConflictIsRetried() {
    S3Exception reply = (S3Exception) S3Exception.builder().statusCode(409)
        .awsErrorDetails(AwsErrorDetails.builder().errorCode("ConditionalRequestConflict").build()).build();

    SinkException e = S3Failures.classify("PUT", "bucket", "b1/720p/0.ts", reply);

    assertTrue(e.isRetryable(), e.getMessage());
  }

  /** Other 409s (BucketAlreadyExists, OperationAborted aside) stay permanent. */
  @Test
  void anotherConflictIsPermanent() {
    S3Exception reply = (S3Exception) S3Exception.builder().statusCode(409)
        .awsErrorDetails(AwsErrorDetails.builder().errorCode("InvalidBucketState").build()).build();

    assertFalse(S3Failures.classify("PUT", "bucket", "b1/720p/0.ts", reply).isRetryable());
  }
}
