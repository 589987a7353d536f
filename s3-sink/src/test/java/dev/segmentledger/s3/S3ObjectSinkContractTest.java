package dev.segmentledger.s3;

import dev.segmentledger.core.UnfinishedUpload;
import dev.segmentledger.core.spi.ObjectSink;
import dev.segmentledger.testkit.contract.ObjectSinkContract;
import java.time.Duration;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import software.amazon.awssdk.core.sync.RequestBody;
import software.amazon.awssdk.services.s3.S3Client;

/**
 * The sink contract over real HTTP against S3Proxy (or, under {@code -Prgw}, the external endpoint:
 * {@link S3TestServer}), with a sink prefix to prove it is stripped.
 */
class S3ObjectSinkContractTest extends ObjectSinkContract {
  private static S3TestServer server;
  private static S3Client client;
  private String bucket;

  @BeforeAll
  static void startServer() throws Exception {
    server = S3TestServer.start();
    client = server.clientTo(server.endpoint(), Duration.ofSeconds(30));
  }

  @AfterAll
  static void stopServer() throws Exception {
    client.close();
    server.close();
  }

  @Override
  protected ObjectSink newSink() {
    bucket = server.createBucket(client);
    return S3ObjectSink.builder().client(client).bucket(bucket).prefix("recordings/").build();
  }

  /** A CreateMultipartUpload under the sink's prefix, with one part, never completed. */
  @Override
  protected UnfinishedUpload leaveUnfinishedUpload(String key) {
    String objectKey = "recordings/" + key;
    String uploadId = client.createMultipartUpload(b -> b.bucket(bucket).key(objectKey)).uploadId();
    client.uploadPart(b -> b.bucket(bucket).key(objectKey).uploadId(uploadId).partNumber(1),
        RequestBody.fromString("a part"));
    return new UnfinishedUpload(key, uploadId, null);
  }
}
