package dev.segmentledger.s3;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.segmentledger.core.ItemId;
import dev.segmentledger.core.ObjectKeys;
import dev.segmentledger.core.Sha256Checksum;
import dev.segmentledger.core.StoredObjectInfo;
import dev.segmentledger.s3.SentRequests.Sent;
import java.security.MessageDigest;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.zip.CRC32C;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import software.amazon.awssdk.core.sync.RequestBody;
import software.amazon.awssdk.services.s3.S3Client;

/**
 * The checksum the sink reports, which the ledger records on confirm and the reconciler compares
 * with a HEAD's: with {@link Integrity#CHECKSUMS}, the SHA-256 and the full-object CRC32C ({@code
 * sha256:... crc32c:...}), single and multipart alike, and a HEAD adds the CRC32C the server keeps;
 * with the default, the SHA-256 alone, and no HEAD asks for the server's checksums. Against S3Proxy
 * answering as AWS S3 does ({@link KeptChecksums}: it keeps the CRC32C of each write and reports it
 * on a HEAD with {@code x-amz-checksum-mode}), since neither S3Proxy nor Ceph RGW 16.2 keeps one.
 */
class S3ObjectSinkRecordedChecksumTest {
  private static final long MIB = 1024 * 1024;
  private static final String SMALL = ObjectKeys.keyOf(ItemId.original("b1", "720p", 1));
  private static final String LARGE = ObjectKeys.keyOf(ItemId.original("b1", "720p", 2));

  private static final SentRequests recorder = new SentRequests();
  private static final List<Sent> sent = recorder.sent();
  private static S3ProxyServer server;
  private static S3Client client;
  private String bucket;

  @BeforeAll
  static void start() throws Exception {
    server = S3ProxyServer.startIgnoringUnknownHeaders();
    client = S3ProxyServer.client(server.endpoint(), Duration.ofSeconds(60), new KeptChecksums(), recorder);
  }

  @AfterAll
  static void stop() throws Exception {
    client.close();
    server.close();
  }

  @BeforeEach
  void newBucket() {
    bucket = server.createBucket(client);
    sent.clear();
  }

  private S3ObjectSink.Builder sink() {
    return S3ObjectSink.builder().client(client).bucket(bucket).multipartThreshold(5 * MIB).partSize(5 * MIB)
        .conditionalWrites(ConditionalWrites.OFF);
  }

  @Test
  void checksumsModeReportsTheSha256AndTheFullObjectCrc32cOnPutAndHead() throws Exception {
    S3ObjectSink sink = sink().integrity(Integrity.CHECKSUMS).build();
    byte[] small = TestContent.randomBytes(1000, 1);
    byte[] large = TestContent.randomBytes((int) (11 * MIB), 2);

    StoredObjectInfo smallStored = sink.put(SMALL, TestContent.of(small), false);
    StoredObjectInfo largeStored = sink.put(LARGE, TestContent.of(large), false);

    assertEquals(sha256(small) + " crc32c:" + crc32c(small), smallStored.checksum());
    assertEquals(sha256(large) + " crc32c:" + crc32c(large), largeStored.checksum());
    assertEquals(Optional.of(smallStored), sink.head(SMALL), "the server's CRC32C, as the ledger recorded it");
    assertEquals(Optional.of(largeStored), sink.head(LARGE));
    assertTrue(sent.stream().filter(s -> s.operation().equals("HeadObject"))
        .allMatch(s -> "ENABLED".equals(s.header("x-amz-checksum-mode"))), "requests " + sent);
    sent.clear();
    assertEquals(smallStored, sink.put(SMALL, TestContent.of(small), true), "a retry's skip reports the same");
    assertEquals(largeStored, sink.put(LARGE, TestContent.of(large), true));
    assertTrue(sent.stream().noneMatch(s -> s.operation().equals("PutObject") || s.operation().equals("UploadPart")),
        "nothing uploaded again: " + sent);
  }

  @Test
  void theDefaultReportsTheSha256AloneAndAsksTheServerForNoChecksum() throws Exception {
    S3ObjectSink sink = sink().build();
    byte[] small = TestContent.randomBytes(1000, 3);

    StoredObjectInfo stored = sink.put(SMALL, TestContent.of(small), false);

    assertEquals(sha256(small), stored.checksum());
    assertEquals(Optional.of(stored), sink.head(SMALL));
    Sent head = sent.stream().filter(s -> s.operation().equals("HeadObject")).findFirst().orElseThrow();
    assertEquals(null, head.header("x-amz-checksum-mode"));
  }

  @Test
  void otherBytesUnderCopiedMetadataAreNeverTakenForTheContent() throws Exception {
    S3ObjectSink sink = sink().integrity(Integrity.CHECKSUMS).build();
    byte[] content = TestContent.randomBytes(1000, 4);
    StoredObjectInfo stored = sink.put(SMALL, TestContent.of(content), false);
    byte[] other = content.clone();
    other[0] ^= 1;
    // Another writer: other bytes of the same size, the sink's SHA-256 metadata copied over.
    String copied = sha256(content);
    client.putObject(b -> b.bucket(bucket).key(SMALL).checksumCRC32C(crc32c(other))
        .metadata(Map.of(S3ObjectSink.CHECKSUM_METADATA, copied)), RequestBody.fromBytes(other));

    assertEquals(sha256(content) + " crc32c:" + crc32c(other), sink.head(SMALL).orElseThrow().checksum());
    assertEquals(Optional.empty(), sink.findIdentical(SMALL, TestContent.of(content)));
    sent.clear();
    assertEquals(stored, sink.put(SMALL, TestContent.of(content), true), "uploaded again, not skipped");
    assertEquals(1, sent.stream().filter(s -> s.operation().equals("PutObject")).count(), "requests " + sent);
    assertEquals(Optional.of(stored), sink.findIdentical(SMALL, TestContent.of(content)));
  }

  private static String sha256(byte[] data) throws java.security.NoSuchAlgorithmException {
    return Sha256Checksum.of(MessageDigest.getInstance("SHA-256").digest(data));
  }

  private static String crc32c(byte[] data) {
    CRC32C crc = new CRC32C();
    crc.update(data, 0, data.length);
    return ContentDigests.crc32c(crc);
  }
}
