package dev.segmentledger.s3;

import dev.segmentledger.rig.FaultProxy;
import java.time.Duration;
import software.amazon.awssdk.services.s3.S3Client;

/**
 * S3Proxy with a {@link FaultProxy} in front of it, and a client for each path: {@link #direct()}
 * to the server (to set up and observe) and {@link #throughProxy()} (to suffer the faults).
 * Shared by the sink's fault and multipart tests and the integration tests.
 */
public final class S3FaultRig implements AutoCloseable {
  private final S3ProxyServer server;
  private final FaultProxy proxy;
  private final S3Client direct;
  private final S3Client throughProxy;

  private S3FaultRig(Duration proxiedAttemptTimeout) throws Exception {
    server = S3ProxyServer.start();
    proxy = FaultProxy.start(server.endpoint());
    direct = S3ProxyServer.client(server.endpoint(), Duration.ofSeconds(60));
    throughProxy = S3ProxyServer.client(proxy.uri(), proxiedAttemptTimeout);
  }

  /** Starts the server and the proxy; {@code proxiedAttemptTimeout} bounds each call through the proxy. */
  public static S3FaultRig start(Duration proxiedAttemptTimeout) throws Exception {
    return new S3FaultRig(proxiedAttemptTimeout);
  }

  public S3ProxyServer server() {
    return server;
  }

  public FaultProxy proxy() {
    return proxy;
  }

  public S3Client direct() {
    return direct;
  }

  public S3Client throughProxy() {
    return throughProxy;
  }

  @Override
  public void close() throws Exception {
    throughProxy.close();
    direct.close();
    proxy.close();
    server.close();
  }
}
