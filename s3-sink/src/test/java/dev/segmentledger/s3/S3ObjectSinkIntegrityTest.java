package dev.segmentledger.s3;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.segmentledger.core.ItemId;
import dev.segmentledger.core.ObjectKeys;
import dev.segmentledger.core.SinkException;
import dev.segmentledger.s3.SentRequests.Sent;
import java.time.Duration;
import java.util.List;
import java.util.zip.CRC32C;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import software.amazon.awssdk.core.sync.ResponseTransformer;
import software.amazon.awssdk.services.s3.S3Client;

/**
 * The integrity setting on the wire, against S3Proxy 2.9: with {@link Integrity#CHECKSUMS} every
 * upload request carries the CRC32C headers S3 checks, with the values S3 computes (the CRC32C of
 * the bytes, big-endian, base64); with the default {@link Integrity#MD5_ONLY} none does. S3Proxy
 * 2.9 refuses {@code x-amz-checksum-crc32c} with {@code 501 NotImplemented} (like other servers
 * without S3's checksums: the reason for {@code MD5_ONLY}); with {@code ignoreUnknownHeaders} it
 * stores the object without checking them, so the headers are checked on the wire.
 */
class S3ObjectSinkIntegrityTest {
  private static final long MIB = 1024 * 1024;
  private static final String SMALL = ObjectKeys.keyOf(ItemId.original("b1", "720p", 7));
  private static final String LARGE = ObjectKeys.keyOf(ItemId.original("b1", "1080p", 8));

  private static final SentRequests recorder = new SentRequests();
  private static final List<Sent> sent = recorder.sent();
  private static S3ProxyServer server;
  private static S3Client client;
  private static S3ProxyServer strict;
  private static S3Client strictClient;

  @BeforeAll
  static void start() throws Exception {
    server = S3ProxyServer.startIgnoringUnknownHeaders();
    client = S3ProxyServer.client(server.endpoint(), Duration.ofSeconds(60), recorder);
    strict = S3ProxyServer.start();
    strictClient = S3ProxyServer.client(strict.endpoint(), Duration.ofSeconds(60));
  }

  @AfterAll
  static void stop() throws Exception {
    client.close();
    server.close();
    strictClient.close();
    strict.close();
  }

  @BeforeEach
  void clear() {
    sent.clear();
  }

  @Test
  void checksumsModeSendsTheFullObjectCrc32cWithEveryUploadRequest() {
    String bucket = server.createBucket(client);
    S3ObjectSink sink = sink(bucket).integrity(Integrity.CHECKSUMS).build();
    byte[] small = TestContent.randomBytes(1000, 1);
    byte[] large = TestContent.randomBytes((int) (11 * MIB), 2);

    sink.put(SMALL, TestContent.of(small), false);
    sink.put(LARGE, TestContent.of(large), false);

    assertEquals(crc32c(small, 0, small.length), only("PutObject").header("x-amz-checksum-crc32c"));
    Sent create = only("CreateMultipartUpload");
    assertEquals("CRC32C", create.header("x-amz-checksum-algorithm"));
    assertEquals("FULL_OBJECT", create.header("x-amz-checksum-type"));
    List<Sent> parts = all("UploadPart");
    assertEquals(3, parts.size());
    for (Sent part : parts) {
      int number = Integer.parseInt(part.request().firstMatchingRawQueryParameter("partNumber").orElseThrow());
      int from = (int) ((number - 1) * 5 * MIB);
      assertEquals(crc32c(large, from, (int) Math.min(large.length, from + 5 * MIB)),
          part.header("x-amz-checksum-crc32c"), "part " + number);
    }
    Sent complete = only("CompleteMultipartUpload");
    assertEquals(crc32c(large, 0, large.length), complete.header("x-amz-checksum-crc32c"));
    assertEquals("FULL_OBJECT", complete.header("x-amz-checksum-type"));
    assertArrayEquals(small, get(bucket, SMALL));
    assertArrayEquals(large, get(bucket, LARGE));
  }

  @Test
  void theDefaultSendsNoChecksumHeader() {
    String bucket = server.createBucket(client);
    S3ObjectSink sink = sink(bucket).build();

    sink.put(SMALL, TestContent.of(TestContent.randomBytes(1000, 3)), false);
    sink.put(LARGE, TestContent.of(TestContent.randomBytes((int) (6 * MIB), 4)), false);

    assertTrue(sent.size() >= 5, "requests " + sent);
    for (Sent request : sent) {
      for (String name : request.request().headers().keySet()) {
        assertTrue(!name.toLowerCase(java.util.Locale.ROOT).startsWith("x-amz-checksum"),
            request.operation() + " " + name);
      }
    }
    assertNull(only("PutObject").header("x-amz-checksum-crc32c"));
  }

  @Test
  void aServerWithoutChecksumsRefusesChecksumsModeAsAConfigurationFailure() {
    String bucket = strict.createBucket(strictClient);
    S3ObjectSink sink = S3ObjectSink.builder().client(strictClient).bucket(bucket).integrity(Integrity.CHECKSUMS)
        .build();

    SinkException e = assertThrows(SinkException.class,
        () -> sink.put(SMALL, TestContent.of(TestContent.randomBytes(1000, 5)), false));

    assertEquals(SinkException.Kind.CONFIGURATION, e.failureKind());
    assertTrue(e.getMessage().contains("501"), e.getMessage());
  }

  private static S3ObjectSink.Builder sink(String bucket) {
    return S3ObjectSink.builder().client(client).bucket(bucket).multipartThreshold(5 * MIB).partSize(5 * MIB);
  }

  private static Sent only(String operation) {
    List<Sent> matching = all(operation);
    assertEquals(1, matching.size(), operation + " in " + sent);
    return matching.get(0);
  }

  private static List<Sent> all(String operation) {
    return sent.stream().filter(s -> s.operation().equals(operation)).toList();
  }

  private static byte[] get(String bucket, String key) {
    return client.getObject(b -> b.bucket(bucket).key(key), ResponseTransformer.toBytes()).asByteArray();
  }

  private static String crc32c(byte[] data, int from, int to) {
    CRC32C crc = new CRC32C();
    crc.update(data, from, to - from);
    return ContentDigests.crc32c(crc);
  }
}
