package dev.segmentledger.examples;

import java.net.URI;
import software.amazon.awssdk.auth.credentials.AwsBasicCredentials;
import software.amazon.awssdk.auth.credentials.DefaultCredentialsProvider;
import software.amazon.awssdk.auth.credentials.StaticCredentialsProvider;
import software.amazon.awssdk.core.checksums.RequestChecksumCalculation;
import software.amazon.awssdk.core.checksums.ResponseChecksumValidation;
import software.amazon.awssdk.regions.Region;
import software.amazon.awssdk.services.s3.S3Client;
import software.amazon.awssdk.services.s3.S3ClientBuilder;

/** The S3 client the demo's uploader uses: the user's endpoint, or the embedded server. */
final class S3Clients {
  /** The embedded S3 server's demo-only credentials. */
  static final String ACCESS_KEY = "segment-ledger-demo";
  static final String SECRET_KEY = "segment-ledger-demo-secret";

  private S3Clients() {}

  /**
   * A client for {@code endpoint} (null: AWS itself). Against an S3-compatible server, checksums
   * are sent only when required and paths are path-style: see the s3-sink README.
   */
  static S3Client create(URI endpoint, String region, boolean embedded) {
    S3ClientBuilder builder = S3Client.builder().region(Region.of(region));
    if (endpoint != null) {
      builder.endpointOverride(endpoint)
          .forcePathStyle(true)
          .requestChecksumCalculation(RequestChecksumCalculation.WHEN_REQUIRED)
          .responseChecksumValidation(ResponseChecksumValidation.WHEN_REQUIRED);
    }
    builder.credentialsProvider(embedded
        ? StaticCredentialsProvider.create(AwsBasicCredentials.create(ACCESS_KEY, SECRET_KEY))
        : DefaultCredentialsProvider.builder().build());
    return builder.build();
  }
}
