package dev.segmentledger.s3;

import static org.junit.jupiter.api.Assertions.assertEquals;

import dev.segmentledger.core.StoredObjectInfo;
import dev.segmentledger.core.spi.UploadContent;
import java.io.IOException;
import java.io.InputStream;
import java.time.Duration;
import java.util.Optional;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import software.amazon.awssdk.core.sync.RequestBody;
import software.amazon.awssdk.services.s3.S3Client;

/**
 * {@code findIdentical}: the object at the key, judged by size and checksum metadata as the {@code
 * mayExist} skip judges it; never on size alone. (The contract's cases run in {@link
 * S3ObjectSinkContractTest}; these add what only S3 has: an object without the metadata, and a
 * multipart object.)
 */
class S3ObjectSinkFindIdenticalTest {
  private static final String KEY = "b1/1080p/original/0000000001.ts";
  private static final int MIB = 1024 * 1024;
  private static S3ProxyServer server;
  private static S3Client client;
  private S3ObjectSink sink;
  private String bucket;

  @BeforeAll
  static void start() throws Exception {
    server = S3ProxyServer.start();
    client = S3ProxyServer.client(server.endpoint(), Duration.ofSeconds(30));
  }

  @AfterAll
  static void stop() throws Exception {
    client.close();
    server.close();
  }

  @BeforeEach
  void freshBucket() {
    bucket = server.createBucket(client);
    sink = S3ObjectSink.builder().client(client).bucket(bucket).multipartThreshold(5 * MIB).partSize(5 * MIB).build();
  }

  @Test
  void aMultipartObjectWithTheSameBytesIsIdentical() {
    byte[] data = TestContent.randomBytes(11 * MIB, 1);
    StoredObjectInfo stored = sink.put(KEY, TestContent.of(data), false);

    assertEquals(Optional.of(stored), sink.findIdentical(KEY, TestContent.of(data)));
  }

  @Test
  void sameSizeOtherBytesIsNotIdentical() {
    sink.put(KEY, TestContent.of(TestContent.randomBytes(1000, 1)), false);

    assertEquals(Optional.empty(), sink.findIdentical(KEY, TestContent.of(TestContent.randomBytes(1000, 2))));
  }

  @Test
  void anotherSizeIsNotIdenticalAndTheContentIsNotEvenRead() {
    sink.put(KEY, TestContent.of(TestContent.randomBytes(1000, 1)), false);
    AtomicInteger opened = new AtomicInteger();
    UploadContent longer = counting(TestContent.of(TestContent.randomBytes(1001, 1)), opened);

    assertEquals(Optional.empty(), sink.findIdentical(KEY, longer));
    assertEquals(0, opened.get());
  }

  @Test
  void anObjectWithoutChecksumMetadataIsNeverIdenticalEvenWithTheSameBytes() {
    byte[] data = TestContent.randomBytes(1000, 1);
    client.putObject(b -> b.bucket(bucket).key(KEY), RequestBody.fromBytes(data));

    assertEquals(Optional.empty(), sink.findIdentical(KEY, TestContent.of(data)));
  }

  @Test
  void nothingAtTheKeyIsNotIdentical() {
    assertEquals(Optional.empty(), sink.findIdentical(KEY, TestContent.of(new byte[10])));
  }

  private static UploadContent counting(UploadContent content, AtomicInteger opened) {
    return new UploadContent() {
      @Override
      public long size() {
        return content.size();
      }

      @Override
      public InputStream openStream() throws IOException {
        opened.incrementAndGet();
        return content.openStream();
      }
    };
  }
}
