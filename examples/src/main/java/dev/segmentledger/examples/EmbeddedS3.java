package dev.segmentledger.examples;

import java.net.URI;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Properties;
import org.gaul.s3proxy.AuthenticationType;
import org.gaul.s3proxy.S3Proxy;
import org.jclouds.ContextBuilder;
import org.jclouds.blobstore.BlobStoreContext;

/**
 * S3Proxy in-process on a random loopback port, storing objects as files under a local folder,
 * with SigV4 authentication and demo-only credentials. Speaks the real S3 protocol.
 */
final class EmbeddedS3 implements AutoCloseable {
  static final String ACCESS_KEY = "segment-ledger-demo";
  static final String SECRET_KEY = "segment-ledger-demo-secret";

  private final BlobStoreContext context;
  private final S3Proxy proxy;

  EmbeddedS3(Path storage) throws Exception {
    Files.createDirectories(storage);
    Properties properties = new Properties();
    properties.setProperty("jclouds.filesystem.basedir", storage.toString());
    context = ContextBuilder.newBuilder("filesystem")
        .credentials("identity", "credential")
        .overrides(properties)
        .build(BlobStoreContext.class);
    proxy = S3Proxy.builder()
        .blobStore(context.getBlobStore())
        .awsAuthentication(AuthenticationType.AWS_V4, ACCESS_KEY, SECRET_KEY)
        .endpoint(URI.create("http://127.0.0.1:0"))
        .build();
    proxy.start();
    if (!"STARTED".equals(proxy.getState())) {
      throw new IllegalStateException("S3Proxy did not start: " + proxy.getState());
    }
  }

  URI endpoint() {
    return URI.create("http://127.0.0.1:" + proxy.getPort());
  }

  @Override
  public void close() {
    try {
      proxy.stop();
    } catch (Exception e) {
      throw new IllegalStateException("S3Proxy did not stop", e);
    } finally {
      context.close();
    }
  }
}
