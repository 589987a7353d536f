package dev.segmentledger.s3;

import dev.segmentledger.rig.FaultProxy;
import java.io.File;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Comparator;
import java.util.stream.Stream;
import org.junit.jupiter.api.extension.AfterAllCallback;
import org.junit.jupiter.api.extension.BeforeAllCallback;
import org.junit.jupiter.api.extension.ExtensionContext;
import software.amazon.awssdk.services.s3.S3Client;

/**
 * S3Proxy (or, under {@code -Prgw}, the external endpoint: {@link S3TestServer}) with a {@link
 * FaultProxy} in front of it, and a client for each path: {@link #direct()}
 * to the server (to set up and observe) and {@link #throughProxy()} (to suffer the faults). A JUnit
 * extension, shared by the sink's fault and multipart tests and the integration tests: register it
 * on a static field and it runs before the class's first test and closes after its last:
 *
 * <pre>{@code
 * @RegisterExtension static final S3FaultRig rig = S3FaultRig.inMemory(Duration.ofSeconds(60));
 * }</pre>
 *
 * <p>The accessors may be called from any thread once the class has started.
 */
public final class S3FaultRig implements BeforeAllCallback, AfterAllCallback {
  private final boolean onFilesystem;
  private final Duration proxiedAttemptTimeout;
  private volatile Path store;
  private volatile S3TestServer server;
  private volatile FaultProxy proxy;
  private volatile S3Client direct;
  private volatile S3Client throughProxy;

  private S3FaultRig(boolean onFilesystem, Duration proxiedAttemptTimeout) {
    this.onFilesystem = onFilesystem;
    this.proxiedAttemptTimeout = proxiedAttemptTimeout;
  }

  /** The server on its in-memory store; {@code proxiedAttemptTimeout} bounds each call through the proxy. */
  public static S3FaultRig inMemory(Duration proxiedAttemptTimeout) {
    return new S3FaultRig(false, proxiedAttemptTimeout);
  }

  /**
   * As {@link #inMemory}, with the server on its {@code filesystem} store in a temporary directory
   * of its own: the store to use when a client cuts a request body short (see {@link S3ProxyServer}).
   */
  public static S3FaultRig onFilesystem(Duration proxiedAttemptTimeout) {
    return new S3FaultRig(true, proxiedAttemptTimeout);
  }

  @Override
  public void beforeAll(ExtensionContext context) throws Exception {
    if (onFilesystem) {
      store = Files.createTempDirectory("s3-fault-rig");
      server = S3TestServer.startOnFilesystem(store);
    } else {
      server = S3TestServer.start();
    }
    proxy = FaultProxy.start(server.endpoint());
    direct = server.clientTo(server.endpoint(), Duration.ofSeconds(60));
    throughProxy = server.clientTo(proxy.uri(), proxiedAttemptTimeout);
  }

  @Override
  public void afterAll(ExtensionContext context) throws Exception {
    throughProxy.close();
    direct.close();
    proxy.close();
    server.close();
    if (store != null) {
      try (Stream<Path> files = Files.walk(store)) {
        files.sorted(Comparator.reverseOrder()).map(Path::toFile).forEach(File::delete);
      }
    }
  }

  /** A new, empty bucket for one test, with the proxy's log of requests cleared. */
  public String freshBucket() {
    String bucket = server.createBucket(direct);
    proxy.clearRequests();
    return bucket;
  }

  /** S3Proxy, or the external endpoint under {@code -Prgw} (see {@link S3TestServer}). */
  public S3TestServer server() {
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
}
