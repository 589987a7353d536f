package dev.segmentledger.s3;

import java.time.Duration;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import software.amazon.awssdk.core.interceptor.Context;
import software.amazon.awssdk.core.interceptor.ExecutionAttributes;
import software.amazon.awssdk.core.interceptor.ExecutionInterceptor;
import software.amazon.awssdk.http.SdkHttpRequest;
import software.amazon.awssdk.services.s3.S3Client;

/**
 * {@link ConditionalWritesCases} against a server that ignores {@code If-None-Match} (S3Proxy with
 * the header removed from every request before signing): detection must say unsupported and the
 * sink must work as before, overwriting.
 */
class HeaderIgnoringServerConditionalWritesTest extends ConditionalWritesCases {
  private static S3ProxyServer server;
  private static S3Client client;

  @BeforeAll
  static void start() throws Exception {
    server = S3ProxyServer.start();
    ExecutionInterceptor dropIfNoneMatch = new ExecutionInterceptor() {
      @Override
      public SdkHttpRequest modifyHttpRequest(Context.ModifyHttpRequest context, ExecutionAttributes attributes) {
        return context.httpRequest().toBuilder().removeHeader("If-None-Match").build();
      }
    };
    client = S3ProxyServer.client(server.endpoint(), Duration.ofSeconds(30), dropIfNoneMatch);
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

  @Override
  protected boolean refusesOverwrites() {
    return false;
  }

  @Override
  protected boolean refusesOverwritingCompletions() {
    return false;
  }
}
