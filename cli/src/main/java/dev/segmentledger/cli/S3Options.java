package dev.segmentledger.cli;

import dev.segmentledger.s3.ConditionalWrites;
import dev.segmentledger.s3.Integrity;
import dev.segmentledger.s3.S3ObjectSink;
import java.net.URI;
import java.net.URISyntaxException;
import software.amazon.awssdk.auth.credentials.AwsCredentialsProvider;
import software.amazon.awssdk.auth.credentials.DefaultCredentialsProvider;
import software.amazon.awssdk.core.checksums.RequestChecksumCalculation;
import software.amazon.awssdk.core.checksums.ResponseChecksumValidation;
import software.amazon.awssdk.core.exception.SdkException;
import software.amazon.awssdk.http.apache5.Apache5HttpClient;
import software.amazon.awssdk.regions.Region;
import software.amazon.awssdk.services.s3.S3Client;
import software.amazon.awssdk.services.s3.S3ClientBuilder;
import picocli.CommandLine.Option;

/**
 * Where the objects are: the bucket, and the endpoint of an S3-compatible server. Credentials come
 * from the AWS SDK's default chain (environment, system properties, profile, container or
 * instance role), never from the command line. A picocli mixin.
 */
final class S3Options {
  @Option(names = "--bucket", required = true, paramLabel = "BUCKET", description = "The ledger's bucket.")
  String bucket;

  @Option(names = "--s3-prefix", paramLabel = "PREFIX", defaultValue = "",
      description = "The key prefix the ledger's sink was built with (default none).")
  String prefix;

  @Option(names = "--s3-endpoint", paramLabel = "URL",
      description = "An S3-compatible server (MinIO, Ceph, S3Proxy...), e.g. http://minio:9000; the client "
          + "then uses path-style requests and checksums only when required. Default: AWS S3.")
  String endpoint;

  @Option(names = "--s3-region", paramLabel = "REGION", defaultValue = "${env:AWS_REGION:-us-east-1}",
      description = "The region to sign for (default: $AWS_REGION, else us-east-1).")
  String region;

  @Option(names = "--conditional-writes", paramLabel = "MODE", defaultValue = "OFF",
      description = "The sink's conditional writes, as the ledger's sink is built: ${COMPLETION-CANDIDATES} "
          + "(default ${DEFAULT-VALUE}; AUTO sends If-None-Match: * on an item's first PUT where the bucket honours "
          + "it, detected once at the first write; see docs/bucket.md). The commands only read the bucket and abort "
          + "unfinished uploads, which it does not change.")
  ConditionalWrites conditionalWrites;

  @Option(names = "--integrity", paramLabel = "MODE", defaultValue = "MD5_ONLY",
      description = "The sink's integrity checks, as the ledger's sink is built: ${COMPLETION-CANDIDATES} "
          + "(default ${DEFAULT-VALUE}). With CHECKSUMS a reconcile also asks the bucket for each object's full-object "
          + "CRC32C and compares it with the one the ledger recorded; the commands upload nothing.")
  Integrity integrity;

  /**
   * A client for the bucket, after checking that the default chain finds credentials.
   *
   * @throws CliFailure if the endpoint is malformed or no credentials are found
   */
  S3Client client() {
    AwsCredentialsProvider credentials = DefaultCredentialsProvider.builder().build();
    try {
      credentials.resolveCredentials();
    } catch (SdkException e) {
      throw new CliFailure("no AWS credentials found: set AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY, or "
          + "AWS_PROFILE, or run with a container or instance role (the SDK's default chain found none)");
    }
    S3ClientBuilder builder = S3Client.builder()
        .httpClientBuilder(Apache5HttpClient.builder())
        .region(Region.of(region))
        .credentialsProvider(credentials);
    if (endpoint != null) {
      URI uri;
      try {
        uri = new URI(endpoint);
      } catch (URISyntaxException e) {
        throw new CliFailure("--s3-endpoint is not a URL: " + Redaction.message(e));
      }
      if (uri.getScheme() == null || uri.getHost() == null
          || !(uri.getScheme().equals("http") || uri.getScheme().equals("https"))) {
        throw new CliFailure("--s3-endpoint must be an http:// or https:// URL, got: " + Redaction.url(endpoint));
      }
      // S3-compatible servers: path-style addressing, and no aws-chunked checksum trailers (README, Gotchas).
      builder.endpointOverride(uri)
          .forcePathStyle(true)
          .requestChecksumCalculation(RequestChecksumCalculation.WHEN_REQUIRED)
          .responseChecksumValidation(ResponseChecksumValidation.WHEN_REQUIRED);
    }
    return builder.build();
  }

  /** The ledger's sink on {@code client}, with these options' settings. */
  S3ObjectSink sink(S3Client client) {
    return S3ObjectSink.builder().client(client).bucket(bucket).prefix(prefix).conditionalWrites(conditionalWrites)
        .integrity(integrity).build();
  }
}
