package dev.segmentledger.s3;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.segmentledger.core.SinkException;
import dev.segmentledger.core.StoredObjectInfo;
import dev.segmentledger.rig.FaultProxy;
import dev.segmentledger.rig.FaultProxy.Fault;
import dev.segmentledger.rig.FaultProxy.Request;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;
import software.amazon.awssdk.auth.credentials.AwsBasicCredentials;
import software.amazon.awssdk.auth.credentials.StaticCredentialsProvider;
import software.amazon.awssdk.core.checksums.RequestChecksumCalculation;
import software.amazon.awssdk.core.checksums.ResponseChecksumValidation;
import software.amazon.awssdk.regions.Region;
import software.amazon.awssdk.services.s3.S3Client;

/** Faults on the wire between the SDK and S3Proxy, injected by {@link FaultProxy}. */
class S3ObjectSinkFaultTest {
  private static final String KEY = "b1/720p/original/0000000001.ts";
  @RegisterExtension static final S3FaultRig rig = S3FaultRig.inMemory(Duration.ofSeconds(1));

  private String bucket;
  private S3ObjectSink sink;
  private S3ObjectSink observer;

  @BeforeEach
  void freshBucket() {
    bucket = rig.freshBucket();
    sink = S3ObjectSink.builder().client(rig.throughProxy()).bucket(bucket).build();
    observer = S3ObjectSink.builder().client(rig.direct()).bucket(bucket).build();
  }

  @ParameterizedTest
  @EnumSource(Fault.class)
  void faultOnUploadIsRetryableAndTheRetryLeavesExactlyTheBytes(Fault fault) {
    byte[] data = TestContent.randomBytes(256 * 1024, fault.ordinal());
    rig.proxy().inject(fault, Request::isUpload);

    SinkException failure = assertThrows(SinkException.class, () -> sink.put(KEY, TestContent.of(data), false));
    assertTrue(failure.isRetryable(), failure::toString);
    assertTrue(failure.getMessage().contains(bucket + "/" + KEY), failure.getMessage());

    rig.proxy().clearRequests();
    StoredObjectInfo stored = sink.put(KEY, TestContent.of(data), true);

    assertEquals(data.length, stored.sizeBytes());
    assertEquals(Optional.of(stored), observer.head(KEY));
    assertArrayEquals(data, rig.direct().getObjectAsBytes(b -> b.bucket(bucket).key(KEY)).asByteArray());
    List<Request> uploads = rig.proxy().requests().stream().filter(Request::isUpload).toList();
    if (fault == Fault.LOST_ACKNOWLEDGEMENT) {
      assertEquals(List.of(), uploads, "the object was stored by the lost attempt: HEAD must find it identical");
    } else {
      assertEquals(1, uploads.size(), "the retry must upload again: " + rig.proxy().requests());
    }
  }

  @Test
  void slowDownNamesStatusAndCode() {
    rig.proxy().inject(Fault.SLOW_DOWN, Request::isUpload);

    SinkException failure = assertThrows(SinkException.class, () -> sink.put(KEY, TestContent.of(new byte[10]), false));
    assertTrue(failure.isRetryable());
    assertTrue(failure.getMessage().contains("HTTP 503 SlowDown"), failure.getMessage());
  }

  @Test
  void failedHeadOnRetryIsRetryableAndUploadsNothing() {
    rig.proxy().inject(Fault.INTERNAL_ERROR, r -> r.method().equals("HEAD"));

    SinkException failure = assertThrows(SinkException.class, () -> sink.put(KEY, TestContent.of(new byte[10]), true));
    assertTrue(failure.isRetryable());
    assertTrue(rig.proxy().requests().stream().noneMatch(Request::isUpload), rig.proxy().requests()::toString);
  }

  @Test
  void sameSizeDifferentBytesIsUploadedAgainOnRetry() {
    observer.put(KEY, TestContent.of(new byte[] {1, 2, 3}), false);
    rig.proxy().clearRequests();

    sink.put(KEY, TestContent.of(new byte[] {1, 2, 4}), true);

    assertEquals(1, rig.proxy().requests().stream().filter(Request::isUpload).count());
    assertArrayEquals(new byte[] {1, 2, 4}, rig.direct().getObjectAsBytes(b -> b.bucket(bucket).key(KEY)).asByteArray());
  }

  @Test
  void objectWithoutChecksumMetadataIsUploadedAgainOnRetry() {
    rig.direct().putObject(b -> b.bucket(bucket).key(KEY), software.amazon.awssdk.core.sync.RequestBody.fromBytes(new byte[] {1}));
    assertEquals(Optional.of(new StoredObjectInfo(KEY, 1, null)), observer.head(KEY));

    StoredObjectInfo stored = sink.put(KEY, TestContent.of(new byte[] {1}), true);

    assertEquals(1, rig.proxy().requests().stream().filter(Request::isUpload).count(), "never skip on size alone");
    assertEquals(Optional.of(stored), observer.head(KEY));
  }

  /**
   * A listing names the missing bucket. (A HEAD cannot: S3 answers it 404 without a body, so it
   * reads as "no such object"; and S3Proxy's nio2 blobstore accepts a PUT into a missing bucket.)
   */
  @Test
  void missingBucketIsAConfigurationFailureWithBucketStatusAndCode() {
    S3ObjectSink nowhere = S3ObjectSink.builder().client(rig.direct()).bucket("no-such-bucket").build();

    SinkException list = assertThrows(SinkException.class, () -> nowhere.list("b1/"));
    assertEquals(SinkException.Kind.CONFIGURATION, list.failureKind(), list::toString);
    assertTrue(list.getMessage().contains("s3://no-such-bucket/b1/") && list.getMessage().contains("404 NoSuchBucket"),
        list.getMessage());
  }

  /**
   * Why the README recommends WHEN_REQUIRED for S3-compatible servers: with the SDK's default
   * (WHEN_SUPPORTED, since 2.30) this server refuses every upload. The sink reports it as a
   * configuration failure: retrying cannot fix it, fixing the client does, and no row is rejected.
   */
  @Test
  void sdkDefaultChecksumModeIsRefusedByThisServerAsConfiguration() {
    try (S3Client defaults = S3Client.builder()
        .endpointOverride(rig.server().endpoint())
        .region(Region.US_EAST_1)
        .forcePathStyle(true)
        .credentialsProvider(StaticCredentialsProvider.create(
            AwsBasicCredentials.create(S3ProxyServer.ACCESS_KEY, S3ProxyServer.SECRET_KEY)))
        .build()) {
      S3ObjectSink sdkDefaults = S3ObjectSink.builder().client(defaults).bucket(bucket).build();

      SinkException e = assertThrows(SinkException.class, () -> sdkDefaults.put(KEY, TestContent.of(new byte[1]), false));
      assertEquals(SinkException.Kind.CONFIGURATION, e.failureKind(), e::toString);
      assertTrue(e.getMessage().contains("HTTP 400"), e.getMessage());
    }
  }

  @Test
  void wrongCredentialsAreAConfigurationFailure() {
    try (S3Client forged = S3Client.builder()
        .endpointOverride(rig.server().endpoint())
        .region(Region.US_EAST_1)
        .forcePathStyle(true)
        .credentialsProvider(StaticCredentialsProvider.create(AwsBasicCredentials.create(S3ProxyServer.ACCESS_KEY, "wrong")))
        .requestChecksumCalculation(RequestChecksumCalculation.WHEN_REQUIRED)
        .responseChecksumValidation(ResponseChecksumValidation.WHEN_REQUIRED)
        .build()) {
      S3ObjectSink denied = S3ObjectSink.builder().client(forged).bucket(bucket).build();

      SinkException e = assertThrows(SinkException.class, () -> denied.put(KEY, TestContent.of(new byte[1]), false));
      assertEquals(SinkException.Kind.CONFIGURATION, e.failureKind(), e::toString);
      assertTrue(e.getMessage().contains("HTTP 403 SignatureDoesNotMatch"), e.getMessage());
      assertFalse(e.getMessage().contains("wrong"), "no credential in messages");
    }
    assertEquals(Optional.empty(), observer.head(KEY));
  }
}
