package dev.segmentledger.s3;

import java.net.URI;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.atomic.AtomicInteger;
import software.amazon.awssdk.auth.credentials.AwsBasicCredentials;
import software.amazon.awssdk.auth.credentials.AwsCredentials;
import software.amazon.awssdk.auth.credentials.StaticCredentialsProvider;
import software.amazon.awssdk.awscore.retry.AwsRetryStrategy;
import software.amazon.awssdk.core.checksums.RequestChecksumCalculation;
import software.amazon.awssdk.core.checksums.ResponseChecksumValidation;
import software.amazon.awssdk.core.interceptor.ExecutionInterceptor;
import software.amazon.awssdk.regions.Region;
import software.amazon.awssdk.services.s3.S3Client;

/**
 * An S3 endpoint outside the test JVM, named by the environment: {@code
 * SEGMENT_LEDGER_TEST_S3_ENDPOINT}, {@code SEGMENT_LEDGER_TEST_S3_ACCESS_KEY}, {@code
 * SEGMENT_LEDGER_TEST_S3_SECRET_KEY} and optionally {@code SEGMENT_LEDGER_TEST_S3_REGION} (default
 * {@code us-east-1}); {@code .ci/rgw start} writes them to an env file. Used instead of S3Proxy when
 * the build runs with {@code -Prgw} (which sets the system property {@value #SELECTED}); then a
 * missing variable fails the test, it never skips. Every bucket gets a name unique to this JVM's
 * run, so runs and modules sharing the endpoint never meet; buckets are left for the endpoint's
 * owner to discard ({@code .ci/rgw stop} deletes the whole cluster). Thread-safe.
 */
public final class ExternalS3 implements S3TestServer {
  /** The system property ({@code true}) that points the S3 tests at the external endpoint. */
  public static final String SELECTED = "segmentledger.test.s3.external";
  private static final String RUN = Long.toString(System.currentTimeMillis(), 36)
      + Integer.toString(ThreadLocalRandom.current().nextInt(36 * 36 * 36), 36);
  private static final AtomicInteger buckets = new AtomicInteger();

  private final URI endpoint;
  private final String accessKey;
  private final String secretKey;
  private final Region region;

  private ExternalS3(URI endpoint, String accessKey, String secretKey, Region region) {
    this.endpoint = endpoint;
    this.accessKey = accessKey;
    this.secretKey = secretKey;
    this.region = region;
  }

  /** Whether this run's S3 tests go to the external endpoint ({@code -Prgw}). */
  public static boolean selected() {
    return Boolean.getBoolean(SELECTED);
  }

  /** The endpoint the environment names; fails naming every variable that is missing. */
  public static ExternalS3 fromEnvironment() {
    return from(System.getenv());
  }

  static ExternalS3 from(Map<String, String> environment) {
    List<String> missing = new ArrayList<>();
    String endpoint = required(environment, "SEGMENT_LEDGER_TEST_S3_ENDPOINT", missing);
    String accessKey = required(environment, "SEGMENT_LEDGER_TEST_S3_ACCESS_KEY", missing);
    String secretKey = required(environment, "SEGMENT_LEDGER_TEST_S3_SECRET_KEY", missing);
    if (!missing.isEmpty()) {
      throw new IllegalStateException("The S3 tests run against an external endpoint (-Prgw, " + SELECTED
          + "=true) but " + String.join(", ", missing) + " not set: start one with `.ci/rgw start DIR` and"
          + " source DIR/rgw.env (docs/testing.md)");
    }
    String region = environment.getOrDefault("SEGMENT_LEDGER_TEST_S3_REGION", "us-east-1");
    return new ExternalS3(URI.create(endpoint), accessKey, secretKey, Region.of(region.isBlank() ? "us-east-1" : region));
  }

  private static String required(Map<String, String> environment, String name, List<String> missing) {
    String value = environment.get(name);
    if (value == null || value.isBlank()) {
      missing.add(name);
    }
    return value;
  }

  @Override
  public URI endpoint() {
    return endpoint;
  }

  @Override
  public S3Client clientTo(URI endpoint, Duration attemptTimeout, ExecutionInterceptor... interceptors) {
    return S3Client.builder()
        .endpointOverride(endpoint)
        .region(region)
        .forcePathStyle(true)
        .putAuthScheme(ContentMd5Signing.authScheme())
        .credentialsProvider(StaticCredentialsProvider.create(credentials()))
        .requestChecksumCalculation(RequestChecksumCalculation.WHEN_REQUIRED)
        .responseChecksumValidation(ResponseChecksumValidation.WHEN_REQUIRED)
        .overrideConfiguration(o -> {
          o.retryStrategy(AwsRetryStrategy.doNotRetry()).apiCallAttemptTimeout(attemptTimeout);
          for (ExecutionInterceptor interceptor : interceptors) {
            o.addExecutionInterceptor(interceptor);
          }
        })
        .build();
  }

  @Override
  public AwsCredentials credentials() {
    return AwsBasicCredentials.create(accessKey, secretKey);
  }

  @Override
  public Region region() {
    return region;
  }

  @Override
  public String createBucket(S3Client client) {
    String bucket = "ledger-test-" + RUN + "-" + buckets.incrementAndGet();
    client.createBucket(b -> b.bucket(bucket));
    return bucket;
  }

  /** Nothing to stop: the endpoint outlives the test. */
  @Override
  public void close() {}
}
