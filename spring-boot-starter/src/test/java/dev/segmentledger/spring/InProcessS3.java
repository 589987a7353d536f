package dev.segmentledger.spring;

import java.net.URI;
import java.util.List;
import java.util.Properties;
import org.gaul.s3proxy.AuthenticationType;
import org.gaul.s3proxy.S3Proxy;
import org.jclouds.ContextBuilder;
import org.jclouds.blobstore.BlobStoreContext;
import org.junit.jupiter.api.extension.AfterAllCallback;
import org.junit.jupiter.api.extension.BeforeAllCallback;
import org.junit.jupiter.api.extension.ExtensionContext;
import software.amazon.awssdk.auth.credentials.AwsBasicCredentials;
import software.amazon.awssdk.auth.credentials.StaticCredentialsProvider;
import software.amazon.awssdk.core.checksums.RequestChecksumCalculation;
import software.amazon.awssdk.core.checksums.ResponseChecksumValidation;
import software.amazon.awssdk.core.interceptor.ExecutionInterceptor;
import software.amazon.awssdk.regions.Region;
import software.amazon.awssdk.services.s3.S3Client;

/**
 * An S3 server in this JVM (S3Proxy on a transient store) on a free port, with one bucket: a JUnit
 * extension that starts it before the test class and stops it after.
 */
final class InProcessS3 implements BeforeAllCallback, AfterAllCallback {
  static final String ACCESS_KEY = "segment-ledger-test";
  static final String SECRET_KEY = "segment-ledger-test-secret";
  static final String BUCKET = "recordings";

  private BlobStoreContext context;
  private S3Proxy proxy;

  @Override
  public void beforeAll(ExtensionContext extension) throws Exception {
    context = ContextBuilder.newBuilder("transient-nio2").credentials("identity", "credential")
        .overrides(new Properties()).build(BlobStoreContext.class);
    proxy = S3Proxy.builder().blobStore(context.getBlobStore())
        .awsAuthentication(AuthenticationType.AWS_V4, ACCESS_KEY, SECRET_KEY)
        .endpoint(URI.create("http://127.0.0.1:0")).build();
    proxy.start();
    if (!"STARTED".equals(proxy.getState())) {
      throw new IllegalStateException("S3Proxy did not start: " + proxy.getState());
    }
    try (S3Client client = client()) {
      client.createBucket(b -> b.bucket(BUCKET));
    }
  }

  String endpoint() {
    return "http://127.0.0.1:" + proxy.getPort();
  }

  /** A client of this server, through {@code interceptors} (to see the requests as sent). */
  S3Client client(ExecutionInterceptor... interceptors) {
    return S3Client.builder().endpointOverride(URI.create(endpoint())).region(Region.US_EAST_1).forcePathStyle(true)
        .credentialsProvider(StaticCredentialsProvider.create(AwsBasicCredentials.create(ACCESS_KEY, SECRET_KEY)))
        .requestChecksumCalculation(RequestChecksumCalculation.WHEN_REQUIRED)
        .responseChecksumValidation(ResponseChecksumValidation.WHEN_REQUIRED)
        .overrideConfiguration(o -> o.executionInterceptors(List.of(interceptors)))
        .build();
  }

  /** The segment-ledger.s3.* properties of this server. */
  String[] properties() {
    return new String[] {
        "segment-ledger.s3.endpoint=" + endpoint(),
        "segment-ledger.s3.region=us-east-1",
        "segment-ledger.s3.bucket=" + BUCKET,
        "segment-ledger.s3.path-style=true",
        "segment-ledger.s3.access-key=" + ACCESS_KEY,
        "segment-ledger.s3.secret-key=" + SECRET_KEY,
        "segment-ledger.s3.checksums-when-required=true"};
  }

  @Override
  public void afterAll(ExtensionContext extension) throws Exception {
    try {
      proxy.stop();
    } finally {
      context.close();
    }
  }
}
