package dev.segmentledger.benchmarks;

import java.net.URI;
import java.util.Properties;
import org.gaul.s3proxy.AuthenticationType;
import org.gaul.s3proxy.S3Proxy;
import org.jclouds.ContextBuilder;
import org.jclouds.blobstore.BlobStoreContext;

/**
 * The S3 server of the upload measures, run in a JVM of its own ({@link S3ProxyProcess}) so that
 * its request handling does not share the ledger's heap, GC, JIT and thread scheduling, as a real
 * S3 endpoint would not: S3Proxy on its jclouds {@code filesystem} blobstore, SigV4, logging at
 * WARN ({@code logback.xml} of this module, on the same class path). Prints
 * {@code LISTENING <port>} once it accepts requests, then serves until killed.
 *
 * <p>Arguments: blob directory, access key, secret key.
 */
public final class S3ProxyServer {
  private S3ProxyServer() {}

  public static void main(String[] args) throws Exception {
    Properties props = new Properties();
    props.setProperty("jclouds.filesystem.basedir", args[0]);
    BlobStoreContext context = ContextBuilder.newBuilder("filesystem").overrides(props)
        .build(BlobStoreContext.class);
    S3Proxy proxy = S3Proxy.builder().blobStore(context.getBlobStore())
        .awsAuthentication(AuthenticationType.AWS_V4, args[1], args[2])
        .endpoint(URI.create("http://127.0.0.1:0")).build();
    proxy.start();
    System.out.println("LISTENING " + proxy.getPort());
    System.out.flush();
    Thread.currentThread().join();
  }
}
