package dev.segmentledger.s3;

import dev.segmentledger.core.StoredObjectInfo;
import dev.segmentledger.core.spi.ObjectSink;
import dev.segmentledger.core.spi.SinkException;
import dev.segmentledger.core.spi.UploadContent;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import software.amazon.awssdk.core.exception.SdkException;
import software.amazon.awssdk.services.s3.S3Client;
import software.amazon.awssdk.services.s3.model.CompletedPart;
import software.amazon.awssdk.services.s3.model.HeadObjectResponse;
import software.amazon.awssdk.services.s3.model.NoSuchKeyException;
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
 * multipart upload is aborted and the original failure reported. Parts an abort could not remove
 * keep costing storage: give the bucket a lifecycle rule with {@code
 * AbortIncompleteMultipartUpload} (see the module README).
 *
 * <p><b>Failures</b> become {@link SinkException}: retryable for 5xx, throttling ({@code SlowDown}),
 * timeouts, resets and any other unknown outcome; permanent for access denied, missing bucket and
 * other client errors. Messages name operation, bucket, key, HTTP status and S3 error code.
 *
 * <p>Immutable and thread-safe (as is {@link S3Client}).
 */
public final class S3ObjectSink implements ObjectSink {
  /** The user-metadata name of the content checksum (sent as {@code x-amz-meta-segment-ledger-checksum}). */
  public static final String CHECKSUM_METADATA = "segment-ledger-checksum";

  static final long MIB = 1024 * 1024;
  static final long MIN_PART_SIZE = 5 * MIB;
  static final long MAX_PART_SIZE = 5L * 1024 * MIB;
  static final int MAX_PARTS = 10_000;

  private final S3Client client;
  private final String bucket;
  private final String prefix;
  private final long multipartThreshold;
  private final long partSize;

  private S3ObjectSink(Builder builder) {
    this.client = Objects.requireNonNull(builder.client, "client");
    this.bucket = Objects.requireNonNull(builder.bucket, "bucket");
    this.prefix = builder.prefix;
    this.multipartThreshold = builder.multipartThreshold;
    this.partSize = builder.partSize;
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
        putMultipart(objectKey, content, effectivePartSize, digests, metadata);
      } else {
        client.putObject(b -> b.bucket(bucket).key(objectKey).contentLength(size)
                .contentMD5(digests.partMd5s().get(0)).metadata(metadata),
            ContentRange.body(content, 0, size));
      }
    } catch (SdkException | UncheckedIOException e) {
      throw S3Failures.classify(multipart ? "multipart PUT" : "PUT", bucket, objectKey, e);
    }
    return new StoredObjectInfo(key, size, digests.checksum());
  }

  /**
   * The HEAD before a retry is an optimisation. A refusal (S3 answers 403 instead of 404 for a
   * missing key when the role lacks {@code s3:ListBucket}) means "unknown": the object is uploaded
   * again. A retryable failure (5xx, timeout) is thrown: the server is in trouble, try later.
   */
  private Optional<StoredObjectInfo> headIfAllowed(String key) {
    try {
      return head(key);
    } catch (SinkException e) {
      if (e.isRetryable()) {
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

  private void putMultipart(String objectKey, UploadContent content, long partLength, ContentDigests digests,
      Map<String, String> metadata) {
    String uploadId = client.createMultipartUpload(b -> b.bucket(bucket).key(objectKey).metadata(metadata)).uploadId();
    try {
      long size = content.size();
      List<CompletedPart> parts = new ArrayList<>();
      for (int i = 0; i < digests.partMd5s().size(); i++) {
        int partNumber = i + 1;
        long offset = i * partLength;
        long length = Math.min(partLength, size - offset);
        String md5 = digests.partMd5s().get(i);
        String etag = client.uploadPart(b -> b.bucket(bucket).key(objectKey).uploadId(uploadId)
                .partNumber(partNumber).contentLength(length).contentMD5(md5),
            ContentRange.body(content, offset, length)).eTag();
        parts.add(CompletedPart.builder().partNumber(partNumber).eTag(etag).build());
      }
      client.completeMultipartUpload(b -> b.bucket(bucket).key(objectKey).uploadId(uploadId)
          .multipartUpload(m -> m.parts(parts)));
    } catch (RuntimeException e) {
      try {
        client.abortMultipartUpload(b -> b.bucket(bucket).key(objectKey).uploadId(uploadId));
      } catch (RuntimeException abortFailure) {
        e.addSuppressed(abortFailure);
      }
      throw e;
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

    /** A sink with these settings. */
    public S3ObjectSink build() {
      if (client == null || bucket == null) {
        throw new IllegalStateException("client and bucket are required");
      }
      return new S3ObjectSink(this);
    }
  }
}
