package dev.segmentledger.s3;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.segmentledger.core.ItemId;
import dev.segmentledger.core.ObjectKeys;
import dev.segmentledger.core.SinkException;
import dev.segmentledger.s3.SentRequests.Sent;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.atomic.AtomicBoolean;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import software.amazon.awssdk.core.interceptor.Context;
import software.amazon.awssdk.core.interceptor.ExecutionAttributes;
import software.amazon.awssdk.core.interceptor.ExecutionInterceptor;
import software.amazon.awssdk.core.interceptor.SdkExecutionAttribute;
import software.amazon.awssdk.core.sync.ResponseTransformer;
import software.amazon.awssdk.http.SdkHttpRequest;
import software.amazon.awssdk.services.s3.model.NoSuchKeyException;
import software.amazon.awssdk.services.s3.S3Client;

/**
 * {@link Integrity#CHECKSUMS} against a server that checks the CRC32Cs it is sent: S3Proxy 3.x (the
 * run with {@code -Ps3proxy-3}, which .ci/run makes). The server accepts the sink's CRC32C on a
 * {@code PutObject}; a body that does not match the CRC32C it carries (as when its bytes change
 * between the checksum and the wire; its {@code Content-MD5} is right, so only the CRC32C can catch
 * it) is refused with {@code 400 BadDigest}, a retryable failure, and the next attempt stores it.
 * S3Proxy 3.3 implements CRC32C multipart uploads only as {@code COMPOSITE}: the {@code FULL_OBJECT}
 * upload the mode creates is refused with {@code 501}, a configuration failure (the ledger pauses;
 * docs/bucket.md). S3Proxy 2.9 (the default run) implements no CRC32C and refuses the mode as a
 * configuration failure too, which is what these cases check there.
 */
class ChecksumCheckingServerTest {
  private static final long MIB = 1024 * 1024;
  private static final String SMALL = ObjectKeys.keyOf(ItemId.original("b1", "720p", 1));
  private static final String LARGE = ObjectKeys.keyOf(ItemId.original("b1", "720p", 2));

  private static final SentRequests recorder = new SentRequests();
  private static final List<Sent> sent = recorder.sent();
  private static final AtomicBoolean corruptNextPut = new AtomicBoolean();
  private static S3ProxyServer server;
  private static S3Client client;
  private String bucket;
  private S3ObjectSink sink;

  @BeforeAll
  static void start() throws Exception {
    server = S3ProxyServer.start();
    client = S3ProxyServer.client(server.endpoint(), Duration.ofSeconds(60), new CorruptNextPut(), recorder);
  }

  @AfterAll
  static void stop() throws Exception {
    client.close();
    server.close();
  }

  @BeforeEach
  void newBucket() {
    bucket = server.createBucket(client);
    sink = S3ObjectSink.builder().client(client).bucket(bucket).multipartThreshold(5 * MIB).partSize(5 * MIB)
        .integrity(Integrity.CHECKSUMS).conditionalWrites(ConditionalWrites.OFF).build();
    sent.clear();
    corruptNextPut.set(false);
  }

  @Test
  void theServerAcceptsTheCrc32cOfAPutAndRefusesAFullObjectMultipartUploadAsUnimplemented() {
    byte[] small = TestContent.randomBytes(1000, 1);
    byte[] large = TestContent.randomBytes((int) (6 * MIB), 2);
    if (!S3ProxyServer.checksChecksums()) {
      assertUnimplemented(assertThrows(SinkException.class, () -> sink.put(SMALL, TestContent.of(small), false)));
      return;
    }
    sink.put(SMALL, TestContent.of(small), false);
    assertArrayEquals(small, get(SMALL));
    sent.clear();

    assertUnimplemented(assertThrows(SinkException.class, () -> sink.put(LARGE, TestContent.of(large), false)));
    assertEquals(List.of("CreateMultipartUpload"), operations(), "requests " + sent);
  }

  @Test
  void aBodyThatDoesNotMatchItsCrc32cIsRefusedAndStoredByTheNextAttempt() {
    byte[] small = TestContent.randomBytes(1000, 3);
    corruptNextPut.set(true);

    SinkException refused = assertThrows(SinkException.class, () -> sink.put(SMALL, TestContent.of(small), false));

    if (!S3ProxyServer.checksChecksums()) {
      assertUnimplemented(refused);
      return;
    }
    assertEquals(SinkException.Kind.TRANSIENT, refused.failureKind(), refused::getMessage);
    assertTrue(refused.getMessage().contains("BadDigest"), refused.getMessage());
    assertEquals(List.of("PutObject"), operations());
    assertThrows(NoSuchKeyException.class, () -> get(SMALL), "nothing stored");

    sink.put(SMALL, TestContent.of(small), true);

    assertArrayEquals(small, get(SMALL));
  }

  /**
   * A refusal as not implemented ({@code 501}, a configuration failure): what S3Proxy 2.x answers
   * to every request of the mode, and 3.3 to a {@code FULL_OBJECT} multipart upload.
   */
  private static void assertUnimplemented(SinkException e) {
    assertEquals(SinkException.Kind.CONFIGURATION, e.failureKind(), e::getMessage);
    assertTrue(e.getMessage().contains("501"), e.getMessage());
  }

  private static List<String> operations() {
    return sent.stream().map(Sent::operation).toList();
  }

  private byte[] get(String key) {
    return client.getObject(b -> b.bucket(bucket).key(key), ResponseTransformer.toBytes()).asByteArray();
  }

  /** When armed, gives the next {@code PutObject} the CRC32C of other bytes (before signing). */
  private static final class CorruptNextPut implements ExecutionInterceptor {
    @Override
    public SdkHttpRequest modifyHttpRequest(Context.ModifyHttpRequest context, ExecutionAttributes attributes) {
      SdkHttpRequest request = context.httpRequest();
      if ("PutObject".equals(attributes.getAttribute(SdkExecutionAttribute.OPERATION_NAME))
          && request.firstMatchingHeader("x-amz-checksum-crc32c").isPresent() && corruptNextPut.compareAndSet(true, false)) {
        return request.toBuilder().putHeader("x-amz-checksum-crc32c", "AAAAAA==").build();
      }
      return request;
    }
  }
}
