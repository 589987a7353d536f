package dev.segmentledger.s3;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.segmentledger.core.Sha256Checksum;
import dev.segmentledger.core.SinkException;
import dev.segmentledger.core.StoredObjectInfo;
import dev.segmentledger.core.spi.UploadContent;
import java.io.ByteArrayInputStream;
import java.io.InputStream;
import java.net.URI;
import java.security.MessageDigest;
import java.util.ArrayList;
import java.util.Base64;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import software.amazon.awssdk.auth.credentials.AwsBasicCredentials;
import software.amazon.awssdk.auth.credentials.StaticCredentialsProvider;
import software.amazon.awssdk.core.checksums.RequestChecksumCalculation;
import software.amazon.awssdk.core.checksums.ResponseChecksumValidation;
import software.amazon.awssdk.core.interceptor.Context;
import software.amazon.awssdk.core.interceptor.ExecutionAttributes;
import software.amazon.awssdk.core.interceptor.ExecutionInterceptor;
import software.amazon.awssdk.core.sync.RequestBody;
import software.amazon.awssdk.http.SdkHttpMethod;
import software.amazon.awssdk.http.SdkHttpRequest;
import software.amazon.awssdk.http.apache5.Apache5HttpClient;
import software.amazon.awssdk.regions.Region;
import software.amazon.awssdk.retries.DefaultRetryStrategy;
import software.amazon.awssdk.services.s3.S3Client;
import software.amazon.awssdk.services.s3.S3Configuration;

/**
 * The README's plain-HTTP settings ({@link ContentMd5Signing}, and the SDK's own
 * {@code S3Configuration.expectContinueEnabled(false)} with the HTTP client's
 * {@code expectContinueEnabled(false)}) against S3Proxy with SigV4: every signature is checked by
 * the server, so a wrongly signed request fails, and no PUT carries {@code Expect: 100-continue}.
 */
class PlainHttpSettingsTest {
  private static final String UNSIGNED = "UNSIGNED-PAYLOAD";
  private static S3ProxyServer server;
  private static S3Client client;
  private static final List<SdkHttpRequest> sent = new ArrayList<>();
  private String bucket;

  @BeforeAll
  static void start() throws Exception {
    server = S3ProxyServer.start();
    client = client(server.endpoint());
  }

  @AfterAll
  static void stop() throws Exception {
    client.close();
    server.close();
  }

  @BeforeEach
  void freshBucket() {
    bucket = server.createBucket(client);
    synchronized (sent) {
      sent.clear();
    }
  }

  static S3Client client(URI endpoint) {
    ExecutionInterceptor recorder = new ExecutionInterceptor() {
      @Override
      public void beforeTransmission(Context.BeforeTransmission context, ExecutionAttributes attributes) {
        synchronized (sent) {
          sent.add(context.httpRequest());
        }
      }
    };
    return S3Client.builder()
        .endpointOverride(endpoint)
        .region(Region.US_EAST_1)
        .forcePathStyle(true)
        .credentialsProvider(StaticCredentialsProvider.create(
            AwsBasicCredentials.create(S3ProxyServer.ACCESS_KEY, S3ProxyServer.SECRET_KEY)))
        .requestChecksumCalculation(RequestChecksumCalculation.WHEN_REQUIRED)
        .responseChecksumValidation(ResponseChecksumValidation.WHEN_REQUIRED)
        .putAuthScheme(ContentMd5Signing.authScheme())
        .serviceConfiguration(S3Configuration.builder().expectContinueEnabled(false).build())
        .httpClientBuilder(Apache5HttpClient.builder().expectContinueEnabled(false))
        .overrideConfiguration(o -> o.retryStrategy(DefaultRetryStrategy.doNotRetry())
            .addExecutionInterceptor(recorder))
        .build();
  }

  private static List<SdkHttpRequest> puts() {
    synchronized (sent) {
      return sent.stream().filter(r -> r.method() == SdkHttpMethod.PUT).toList();
    }
  }

  @Test
  void singlePutGoesUnsignedWithSignedContentMd5AndKeepsItsChecksum() throws Exception {
    byte[] data = TestContent.randomBytes(300_000, 7);
    S3ObjectSink sink = S3ObjectSink.builder().client(client).bucket(bucket).build();

    StoredObjectInfo stored = sink.put("a/seg-1.ts", TestContent.of(data), false);

    List<SdkHttpRequest> puts = puts();
    assertEquals(1, puts.size(), puts::toString);
    SdkHttpRequest put = puts.get(0);
    assertEquals(Optional.of(UNSIGNED), put.firstMatchingHeader("x-amz-content-sha256"));
    assertEquals(Optional.of(md5(data)), put.firstMatchingHeader("Content-MD5"));
    String authorization = put.firstMatchingHeader("Authorization").orElseThrow();
    assertTrue(authorization.contains("content-md5;"), authorization);
    assertTrue(authorization.contains("x-amz-meta-" + S3ObjectSink.CHECKSUM_METADATA), authorization);
    assertFalse(put.firstMatchingHeader("Expect").isPresent(), put::toString);
    assertEquals(Sha256Checksum.of(MessageDigest.getInstance("SHA-256").digest(data)), stored.checksum());
    assertEquals(Optional.of(stored), sink.head("a/seg-1.ts"));
    assertArrayEquals(data, client.getObjectAsBytes(b -> b.bucket(bucket).key("a/seg-1.ts")).asByteArray());
  }

  @Test
  void multipartPartsGoUnsignedAndTheObjectIsWhole() {
    byte[] data = TestContent.randomBytes(11 * 1024 * 1024, 8);
    S3ObjectSink sink = S3ObjectSink.builder().client(client).bucket(bucket)
        .multipartThreshold(1).partSize(S3ObjectSink.MIN_PART_SIZE).build();

    StoredObjectInfo stored = sink.put("big", TestContent.of(data), false);

    List<SdkHttpRequest> parts = puts().stream().filter(r -> r.firstMatchingRawQueryParameter("partNumber").isPresent())
        .toList();
    assertEquals(3, parts.size(), parts::toString);
    parts.forEach(p -> assertEquals(Optional.of(UNSIGNED), p.firstMatchingHeader("x-amz-content-sha256")));
    assertEquals(Optional.of(stored), sink.head("big"));
    assertArrayEquals(data, client.getObjectAsBytes(b -> b.bucket(bucket).key("big")).asByteArray());
  }

  /**
   * The body differs from the bytes the digests were taken from (the file changed between the
   * digest pass and the upload): the server must refuse it, unsigned payload or not.
   */
  @Test
  void bodyThatDiffersFromTheDigestedBytesIsRefused() {
    byte[] digested = TestContent.randomBytes(100_000, 9);
    byte[] sentBytes = digested.clone();
    sentBytes[50_000] ^= 1;
    AtomicInteger opens = new AtomicInteger();
    UploadContent changing = new UploadContent() {
      @Override
      public long size() {
        return digested.length;
      }

      @Override
      public InputStream openStream() {
        return new ByteArrayInputStream(opens.getAndIncrement() == 0 ? digested : sentBytes);
      }
    };
    S3ObjectSink sink = S3ObjectSink.builder().client(client).bucket(bucket).build();

    SinkException failure = assertThrows(SinkException.class, () -> sink.put("changed", changing, false));

    assertTrue(opens.get() >= 2, "the digest pass and the body are separate reads");
    assertTrue(failure.getMessage().contains("BadDigest"), failure.getMessage());
    assertEquals(Optional.empty(), sink.head("changed"));
  }

  @Test
  void bodyWithoutContentMd5IsStillSignedBySdk() {
    client.putObject(b -> b.bucket(bucket).key("plain"), RequestBody.fromBytes(new byte[] {1, 2, 3}));

    SdkHttpRequest put = puts().get(0);
    assertFalse(put.firstMatchingHeader("Content-MD5").isPresent());
    String contentSha256 = put.firstMatchingHeader("x-amz-content-sha256").orElseThrow();
    assertFalse(contentSha256.equals(UNSIGNED), contentSha256);
    assertArrayEquals(new byte[] {1, 2, 3}, client.getObjectAsBytes(b -> b.bucket(bucket).key("plain")).asByteArray());
  }

  @Test
  void httpsRequestsAndHostHeadersAreLeftToTheSdk() {
    SdkHttpRequest https = SdkHttpRequest.builder().method(SdkHttpMethod.PUT).protocol("https").host("s3.example")
        .encodedPath("/b/k").putHeader("Content-MD5", "x").build();
    assertFalse(ContentMd5Signing.Signer.coveredByContentMd5(https, true));
    SdkHttpRequest http = https.toBuilder().protocol("http").build();
    assertTrue(ContentMd5Signing.Signer.coveredByContentMd5(http, true));
    assertFalse(ContentMd5Signing.Signer.coveredByContentMd5(http, false));
    assertFalse(ContentMd5Signing.Signer.coveredByContentMd5(http.toBuilder().removeHeader("Content-MD5").build(), true));
    assertEquals("s3.example", ContentMd5Signing.Signer.hostHeader(http.toBuilder().port(80).build()));
    assertEquals("s3.example:9000", ContentMd5Signing.Signer.hostHeader(http.toBuilder().port(9000).build()));
  }

  private static String md5(byte[] data) throws Exception {
    return Base64.getEncoder().encodeToString(MessageDigest.getInstance("MD5").digest(data));
  }
}
