package dev.segmentledger.s3;

import dev.segmentledger.rig.FaultProxy;
import java.nio.file.Path;
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

  private S3FaultRig(S3ProxyServer server, Duration proxiedAttemptTimeout) throws Exception {
    this.server = server;
    proxy = FaultProxy.start(server.endpoint());
    direct = S3ProxyServer.client(server.endpoint(), Duration.ofSeconds(60));
    throughProxy = S3ProxyServer.client(proxy.uri(), proxiedAttemptTimeout);
  }

  /** Starts the server and the proxy; {@code proxiedAttemptTimeout} bounds each call through the proxy. */
  public static S3FaultRig start(Duration proxiedAttemptTimeout) throws Exception {
    return new S3FaultRig(S3ProxyServer.start(), proxiedAttemptTimeout);
  }

  /**
   * As {@link #start}, with the server on its {@code filesystem} store under {@code baseDir}: the
   * store to use when a client cuts a request body short (see {@link S3ProxyServer}).
   */
  public static S3FaultRig startOnFilesystem(Path baseDir, Duration proxiedAttemptTimeout) throws Exception {
    return new S3FaultRig(S3ProxyServer.startOnFilesystem(baseDir), proxiedAttemptTimeout);
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
