package dev.segmentledger.s3;

import java.net.URI;
import java.nio.file.Path;
import java.time.Duration;
import software.amazon.awssdk.auth.credentials.AwsCredentials;
import software.amazon.awssdk.core.interceptor.ExecutionInterceptor;
import software.amazon.awssdk.regions.Region;
import software.amazon.awssdk.services.s3.S3Client;

/**
 * The S3 server a test talks to: S3Proxy in-process ({@link S3ProxyServer}), or, when the build
 * runs with {@code -Prgw}, the external endpoint the environment names ({@link ExternalS3}, the
 * Ceph RADOS Gateway that {@code .ci/rgw} starts). Tests that take their server from {@link
 * #start()}, {@link #startOnFilesystem} or an {@link S3FaultRig} run unchanged against either.
 * Thread-safe once started.
 */
public interface S3TestServer extends AutoCloseable {
  /** Where the server listens. */
  URI endpoint();

  /**
   * A client with this server's credentials for {@code endpoint} (the server's, or a proxy's in
   * front of it), configured as {@link S3ProxyServer#client} describes: checksums only when
   * required, path-style access, no SDK retries.
   */
  S3Client clientTo(URI endpoint, Duration attemptTimeout, ExecutionInterceptor... interceptors);

  /** The credentials the server accepts. */
  AwsCredentials credentials();

  /** The region to sign for. */
  Region region();

  /** A new, empty bucket, named apart from every other bucket this run creates. */
  String createBucket(S3Client client);

  /** S3Proxy on its in-memory store, or the external endpoint under {@code -Prgw}. */
  static S3TestServer start() throws Exception {
    return ExternalS3.selected() ? ExternalS3.fromEnvironment() : S3ProxyServer.start();
  }

  /**
   * S3Proxy on its {@code filesystem} store under {@code baseDir} (the store for tests that cut a
   * part body short, see {@link S3ProxyServer}), or the external endpoint under {@code -Prgw}.
   */
  static S3TestServer startOnFilesystem(Path baseDir) throws Exception {
    return ExternalS3.selected() ? ExternalS3.fromEnvironment() : S3ProxyServer.startOnFilesystem(baseDir);
  }
}
