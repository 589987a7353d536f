package dev.segmentledger.testkit;

import java.net.URI;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Properties;
import org.gaul.s3proxy.AuthenticationType;
import org.gaul.s3proxy.S3Proxy;
import org.jclouds.ContextBuilder;
import org.jclouds.blobstore.BlobStoreContext;

/**
 * An S3 server in-process (S3Proxy) with one store behind two loopback ports: a <em>signed</em>
 * one that requires SigV4 with the given credentials (the uploader's side, as in production), and
 * an <em>anonymous</em> one that a browser, hls.js and ffprobe read plain HTTP from without
 * credentials (the viewer's side: a public bucket, or a CDN in front of one). The store is in
 * memory ({@link #inMemory}) or a folder of files ({@link #onDisk}).
 *
 * <p>Why two ports: S3Proxy on an authenticated port serves an anonymous GET only for an object
 * whose own ACL is {@code public-read}, and the ledger's sink sets no ACL. The anonymous port reads
 * every object as it was stored, with the {@code Content-Type} it was stored with, so what a
 * player plays is exactly what the uploader put. It accepts writes too: it listens on 127.0.0.1
 * only, for the server's lifetime. Never expose it.
 *
 * <p>Needs {@code org.gaul:s3proxy} on the classpath: the testkit declares it optional, so add it
 * to your test dependencies to use this class. Thread-safe; close it when done.
 */
public final class PlaybackBucketServer implements AutoCloseable {
  private final BlobStoreContext context;
  private final S3Proxy signed;
  private final S3Proxy anonymous;

  private PlaybackBucketServer(BlobStoreContext context, String accessKey, String secretKey) throws Exception {
    this.context = context;
    S3Proxy signedPort = null;
    S3Proxy anonymousPort = null;
    try {
      signedPort = S3Proxy.builder()
          .blobStore(context.getBlobStore())
          .awsAuthentication(AuthenticationType.AWS_V4, accessKey, secretKey)
          .endpoint(URI.create("http://127.0.0.1:0"))
          .build();
      anonymousPort = S3Proxy.builder()
          .blobStore(context.getBlobStore())
          .awsAuthentication(AuthenticationType.NONE, null, null)
          .endpoint(URI.create("http://127.0.0.1:0"))
          .build();
      start(signedPort);
      start(anonymousPort);
    } catch (Exception | Error e) {
      this.signed = signedPort;
      this.anonymous = anonymousPort;
      close();
      throw e;
    }
    this.signed = signedPort;
    this.anonymous = anonymousPort;
  }

  /** Both ports on a new in-memory store; the signed port accepts {@code accessKey}/{@code secretKey}. */
  public static PlaybackBucketServer inMemory(String accessKey, String secretKey) throws Exception {
    return new PlaybackBucketServer(context("transient-nio2", new Properties()), accessKey, secretKey);
  }

  /**
   * Both ports on a store that keeps each object as a file under {@code folder} (created if
   * missing), so that it outlives the server; the signed port accepts {@code accessKey}/{@code secretKey}.
   */
  public static PlaybackBucketServer onDisk(Path folder, String accessKey, String secretKey) throws Exception {
    Files.createDirectories(folder);
    Properties properties = new Properties();
    properties.setProperty("jclouds.filesystem.basedir", folder.toString());
    return new PlaybackBucketServer(context("filesystem", properties), accessKey, secretKey);
  }

  private static BlobStoreContext context(String provider, Properties overrides) {
    return ContextBuilder.newBuilder(provider)
        .credentials("identity", "credential")
        .overrides(overrides)
        .build(BlobStoreContext.class);
  }

  private static void start(S3Proxy proxy) throws Exception {
    proxy.start();
    if (!"STARTED".equals(proxy.getState())) {
      throw new IllegalStateException("S3Proxy did not start: " + proxy.getState());
    }
  }

  /** The SigV4 port, for the ledger's sink and any S3 client. */
  public URI signedEndpoint() {
    return URI.create("http://127.0.0.1:" + signed.getPort());
  }

  /** The anonymous port, for browsers, players and ffprobe. */
  public URI anonymousEndpoint() {
    return URI.create("http://127.0.0.1:" + anonymous.getPort());
  }

  /** Creates {@code bucket} directly in the store if it does not exist yet; returns it. */
  public String createBucket(String bucket) {
    context.getBlobStore().createContainerInLocation(null, bucket);
    return bucket;
  }

  /** The plain-HTTP address of {@code key} in {@code bucket} on the anonymous port (path style). */
  public URI url(String bucket, String key) {
    return anonymousEndpoint().resolve("/" + bucket + "/" + key);
  }

  /** Stops both ports (the anonymous one first) and the store, even if stopping one fails. */
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
