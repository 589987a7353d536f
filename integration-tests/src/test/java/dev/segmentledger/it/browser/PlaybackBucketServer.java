package dev.segmentledger.it.browser;

import dev.segmentledger.s3.S3ProxyServer;
import java.net.URI;
import java.time.Duration;
import java.util.Properties;
import java.util.concurrent.atomic.AtomicInteger;
import org.gaul.s3proxy.AuthenticationType;
import org.gaul.s3proxy.S3Proxy;
import org.jclouds.ContextBuilder;
import org.jclouds.blobstore.BlobStoreContext;
import software.amazon.awssdk.services.s3.S3Client;

/**
 * S3Proxy in-process with one in-memory store behind two loopback ports: a <em>signed</em> one
 * that requires SigV4 with {@link S3ProxyServer}'s test credentials (the uploader's side, as in
 * production), and an <em>anonymous</em> one that a browser, hls.js and ffprobe read plain HTTP
 * from without credentials (the viewer's side: a public bucket, or a CDN in front of one).
 *
 * <p>Why two ports: S3Proxy on an authenticated port serves an anonymous GET only for an object
 * whose own ACL is {@code public-read} (its {@code transient-nio2} store keeps per-object ACLs),
 * and the ledger's sink sets no ACL. The anonymous port reads every object as it was stored, with
 * the {@code Content-Type} it was stored with, so what the browser plays is exactly what the
 * uploader put. It accepts writes too: it listens on 127.0.0.1 only, for the test's lifetime.
 *
 * <p>The page, hls.js and the media are served from the same origin (the anonymous port), so the
 * player needs no CORS rules.
 */
public final class PlaybackBucketServer implements AutoCloseable {
  private static final AtomicInteger buckets = new AtomicInteger();

  private final BlobStoreContext context;
  private final S3Proxy signed;
  private final S3Proxy anonymous;

  private PlaybackBucketServer() throws Exception {
    context = ContextBuilder.newBuilder("transient-nio2")
        .credentials("identity", "credential")
        .overrides(new Properties())
        .build(BlobStoreContext.class);
    signed = S3Proxy.builder()
        .blobStore(context.getBlobStore())
        .awsAuthentication(AuthenticationType.AWS_V4, S3ProxyServer.ACCESS_KEY, S3ProxyServer.SECRET_KEY)
        .endpoint(URI.create("http://127.0.0.1:0"))
        .build();
    anonymous = S3Proxy.builder()
        .blobStore(context.getBlobStore())
        .awsAuthentication(AuthenticationType.NONE, null, null)
        .endpoint(URI.create("http://127.0.0.1:0"))
        .build();
    try {
      start(signed);
      start(anonymous);
    } catch (Exception e) {
      close();
      throw e;
    }
  }

  /** Starts both ports on a new in-memory store; close it when done. */
  public static PlaybackBucketServer start() throws Exception {
    return new PlaybackBucketServer();
  }

  private static void start(S3Proxy proxy) throws Exception {
    proxy.start();
    if (!"STARTED".equals(proxy.getState())) {
      throw new IllegalStateException("S3Proxy did not start: " + proxy.getState());
    }
  }

  /** The SigV4 port, for {@link #client()} and the ledger's sink. */
  public URI signedEndpoint() {
    return URI.create("http://127.0.0.1:" + signed.getPort());
  }

  /** The anonymous port, for browsers and ffprobe. */
  public URI anonymousEndpoint() {
    return URI.create("http://127.0.0.1:" + anonymous.getPort());
  }

  /** A client of the signed port, configured as {@link S3ProxyServer#client} configures one. */
  public S3Client client() {
    return S3ProxyServer.client(signedEndpoint(), Duration.ofSeconds(30));
  }

  /** A new, empty bucket. */
  public String createBucket(S3Client client) {
    String bucket = "playback-" + buckets.incrementAndGet();
    client.createBucket(b -> b.bucket(bucket));
    return bucket;
  }

  /** The plain-HTTP address of {@code key} in {@code bucket} on the anonymous port (path style). */
  public URI url(String bucket, String key) {
    return anonymousEndpoint().resolve("/" + bucket + "/" + key);
  }

  @Override
  public void close() {
    try {
      stop(anonymous);
    } finally {
      try {
        stop(signed);
      } finally {
        context.close();
      }
    }
  }

  private static void stop(S3Proxy proxy) {
    if (proxy == null) {
      return;
    }
    try {
      proxy.stop();
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    } catch (Exception e) {
      throw new IllegalStateException("S3Proxy did not stop", e);
    }
  }
}
