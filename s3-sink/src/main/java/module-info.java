/**
 * Segment Ledger's {@link dev.segmentledger.core.spi.ObjectSink} on the AWS SDK for Java v2: see
 * {@link dev.segmentledger.s3.S3ObjectSink}.
 */
module dev.segmentledger.s3 {
  requires transitive dev.segmentledger.core;
  requires transitive software.amazon.awssdk.services.s3;
  requires software.amazon.awssdk.awscore;
  requires software.amazon.awssdk.core;
  requires software.amazon.awssdk.http;
  requires transitive software.amazon.awssdk.http.auth.aws;
  requires transitive software.amazon.awssdk.http.auth.spi;
  requires transitive software.amazon.awssdk.identity.spi;
  requires software.amazon.awssdk.utils;
  requires org.slf4j;

  exports dev.segmentledger.s3;
}
