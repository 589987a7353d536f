package dev.segmentledger.s3;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.segmentledger.core.Axis;
import dev.segmentledger.core.ItemId;
import dev.segmentledger.core.MediaFormat;
import dev.segmentledger.core.ObjectKeys;
import dev.segmentledger.core.SinkException;
import dev.segmentledger.s3.SentRequests.Sent;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import software.amazon.awssdk.core.interceptor.ExecutionInterceptor;
import software.amazon.awssdk.services.s3.S3Client;
import software.amazon.awssdk.services.s3.model.HeadObjectResponse;
import software.amazon.awssdk.services.s3.model.StorageClass;

/**
 * Per-object request options against S3Proxy 2.9. What S3Proxy stores and returns on HEAD is
 * checked there: {@code Content-Type}, {@code Cache-Control} and the storage class. S3Proxy does
 * not implement server-side encryption, tagging or the expected bucket owner: by default it refuses
 * those headers with {@code 501 NotImplemented} (a configuration failure for the sink), and with
 * {@code ignoreUnknownHeaders} it accepts and drops them; so they are checked on the wire, by an
 * {@link ExecutionInterceptor} that records every request the SDK sends.
 */
class S3ObjectSinkOptionsTest {
  private static final long MIB = 1024 * 1024;
  private static final String ORIGINAL = ObjectKeys.keyOf(ItemId.original("b1", "720p", 7));
  private static final String PLAYBACK = ObjectKeys.keyOf(ItemId.playback("b1", "720p", 7));
  private static final String INIT = ObjectKeys.keyOf(ItemId.init("b1", "720p"));
  private static final String LARGE = ObjectKeys.keyOf(ItemId.original("b1", "1080p", 8));

  private static final SentRequests recorder = new SentRequests();
  private static final List<Sent> sent = recorder.sent();
  private static S3ProxyServer strict;
  private static S3ProxyServer lenient;
  private static S3Client strictClient;
  private static S3Client lenientClient;

  @BeforeAll
  static void start() throws Exception {
    strict = S3ProxyServer.start();
    lenient = S3ProxyServer.startIgnoringUnknownHeaders();
    strictClient = S3ProxyServer.client(strict.endpoint(), Duration.ofSeconds(60), recorder);
    lenientClient = S3ProxyServer.client(lenient.endpoint(), Duration.ofSeconds(60), recorder);
  }

  @AfterAll
  static void stop() throws Exception {
    strictClient.close();
    lenientClient.close();
    strict.close();
    lenient.close();
  }

  @Test
  void everyLedgerKeyHasItsContentType() {
    assertEquals("video/mp2t", ObjectOptions.defaultContentType(ORIGINAL));
    assertEquals("video/iso.segment", ObjectOptions.defaultContentType(PLAYBACK));
    assertEquals("video/mp4", ObjectOptions.defaultContentType(INIT));
    assertEquals("application/vnd.apple.mpegurl", ObjectOptions.defaultContentType("b1/720p/playback.m3u8"));
    assertEquals("application/octet-stream", ObjectOptions.defaultContentType("b1/720p.d/noextension"));
    assertEquals(ObjectOptions.builder().contentType("video/mp2t").build(), ObjectOptions.defaultsFor(ORIGINAL));
  }

  @Test
  void defaultContentTypesAreStoredForSingleAndMultipartUploads() {
    String bucket = strict.createBucket(strictClient);
    S3ObjectSink sink = smallParts(strictClient, bucket).build();

    sink.put(ORIGINAL, TestContent.of(TestContent.randomBytes(1000, 1)), false);
    sink.put(PLAYBACK, TestContent.of(TestContent.randomBytes(1000, 2)), false);
    sink.put(INIT, TestContent.of(TestContent.randomBytes(100, 3)), false);
    sink.put(LARGE, TestContent.of(TestContent.randomBytes((int) (6 * MIB), 4)), false);

    assertEquals("video/mp2t", head(strictClient, bucket, ORIGINAL).contentType());
    assertEquals("video/iso.segment", head(strictClient, bucket, PLAYBACK).contentType());
    assertEquals("video/mp4", head(strictClient, bucket, INIT).contentType());
    assertEquals("video/mp2t", head(strictClient, bucket, LARGE).contentType(), "multipart");
  }

  @Test
  void anOriginalsContentTypeFollowsItsFormatAndS3ProxyStoresAndReturnsIt() {
    String bucket = strict.createBucket(strictClient);
    S3ObjectSink sink = smallParts(strictClient, bucket).build();
    int seed = 20;
    for (MediaFormat format : MediaFormat.values()) {
      String key = ObjectKeys.keyOf(ItemId.original("b1", "720p", 9, format));
      String large = ObjectKeys.keyOf(ItemId.original("b1", "1080p", 9, format));
      assertEquals(format.contentType(), ObjectOptions.defaultContentType(key), key);
      sink.put(key, TestContent.of(TestContent.randomBytes(1000, seed++)), false);
      sink.put(large, TestContent.of(TestContent.randomBytes((int) (6 * MIB), seed++)), false);
      assertEquals(format.contentType(), head(strictClient, bucket, key).contentType(), key);
      assertEquals(format.contentType(), head(strictClient, bucket, large).contentType(), "multipart " + large);
      assertEquals(format.contentType(), strictClient.getObject(b -> b.bucket(bucket).key(key),
          software.amazon.awssdk.core.sync.ResponseTransformer.toBytes()).response().contentType(), "GET " + key);
    }
    assertEquals(MediaFormat.FMP4.contentType(), ObjectOptions.defaultContentType(PLAYBACK));
    assertEquals(MediaFormat.MP4.contentType(), ObjectOptions.defaultContentType(INIT));
  }

  @Test
  void overriddenContentTypeCacheControlAndStorageClassAreStoredAndReturned() {
    String bucket = strict.createBucket(strictClient);
    S3ObjectSink sink = smallParts(strictClient, bucket)
        .objectOptions((key, defaults) -> ObjectKeys.idOf(key).map(ItemId::axis).orElse(null) == Axis.ORIGINAL
            ? defaults.toBuilder().contentType("video/MP2T").cacheControl("private, max-age=60")
                .storageClass(StorageClass.STANDARD_IA).build()
            : defaults.toBuilder().cacheControl("public, max-age=31536000, immutable").build())
        .build();

    sink.put(ORIGINAL, TestContent.of(TestContent.randomBytes(1000, 5)), false);
    sink.put(LARGE, TestContent.of(TestContent.randomBytes((int) (6 * MIB), 6)), false);
    sink.put(PLAYBACK, TestContent.of(TestContent.randomBytes(1000, 7)), false);

    for (String key : List.of(ORIGINAL, LARGE)) {
      HeadObjectResponse head = head(strictClient, bucket, key);
      assertEquals("video/MP2T", head.contentType(), key);
      assertEquals("private, max-age=60", head.cacheControl(), key);
      assertEquals(StorageClass.STANDARD_IA, head.storageClass(), key);
    }
    HeadObjectResponse playback = head(strictClient, bucket, PLAYBACK);
    assertEquals("video/iso.segment", playback.contentType());
    assertEquals("public, max-age=31536000, immutable", playback.cacheControl());
  }

  @Test
  void encryptionTagsAndBucketOwnerGoWithPutObjectAndCreateMultipartUploadButNotWithTheHead() {
    String bucket = lenient.createBucket(lenientClient);
    ObjectOptionsProvider provider = (key, defaults) -> defaults.toBuilder()
        .sseKms("arn:aws:kms:us-east-1:111122223333:key/test-key")
        .tag("broadcast", ObjectKeys.idOf(key).orElseThrow().broadcastId())
        .tag("kind", "a b&c")
        .expectedBucketOwner("111122223333")
        .storageClass(StorageClass.STANDARD_IA)
        .build();
    S3ObjectSink sink = smallParts(lenientClient, bucket).objectOptions(provider).build();
    sent.clear();

    sink.put(ORIGINAL, TestContent.of(TestContent.randomBytes(1000, 8)), false);
    sink.put(LARGE, TestContent.of(TestContent.randomBytes((int) (6 * MIB), 9)), false);

    List<Sent> carrying = sent.stream()
        .filter(s -> List.of("PutObject", "CreateMultipartUpload").contains(s.operation())).toList();
    assertEquals(List.of("PutObject", "CreateMultipartUpload"), carrying.stream().map(Sent::operation).toList());
    for (Sent s : carrying) {
      assertEquals("aws:kms", s.header("x-amz-server-side-encryption"), s.operation());
      assertEquals("arn:aws:kms:us-east-1:111122223333:key/test-key",
          s.header("x-amz-server-side-encryption-aws-kms-key-id"), s.operation());
      assertEquals("broadcast=b1&kind=a%20b%26c", s.header("x-amz-tagging"), s.operation());
      assertEquals("111122223333", s.header("x-amz-expected-bucket-owner"), s.operation());
      assertEquals("STANDARD_IA", s.header("x-amz-storage-class"), s.operation());
      assertEquals("video/mp2t", s.header("Content-Type"), s.operation());
    }
    for (Sent s : sent.stream().filter(s -> s.operation().equals("UploadPart")
        || s.operation().equals("CompleteMultipartUpload")).toList()) {
      assertEquals("111122223333", s.header("x-amz-expected-bucket-owner"), s.operation());
      assertEquals(null, s.header("x-amz-server-side-encryption"), s.operation());
    }

    // A retry re-judges by size and checksum with a plain HEAD, and skips the identical object.
    sent.clear();
    sink.put(ORIGINAL, TestContent.of(TestContent.randomBytes(1000, 8)), true);
    assertEquals(List.of("HeadObject"), sent.stream().map(Sent::operation).toList());
    assertTrue(sent.get(0).request().headers().keySet().stream().noneMatch(h -> h.toLowerCase().startsWith(
        "x-amz-server-side") || h.equalsIgnoreCase("x-amz-tagging")), sent.get(0).request().headers()::toString);
  }

  @Test
  void aServerThatDoesNotImplementAnOptionRefusesItAsAConfigurationFailure() {
    String bucket = strict.createBucket(strictClient);
    S3ObjectSink sink = smallParts(strictClient, bucket)
        .objectOptions((key, defaults) -> defaults.toBuilder().sseS3().build()).build();

    for (String key : List.of(ORIGINAL, LARGE)) {
      int size = key.equals(LARGE) ? (int) (6 * MIB) : 1000;
      SinkException e = assertThrows(SinkException.class,
          () -> sink.put(key, TestContent.of(TestContent.randomBytes(size, 10)), false));
      assertEquals(SinkException.Kind.CONFIGURATION, e.failureKind(), e::toString);
      assertTrue(e.getMessage().contains("501 NotImplemented"), e.getMessage());
    }
  }

  @Test
  void aFailingProviderIsAConfigurationFailureAndSendsNothing() {
    String bucket = strict.createBucket(strictClient);
    S3ObjectSink sink = S3ObjectSink.builder().client(strictClient).bucket(bucket)
        .objectOptions((key, defaults) -> {
          throw new IllegalStateException("no options for " + key);
        }).build();
    sent.clear();

    SinkException e = assertThrows(SinkException.class,
        () -> sink.put(ORIGINAL, TestContent.of(TestContent.randomBytes(10, 11)), true));

    assertEquals(SinkException.Kind.CONFIGURATION, e.failureKind());
    assertEquals(List.of(), sent.stream().map(Sent::operation).toList());
  }

  @Test
  void optionsValidateWhatS3WouldRefuse() {
    ObjectOptions.Builder b = ObjectOptions.builder();
    assertThrows(IllegalArgumentException.class,
        () -> b.serverSideEncryption(software.amazon.awssdk.services.s3.model.ServerSideEncryption.AES256, "key"));
    for (int i = 0; i < ObjectOptions.MAX_TAGS; i++) {
      b.tag("t" + i, "v");
    }
    assertThrows(IllegalArgumentException.class, () -> b.tag("one-too-many", "v"));
    assertThrows(IllegalArgumentException.class, () -> b.cacheControl(" "));
    ObjectOptions options = b.sseKms(null).tags(Map.of("a", "1")).build();
    assertEquals(Map.of("a", "1"), options.tags());
    assertEquals(options, options.toBuilder().build());
  }

  private static S3ObjectSink.Builder smallParts(S3Client client, String bucket) {
    return S3ObjectSink.builder().client(client).bucket(bucket).multipartThreshold(5 * MIB).partSize(5 * MIB);
  }

  private static HeadObjectResponse head(S3Client client, String bucket, String key) {
    return client.headObject(b -> b.bucket(bucket).key(key));
  }
}
