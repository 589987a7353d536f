package dev.segmentledger.s3;

import java.time.Duration;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import software.amazon.awssdk.services.s3.S3Client;

/**
 * {@link ConditionalWritesCases} on the suite's S3 server: S3Proxy (2.9 by default, 3.x under {@code
 * -Ps3proxy-3}), or Ceph RGW under {@code -Prgw} ({@link S3TestServer}).
 */
class ConditionalWritesTest extends ConditionalWritesCases {
  private static S3TestServer server;
  private static S3Client client;

  @BeforeAll
  static void start() throws Exception {
    server = S3TestServer.start();
    client = server.clientTo(server.endpoint(), Duration.ofSeconds(30));
  }

  @AfterAll
  static void stop() throws Exception {
    client.close();
    server.close();
  }

  @Override
  protected S3Client client() {
    return client;
  }

  @Override
  protected String newBucket() {
    return server.createBucket(client);
  }

  /** What the probe found (see docs/bucket.md): S3Proxy 2.9 and 3.3, and RGW 16.2, all refuse a PUT with 412. */
  @Override
  protected boolean refusesOverwrites() {
    return true;
  }

  /** All three ignore the header on CompleteMultipartUpload and overwrite: the probe must say so. */
  @Override
  protected boolean refusesOverwritingCompletions() {
    return false;
  }
}
