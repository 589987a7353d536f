package dev.segmentledger.s3;

import java.net.URI;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Properties;
import java.util.concurrent.atomic.AtomicInteger;
import org.gaul.s3proxy.AuthenticationType;
import org.gaul.s3proxy.S3Proxy;
import org.jclouds.ContextBuilder;
import org.jclouds.blobstore.BlobStoreContext;
import software.amazon.awssdk.auth.credentials.AwsBasicCredentials;
import software.amazon.awssdk.auth.credentials.AwsCredentials;
import software.amazon.awssdk.auth.credentials.StaticCredentialsProvider;
import software.amazon.awssdk.awscore.retry.AwsRetryStrategy;
import software.amazon.awssdk.core.checksums.RequestChecksumCalculation;
import software.amazon.awssdk.core.checksums.ResponseChecksumValidation;
import software.amazon.awssdk.core.interceptor.ExecutionInterceptor;
import software.amazon.awssdk.regions.Region;
import software.amazon.awssdk.services.s3.S3Client;

/**
 * S3Proxy in-process on a random loopback port, with SigV4 authentication, on its in-memory {@code
 * transient-nio2} blobstore ({@link #start()}) or its {@code filesystem} blobstore under a directory
 * ({@link #startOnFilesystem}). Made-up credentials: nothing here reaches AWS.
 *
 * <p>Both stores answer ListMultipartUploads (honouring {@code prefix}), ListParts and
 * AbortMultipartUpload as S3 does, with {@code 404 NoSuchUpload} for an upload already gone. Two
 * differences from S3 matter to the tests: S3Proxy 2.9 reports an upload's {@code Initiated} as the
 * time of the listing, not of its creation; and it keeps an unfinished upload as ordinary blobs
 * ({@code <uploadId>}, {@code .mpus-<uploadId>-<key>-stub} and one {@code .mpus-...-<n>} per part)
 * that show up in a bucket listing until the upload is completed or aborted (on the filesystem store
 * together with their directories, as keys ending in {@code /}). And one difference between the
 * stores: when a client cuts the body of an {@code UploadPart} short (its content failed mid-part),
 * the {@code transient-nio2} store keeps something that makes every later listing of that bucket
 * (objects, multipart uploads) fail with {@code 400} and no error document; the {@code filesystem}
 * store keeps only the complete parts. Tests that cut a part body on the client side use the
 * {@code filesystem} store (a {@code FaultProxy} that cuts a request never forwards it, so either
 * store does there).
 *
 * <p>The one S3Proxy fixture of the build: s3-sink publishes its test classes as a test-jar, and the
 * integration tests use this class from it. Keep S3Proxy's loggers ({@code org.gaul},
 * {@code org.jclouds}, {@code org.eclipse.jetty}) at WARN in the using module's logback-test.xml:
 * at DEBUG every request is logged and large uploads crawl. Thread-safe.
 */
public final class S3ProxyServer implements S3TestServer {
  /** The access key the server accepts. */
  public static final String ACCESS_KEY = "segment-ledger-test";
  /** The secret key the server accepts. */
  public static final String SECRET_KEY = "segment-ledger-test-secret";
  private static final AtomicInteger buckets = new AtomicInteger();

  private final BlobStoreContext context;
  private final S3Proxy proxy;

  private S3ProxyServer(String provider, Properties overrides) throws Exception {
    this(provider, overrides, false);
  }

  private S3ProxyServer(String provider, Properties overrides, boolean ignoreUnknownHeaders) throws Exception {
    context = ContextBuilder.newBuilder(provider)
        .credentials("identity", "credential")
        .overrides(overrides)
        .build(BlobStoreContext.class);
    proxy = S3Proxy.builder()
        .blobStore(context.getBlobStore())
        .awsAuthentication(AuthenticationType.AWS_V4, ACCESS_KEY, SECRET_KEY)
        .endpoint(URI.create("http://127.0.0.1:0"))
        .ignoreUnknownHeaders(ignoreUnknownHeaders)
        .build();
    proxy.start();
    if (!"STARTED".equals(proxy.getState())) {
      throw new IllegalStateException("S3Proxy did not start: " + proxy.getState());
    }
  }

  /** The version of S3Proxy on the class path ({@code 2.9.0}, or {@code 3.3.0} under {@code -Ps3proxy-3}). */
  public static String version() {
    String version = S3Proxy.class.getPackage().getImplementationVersion();
    if (version == null) {
      throw new IllegalStateException("the S3Proxy jar names no Implementation-Version");
    }
    return version;
  }

  /**
   * Whether this S3Proxy checks S3's additional checksums ({@code x-amz-checksum-crc32c} and the
   * like): 3.x refuses a body whose CRC32C differs with {@code 400 BadDigest}; 2.x refuses the header
   * with {@code 501 NotImplemented}.
   */
  public static boolean checksChecksums() {
    return !version().startsWith("2.");
  }

  /** Starts a server on the in-memory store; close it when done. */
  public static S3ProxyServer start() throws Exception {
    return new S3ProxyServer("transient-nio2", new Properties());
  }

  /**
   * Starts a server on the in-memory store that accepts and ignores the {@code x-amz-} headers it
   * does not implement (server-side encryption, tagging, expected bucket owner...), which the
   * server started by {@link #start()} refuses with {@code 501 NotImplemented}; close it when done.
   */
  public static S3ProxyServer startIgnoringUnknownHeaders() throws Exception {
    return new S3ProxyServer("transient-nio2", new Properties(), true);
  }

  /**
   * Starts a server on S3Proxy's {@code filesystem} store ({@code jclouds.provider=filesystem}) under
   * {@code baseDir}, one directory per bucket; close it when done. The store of the independent
   * independent crash runs, where a killed process's multipart uploads showed up as stray objects.
   */
  public static S3ProxyServer startOnFilesystem(Path baseDir) throws Exception {
    Properties overrides = new Properties();
    overrides.setProperty("jclouds.filesystem.basedir", baseDir.toAbsolutePath().toString());
    return new S3ProxyServer("filesystem", overrides);
  }

  @Override
  public URI endpoint() {
    return URI.create("http://127.0.0.1:" + proxy.getPort());
  }

  /**
   * A client for {@code endpoint} configured as the module README recommends for S3-compatible
   * servers: checksums only when required, path-style access. SDK retries are off so that every
   * fault reaches the sink (the ledger retries by itself).
   */
  public static S3Client client(URI endpoint, Duration attemptTimeout, ExecutionInterceptor... interceptors) {
    return S3Client.builder()
        .endpointOverride(endpoint)
        .region(Region.US_EAST_1)
        .forcePathStyle(true)
        .credentialsProvider(StaticCredentialsProvider.create(AwsBasicCredentials.create(ACCESS_KEY, SECRET_KEY)))
        .requestChecksumCalculation(RequestChecksumCalculation.WHEN_REQUIRED)
        .responseChecksumValidation(ResponseChecksumValidation.WHEN_REQUIRED)
        .overrideConfiguration(o -> {
          o.retryStrategy(AwsRetryStrategy.doNotRetry()).apiCallAttemptTimeout(attemptTimeout);
          for (ExecutionInterceptor interceptor : interceptors) {
            o.addExecutionInterceptor(interceptor);
          }
        })
        .build();
  }

  @Override
  public S3Client clientTo(URI endpoint, Duration attemptTimeout, ExecutionInterceptor... interceptors) {
    return client(endpoint, attemptTimeout, interceptors);
  }

  @Override
  public AwsCredentials credentials() {
    return AwsBasicCredentials.create(ACCESS_KEY, SECRET_KEY);
  }

  @Override
  public Region region() {
    return Region.US_EAST_1;
  }

  @Override
  public String createBucket(S3Client client) {
    String bucket = "ledger-test-" + buckets.incrementAndGet();
    client.createBucket(b -> b.bucket(bucket));
    return bucket;
  }

  @Override
  public void close() throws Exception {
    proxy.stop();
    context.close();
  }
}
