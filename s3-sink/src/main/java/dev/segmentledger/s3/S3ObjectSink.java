package dev.segmentledger.s3;

import dev.segmentledger.core.StoredObjectInfo;
import dev.segmentledger.core.UnfinishedUpload;
import dev.segmentledger.core.spi.ObjectSink;
import dev.segmentledger.core.spi.SinkException;
import dev.segmentledger.core.spi.UploadContent;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.atomic.AtomicBoolean;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import software.amazon.awssdk.awscore.exception.AwsServiceException;
import software.amazon.awssdk.core.exception.SdkException;
import software.amazon.awssdk.services.s3.S3Client;
import software.amazon.awssdk.services.s3.model.CompletedPart;
import software.amazon.awssdk.services.s3.model.HeadObjectResponse;
import software.amazon.awssdk.services.s3.model.ListObjectsV2Response;
import software.amazon.awssdk.services.s3.model.MultipartUpload;
import software.amazon.awssdk.services.s3.model.NoSuchKeyException;
import software.amazon.awssdk.services.s3.model.NoSuchUploadException;
import software.amazon.awssdk.services.s3.model.S3Exception;
import software.amazon.awssdk.services.s3.model.S3Object;

/**
 * An {@link ObjectSink} on the AWS SDK for Java v2, writing to one bucket through the caller's own
 * {@link S3Client} (credentials, region, endpoint, HTTP client and SDK retries are the caller's).
 *
 * <p><b>Checksums.</b> Before uploading, the sink reads the content once and computes its SHA-256,
 * stored with the object as user metadata {@value #CHECKSUM_METADATA} ({@code x-amz-meta-...}) in
 * the notation {@code sha256:<base64>}; that value is what {@link StoredObjectInfo#checksum()}
 * reports and the ledger records. Every request body also carries {@code Content-MD5} from the
 * same pass, so S3 refuses a body that differs from the bytes the checksum describes. Objects
 * without that metadata (written by something else) report a {@code null} checksum.
 * {@link #list} reports {@code null} checksums: S3 listings carry no user metadata. A HEAD cannot
 * tell a missing bucket from a missing object (S3 answers 404 without a body), so {@link #head}
 * reports both as empty; a PUT into a missing bucket fails permanently.
 *
 * <p><b>Plain-HTTP endpoints.</b> Over {@code http://} the SDK signs every body in {@code aws-chunked}
 * encoding and waits for {@code 100 Continue} before each PUT; for a client that reaches its server
 * over plain HTTP install {@link ContentMd5Signing#authScheme()} (bodies with {@code Content-MD5} go
 * as {@code UNSIGNED-PAYLOAD}, integrity kept by the signed {@code Content-MD5}) and turn off
 * {@code Expect: 100-continue} with the SDK's {@code S3Configuration.expectContinueEnabled(false)}
 * (see the module README). The sink works the same with or without them.
 * Request bodies are read from the content in blocks of 64 KiB and are never marked or reset: a
 * retry opens a new stream.
 *
 * <p><b>Retries ({@code mayExist}).</b> The sink HEADs the key first; an object with the same size
 * <em>and</em> the same checksum metadata counts as stored and is not uploaded again. Anything else
 * (missing, other size, other or no checksum) is uploaded again. It never skips on size alone.
 *
 * <p><b>Multipart.</b> Content of at least {@link Builder#multipartThreshold} bytes is uploaded in
 * parts of {@link Builder#partSize} bytes (more if 10,000 parts would not suffice). A failed
 * multipart upload is aborted and the original failure reported. A process killed mid-upload cannot
 * abort: its upload stays unfinished. So a multipart retry ({@code mayExist}) first lists the
 * unfinished uploads of that exact key ({@code ListMultipartUploads}) and aborts them, before its
 * HEAD and its own upload. That housekeeping never fails the put, except for a configuration error
 * the put would fail on anyway (missing bucket, unknown key id, bad signature); any other failure
 * (for example {@code AccessDenied} when the role lacks {@code s3:ListBucketMultipartUploads} or
 * {@code s3:AbortMultipartUpload}) is logged, the first one at WARN, and the put goes on.
 * {@link #listUnfinishedUploads} and {@link #abortUnfinishedUpload} serve the reconciler. Uploads
 * that nothing retries still keep costing storage: give the bucket a lifecycle rule with {@code
 * AbortIncompleteMultipartUpload} as a backstop (see the module README). An upload aborted by
 * someone else while this sink sends its parts fails with a retryable {@code NoSuchUpload}.
 *
 * <p><b>Failures</b> become {@link SinkException}: {@linkplain SinkException.Kind#CONFIGURATION
 * configuration} for refusals of the sink's settings whatever the object (access denied, unknown
 * key id, bad signature, expired token, missing bucket, wrong region, KMS errors, an option the
 * server does not implement), so that the ledger pauses instead of rejecting rows; retryable for
 * 5xx, throttling ({@code SlowDown}), timeouts, resets and any other unknown outcome; permanent for
 * other client errors. Messages name operation, bucket, key, HTTP status and S3 error code.
 *
 * <p><b>Request options.</b> Every object gets a {@code Content-Type} by its extension ({@code
 * video/mp2t} for originals, {@code video/iso.segment} for playback segments, {@code video/mp4} for
 * init segments); {@link Builder#objectOptions} sets or overrides per key the content type,
 * {@code Cache-Control}, server-side encryption (SSE-S3, SSE-KMS), storage class, tags and
 * expected bucket owner, for single and multipart uploads alike (see {@link ObjectOptions}).
 *
 * <p>Thread-safe (as is {@link S3Client}); its settings are immutable.
 */
public final class S3ObjectSink implements ObjectSink {
  /** The user-metadata name of the content checksum (sent as {@code x-amz-meta-segment-ledger-checksum}). */
  public static final String CHECKSUM_METADATA = "segment-ledger-checksum";

  static final long MIB = 1024 * 1024;
  static final long MIN_PART_SIZE = 5 * MIB;
  static final long MAX_PART_SIZE = 5L * 1024 * MIB;
  static final int MAX_PARTS = 10_000;

  private static final Logger log = LoggerFactory.getLogger(S3ObjectSink.class);
  /** Failures of the pre-upload housekeeping that the upload itself would fail on: thrown, not logged. */
  private static final Set<String> CONFIGURATION_ERRORS = Set.of(
      "NoSuchBucket", "InvalidBucketName", "InvalidAccessKeyId", "SignatureDoesNotMatch",
      "AuthorizationHeaderMalformed", "PermanentRedirect");

  private final S3Client client;
  private final String bucket;
  private final String prefix;
  private final long multipartThreshold;
  private final long partSize;
  private final ObjectOptionsProvider objectOptions;
  private final AtomicBoolean housekeepingWarned = new AtomicBoolean();

  private S3ObjectSink(Builder builder) {
    this.client = Objects.requireNonNull(builder.client, "client");
    this.bucket = Objects.requireNonNull(builder.bucket, "bucket");
    this.prefix = builder.prefix;
    this.multipartThreshold = builder.multipartThreshold;
    this.partSize = builder.partSize;
    this.objectOptions = builder.objectOptions;
  }

  /** A builder; {@link Builder#client} and {@link Builder#bucket} are required. */
  public static Builder builder() {
    return new Builder();
  }

  @Override
  public StoredObjectInfo put(String key, UploadContent content, boolean mayExist) {
    String objectKey = prefix + Objects.requireNonNull(key, "key");
    long size = content.size();
    boolean multipart = size >= multipartThreshold;
    long effectivePartSize = multipart ? partSizeFor(size) : Math.max(size, 1);
    ContentDigests digests;
    try {
      digests = ContentDigests.of(content, effectivePartSize);
    } catch (IOException | RuntimeException e) {
      throw SinkException.retryable("reading the content for s3://" + bucket + "/" + objectKey + " failed", e);
    }
    ObjectOptions options = optionsFor(key, objectKey);
    if (mayExist && multipart) {
      abortEarlierUploads(key, objectKey);
    }
    if (mayExist) {
      Optional<StoredObjectInfo> existing = headIfAllowed(key);
      if (existing.isPresent() && existing.get().sizeBytes() == size
          && digests.checksum().equals(existing.get().checksum())) {
        return existing.get();
      }
    }
    Map<String, String> metadata = Map.of(CHECKSUM_METADATA, digests.checksum());
    try {
      if (multipart) {
        putMultipart(objectKey, content, effectivePartSize, digests, metadata, options);
      } else {
        client.putObject(b -> {
          options.applyTo(b);
          b.bucket(bucket).key(objectKey).contentLength(size).contentMD5(digests.partMd5s().get(0)).metadata(metadata);
        }, ContentRange.body(content, 0, size));
      }
    } catch (UploadVanished e) {
      throw SinkException.retryable("multipart PUT s3://" + bucket + "/" + objectKey + ": upload " + e.uploadId
          + " vanished (aborted by another process?): HTTP " + e.getCause().statusCode() + " "
          + errorCode(e.getCause()), e.getCause());
    } catch (SdkException | UncheckedIOException e) {
      throw S3Failures.classify(multipart ? "multipart PUT" : "PUT", bucket, objectKey, e);
    }
    return new StoredObjectInfo(key, size, digests.checksum());
  }

  /** The provider's options for {@code key}; a failing provider is a configuration failure. */
  private ObjectOptions optionsFor(String key, String objectKey) {
    ObjectOptions options;
    try {
      options = objectOptions.optionsFor(key, ObjectOptions.defaultsFor(key));
    } catch (RuntimeException e) {
      throw SinkException.configuration("the object options provider failed for s3://" + bucket + "/" + objectKey, e);
    }
    if (options == null) {
      throw SinkException.configuration("the object options provider returned null for s3://" + bucket + "/"
          + objectKey, null);
    }
    return options;
  }

  /**
   * The HEAD before a retry is an optimisation. A refusal (S3 answers 403 instead of 404 for a
   * missing key when the role lacks {@code s3:ListBucket}) means "unknown": the object is uploaded
   * again, and a configuration refusal is left to the upload, which names its cause (a HEAD's
   * answer has no body, so no error code). A transient failure (5xx, timeout) is thrown: the server
   * is in trouble, try later.
   */
  private Optional<StoredObjectInfo> headIfAllowed(String key) {
    try {
      return head(key);
    } catch (SinkException e) {
      if (e.kind() == SinkException.Kind.TRANSIENT) {
        throw e;
      }
      return Optional.empty();
    }
  }

  @Override
  public Optional<StoredObjectInfo> head(String key) {
    String objectKey = prefix + Objects.requireNonNull(key, "key");
    HeadObjectResponse response;
    try {
      response = client.headObject(b -> b.bucket(bucket).key(objectKey));
    } catch (NoSuchKeyException e) {
      return Optional.empty();
    } catch (S3Exception e) {
      if (e.statusCode() == 404 && !"NoSuchBucket".equals(errorCode(e))) {
        return Optional.empty();
      }
      throw S3Failures.classify("HEAD", bucket, objectKey, e);
    } catch (SdkException e) {
      throw S3Failures.classify("HEAD", bucket, objectKey, e);
    }
    return Optional.of(new StoredObjectInfo(key, response.contentLength(), response.metadata().get(CHECKSUM_METADATA)));
  }

  /**
   * {@inheritDoc} Checksums are {@code null} here: S3 listings carry no user metadata; use
   * {@link #head}. Folder markers (keys ending in {@code /}, made by consoles and by some
   * S3-compatible servers for directories) are skipped: no ledger key ends in {@code /}.
   */
  @Override
  public List<StoredObjectInfo> list(String keyPrefix) {
    String listPrefix = prefix + Objects.requireNonNull(keyPrefix, "prefix");
    List<StoredObjectInfo> objects = new ArrayList<>();
    try {
      for (S3Object object : client.listObjectsV2Paginator(b -> b.bucket(bucket).prefix(listPrefix)).contents()) {
        if (object.key().endsWith("/")) {
          continue;
        }
        objects.add(new StoredObjectInfo(object.key().substring(prefix.length()), object.size(), null));
      }
    } catch (SdkException e) {
      throw S3Failures.classify("LIST", bucket, listPrefix, e);
    }
    return List.copyOf(objects);
  }

  /**
   * {@inheritDoc} {@code ListObjectsV2} with {@code StartAfter} (under this sink's prefix) and at
   * most {@code maxKeys} keys: one request per 1,000 keys, from the key on, never the whole prefix.
   */
  @Override
  public List<StoredObjectInfo> list(String keyPrefix, String startAfter, int maxKeys) {
    if (maxKeys < 1) {
      throw new IllegalArgumentException("maxKeys must be >= 1, got " + maxKeys);
    }
    String listPrefix = prefix + Objects.requireNonNull(keyPrefix, "prefix");
    List<StoredObjectInfo> objects = new ArrayList<>();
    try {
      String after = startAfter == null || startAfter.isEmpty() ? null : prefix + startAfter;
      while (objects.size() < maxKeys) {
        String from = after;
        ListObjectsV2Response page = client.listObjectsV2(b -> b.bucket(bucket).prefix(listPrefix).startAfter(from)
            .maxKeys(Math.min(1_000, maxKeys - objects.size())));
        for (S3Object object : page.contents()) {
          after = object.key();
          if (!object.key().endsWith("/")) {
            objects.add(new StoredObjectInfo(object.key().substring(prefix.length()), object.size(), null));
          }
        }
        if (!Boolean.TRUE.equals(page.isTruncated()) || page.contents().isEmpty()) {
          break;
        }
      }
    } catch (SdkException e) {
      throw S3Failures.classify("LIST", bucket, listPrefix, e);
    }
    return List.copyOf(objects);
  }

  /** {@inheritDoc} {@code true}: multipart uploads of a killed process stay unfinished. */
  @Override
  public boolean supportsUnfinishedUploads() {
    return true;
  }

  /**
   * {@inheritDoc} One {@code ListMultipartUploads} request per 1,000 uploads, under this sink's
   * prefix followed by {@code prefix}; keys are reported without the sink's prefix, like
   * {@link #list}. {@link UnfinishedUpload#initiated()} is the server's initiation time.
   */
  @Override
  public List<UnfinishedUpload> listUnfinishedUploads(String keyPrefix) {
    String listPrefix = prefix + Objects.requireNonNull(keyPrefix, "prefix");
    List<UnfinishedUpload> uploads = new ArrayList<>();
    try {
      for (MultipartUpload upload : client.listMultipartUploadsPaginator(b -> b.bucket(bucket).prefix(listPrefix))
          .uploads()) {
        if (upload.key() != null && upload.key().startsWith(listPrefix) && upload.uploadId() != null) {
          uploads.add(new UnfinishedUpload(upload.key().substring(prefix.length()), upload.uploadId(),
              upload.initiated()));
        }
      }
    } catch (SdkException e) {
      throw S3Failures.classify("LIST multipart uploads", bucket, listPrefix, e);
    }
    uploads.sort(Comparator.comparing(UnfinishedUpload::key)
        .thenComparing(UnfinishedUpload::initiated, Comparator.nullsFirst(Comparator.naturalOrder()))
        .thenComparing(UnfinishedUpload::uploadId));
    return List.copyOf(uploads);
  }

  /** {@inheritDoc} One {@code AbortMultipartUpload}; S3's {@code 404 NoSuchUpload} means already gone. */
  @Override
  public boolean abortUnfinishedUpload(UnfinishedUpload upload) {
    String objectKey = prefix + Objects.requireNonNull(upload, "upload").key();
    try {
      client.abortMultipartUpload(b -> b.bucket(bucket).key(objectKey).uploadId(upload.uploadId()));
      return true;
    } catch (NoSuchUploadException e) {
      return false;
    } catch (S3Exception e) {
      if (e.statusCode() == 404 && "NoSuchUpload".equals(errorCode(e))) {
        return false;
      }
      throw S3Failures.classify("ABORT multipart upload " + upload.uploadId() + " of", bucket, objectKey, e);
    } catch (SdkException e) {
      throw S3Failures.classify("ABORT multipart upload " + upload.uploadId() + " of", bucket, objectKey, e);
    }
  }

  /**
   * Before a multipart retry: aborts the unfinished uploads of exactly this key (a listing by prefix
   * also returns longer keys), left by an attempt whose process died. Housekeeping: a failure is
   * logged and the upload goes on, unless it is a configuration error the upload would fail on too.
   */
  private void abortEarlierUploads(String key, String objectKey) {
    try {
      for (UnfinishedUpload upload : listUnfinishedUploads(key)) {
        if (upload.key().equals(key) && abortUnfinishedUpload(upload)) {
          log.info("aborted unfinished multipart upload {} of s3://{}/{} (initiated {}) before uploading it again",
              upload.uploadId(), bucket, objectKey, upload.initiated());
        }
      }
    } catch (SinkException e) {
      if (e.getCause() instanceof AwsServiceException aws && aws.awsErrorDetails() != null
          && CONFIGURATION_ERRORS.contains(aws.awsErrorDetails().errorCode())) {
        throw e;
      }
      if (housekeepingWarned.compareAndSet(false, true)) {
        log.warn("could not abort earlier unfinished multipart uploads of s3://{}/{}; uploading anyway. Their"
            + " parts stay until a bucket lifecycle rule AbortIncompleteMultipartUpload removes them. Later"
            + " failures of this kind are logged at DEBUG. {}", bucket, objectKey, e.getMessage());
      } else {
        log.debug("could not abort earlier unfinished multipart uploads of s3://{}/{}: {}", bucket, objectKey,
            e.getMessage());
      }
    }
  }

  private void putMultipart(String objectKey, UploadContent content, long partLength, ContentDigests digests,
      Map<String, String> metadata, ObjectOptions options) {
    String owner = options.expectedBucketOwner().orElse(null);
    String uploadId = client.createMultipartUpload(b -> {
      options.applyTo(b);
      b.bucket(bucket).key(objectKey).metadata(metadata);
    }).uploadId();
    try {
      long size = content.size();
      List<CompletedPart> parts = new ArrayList<>();
      for (int i = 0; i < digests.partMd5s().size(); i++) {
        int partNumber = i + 1;
        long offset = i * partLength;
        long length = Math.min(partLength, size - offset);
        String md5 = digests.partMd5s().get(i);
        String etag = client.uploadPart(b -> b.bucket(bucket).key(objectKey).uploadId(uploadId)
                .partNumber(partNumber).contentLength(length).contentMD5(md5).expectedBucketOwner(owner),
            ContentRange.body(content, offset, length)).eTag();
        parts.add(CompletedPart.builder().partNumber(partNumber).eTag(etag).build());
      }
      client.completeMultipartUpload(b -> b.bucket(bucket).key(objectKey).uploadId(uploadId)
          .multipartUpload(m -> m.parts(parts)).expectedBucketOwner(owner));
    } catch (RuntimeException e) {
      try {
        client.abortMultipartUpload(b -> b.bucket(bucket).key(objectKey).uploadId(uploadId).expectedBucketOwner(owner));
      } catch (RuntimeException abortFailure) {
        e.addSuppressed(abortFailure);
      }
      // A 404 other than NoSuchBucket once the upload exists: someone aborted it (S3 says NoSuchUpload,
      // S3Proxy NoSuchKey). Not permanent: the next attempt starts a new upload.
      if (e instanceof S3Exception s3 && s3.statusCode() == 404 && !"NoSuchBucket".equals(errorCode(s3))) {
        throw new UploadVanished(uploadId, s3);
      }
      throw e;
    }
  }

  /** An upload of {@link #putMultipart} that a part or the completion found gone. */
  private static final class UploadVanished extends RuntimeException {
    private static final long serialVersionUID = 1L;
    final String uploadId;

    UploadVanished(String uploadId, S3Exception cause) {
      super(cause.getMessage(), cause, false, false);
      this.uploadId = uploadId;
    }

    @Override
    public synchronized S3Exception getCause() {
      return (S3Exception) super.getCause();
    }
  }

  private long partSizeFor(long size) {
    long needed = (size + MAX_PARTS - 1) / MAX_PARTS;
    return Math.max(partSize, needed);
  }

  private static String errorCode(S3Exception e) {
    return e.awsErrorDetails() == null ? null : e.awsErrorDetails().errorCode();
  }

  @Override
  public String toString() {
    return "S3ObjectSink[s3://" + bucket + "/" + prefix + "]";
  }

  /**
   * Configures an {@link S3ObjectSink}. Not thread-safe; {@link #build()} copies the settings, so
   * a builder may be reused.
   */
  public static final class Builder {
    private S3Client client;
    private String bucket;
    private String prefix = "";
    private long multipartThreshold = 16 * MIB;
    private long partSize = 8 * MIB;
    private ObjectOptionsProvider objectOptions = ObjectOptionsProvider.defaults();

    private Builder() {}

    /** The client to use (required). The sink never closes it. */
    public Builder client(S3Client client) {
      this.client = Objects.requireNonNull(client, "client");
      return this;
    }

    /** The bucket (required). */
    public Builder bucket(String bucket) {
      if (Objects.requireNonNull(bucket, "bucket").isBlank()) {
        throw new IllegalArgumentException("bucket must not be blank");
      }
      this.bucket = bucket;
      return this;
    }

    /**
     * A fixed prefix placed before every key, for example {@code "recordings/"} (default none). It
     * is not part of the keys the sink reports.
     */
    public Builder prefix(String prefix) {
      this.prefix = Objects.requireNonNull(prefix, "prefix");
      return this;
    }

    /** Content of at least this many bytes is uploaded as multipart (default 16 MiB, at least 1). */
    public Builder multipartThreshold(long bytes) {
      if (bytes < 1) {
        throw new IllegalArgumentException("multipartThreshold must be >= 1, got " + bytes);
      }
      this.multipartThreshold = bytes;
      return this;
    }

    /** The size of each multipart part but the last (default 8 MiB; 5 MiB to 5 GiB, as S3 requires). */
    public Builder partSize(long bytes) {
      if (bytes < MIN_PART_SIZE || bytes > MAX_PART_SIZE) {
        throw new IllegalArgumentException("partSize must be between 5 MiB and 5 GiB, got " + bytes);
      }
      this.partSize = bytes;
      return this;
    }

    /**
     * The request options of each object (default {@link ObjectOptionsProvider#defaults()}: the
     * content type by extension, {@link ObjectOptions#defaultContentType}, and nothing else). The
     * options go with the {@code PutObject} or the {@code CreateMultipartUpload} of every upload;
     * see {@link ObjectOptions}.
     */
    public Builder objectOptions(ObjectOptionsProvider provider) {
      this.objectOptions = Objects.requireNonNull(provider, "provider");
      return this;
    }

    /** A sink with these settings. */
    public S3ObjectSink build() {
      if (client == null || bucket == null) {
        throw new IllegalStateException("client and bucket are required");
      }
      return new S3ObjectSink(this);
    }
  }
}
