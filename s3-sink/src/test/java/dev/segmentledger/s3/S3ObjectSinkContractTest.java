package dev.segmentledger.s3;

import dev.segmentledger.core.spi.ObjectSink;
import dev.segmentledger.testkit.ObjectSinkContract;
import java.time.Duration;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import software.amazon.awssdk.services.s3.S3Client;

/** The sink contract over real HTTP against S3Proxy, with a sink prefix to prove it is stripped. */
class S3ObjectSinkContractTest extends ObjectSinkContract {
  private static S3ProxyServer server;
  private static S3Client client;

  @BeforeAll
  static void startServer() throws Exception {
    server = S3ProxyServer.start();
    client = S3ProxyServer.client(server.endpoint(), Duration.ofSeconds(30));
  }

  @AfterAll
  static void stopServer() throws Exception {
    client.close();
    server.close();
  }

  @Override
  protected ObjectSink newSink() {
    return S3ObjectSink.builder().client(client).bucket(server.createBucket(client)).prefix("recordings/").build();
  }
}
