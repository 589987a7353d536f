package dev.segmentledger.s3;

import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.StringJoiner;
import software.amazon.awssdk.services.s3.model.CreateMultipartUploadRequest;
import software.amazon.awssdk.services.s3.model.PutObjectRequest;
import software.amazon.awssdk.services.s3.model.ServerSideEncryption;
import software.amazon.awssdk.services.s3.model.StorageClass;
import software.amazon.awssdk.utils.http.SdkHttpUtils;

/**
 * The request options of one object that {@link S3ObjectSink} writes: {@code Content-Type},
 * {@code Cache-Control}, server-side encryption (SSE-S3, or SSE-KMS with an optional key id),
 * storage class, tags and the expected bucket owner. Each is applied alike to a single
 * {@code PutObject} and to the {@code CreateMultipartUpload} of a multipart upload (the expected
 * bucket owner also to its parts, completion and abort). An option left unset is not sent, so the
 * bucket's default applies (its default encryption, {@code STANDARD}, no tags...).
 *
 * <p>{@link #defaultsFor(String)} gives every ledger key its content type; an
 * {@link ObjectOptionsProvider} set with {@link S3ObjectSink.Builder#objectOptions} starts from
 * those defaults and may change anything per key.
 *
 * <p>The options are not part of what makes an object "the same": a retry whose HEAD finds an
 * object of the same size and checksum does not upload it again, whatever options that object was
 * written with, and the HEAD itself carries none of them. SSE-C (customer-provided keys) is not
 * offered, because a HEAD would then need the key.
 *
 * <p>Immutable and thread-safe; build with {@link #builder()} or {@link #toBuilder()}.
 */
public final class ObjectOptions {
  /** MPEG-TS, the recorder's originals ({@code .ts}). */
  public static final String MPEG_TS = "video/mp2t";
  /** An fMP4/CMAF media segment ({@code .m4s}), as registered for HLS (RFC 8216). */
  public static final String ISO_SEGMENT = "video/iso.segment";
  /** MP4, the init segment ({@code init.mp4}) and other {@code .mp4}. */
  public static final String MP4 = "video/mp4";
  /** An HLS playlist ({@code .m3u8}). */
  public static final String HLS_PLAYLIST = "application/vnd.apple.mpegurl";
  /** Anything else. */
  public static final String OCTET_STREAM = "application/octet-stream";

  /** S3 accepts at most this many tags per object. */
  public static final int MAX_TAGS = 10;

  private static final ObjectOptions NONE = new Builder().build();

  private final String contentType;
  private final String cacheControl;
  private final ServerSideEncryption serverSideEncryption;
  private final String kmsKeyId;
  private final StorageClass storageClass;
  private final Map<String, String> tags;
  private final String expectedBucketOwner;

  private ObjectOptions(Builder b) {
    this.contentType = b.contentType;
    this.cacheControl = b.cacheControl;
    this.serverSideEncryption = b.serverSideEncryption;
    this.kmsKeyId = b.kmsKeyId;
    this.storageClass = b.storageClass;
    this.tags = Collections.unmodifiableMap(new LinkedHashMap<>(b.tags));
    this.expectedBucketOwner = b.expectedBucketOwner;
  }

  /** No option set: S3's and the bucket's defaults for everything. */
  public static ObjectOptions none() {
    return NONE;
  }

  /**
   * The options the sink uses for {@code key} unless a provider says otherwise: only the content
   * type, {@link #defaultContentType(String) by the key's extension}.
   */
  public static ObjectOptions defaultsFor(String key) {
    return builder().contentType(defaultContentType(key)).build();
  }

  /**
   * The content type of a key by its extension: {@code .ts} {@value #MPEG_TS}, {@code .m4s}
   * {@value #ISO_SEGMENT}, {@code .mp4} and {@code .m4v} {@value #MP4}, {@code .m4a} {@code
   * audio/mp4}, {@code .m3u8} {@value #HLS_PLAYLIST}, anything else {@value #OCTET_STREAM}
   * (extensions compared without regard to case). For every key of the ledger's contract this is
   * the {@link dev.segmentledger.core.MediaFormat#contentType() content type of the item's format},
   * an original's included.
   */
  public static String defaultContentType(String key) {
    String name = Objects.requireNonNull(key, "key");
    int dot = name.lastIndexOf('.');
    if (dot < 0 || dot < name.lastIndexOf('/')) {
      return OCTET_STREAM;
    }
    return switch (name.substring(dot + 1).toLowerCase(java.util.Locale.ROOT)) {
      case "ts" -> MPEG_TS;
      case "m4s" -> ISO_SEGMENT;
      case "mp4", "m4v" -> MP4;
      case "m4a" -> "audio/mp4";
      case "m3u8" -> HLS_PLAYLIST;
      default -> OCTET_STREAM;
    };
  }

  /** A builder with nothing set. */
  public static Builder builder() {
    return new Builder();
  }

  /** A builder holding these options, to change some of them. */
  public Builder toBuilder() {
    Builder b = new Builder();
    b.contentType = contentType;
    b.cacheControl = cacheControl;
    b.serverSideEncryption = serverSideEncryption;
    b.kmsKeyId = kmsKeyId;
    b.storageClass = storageClass;
    b.tags.putAll(tags);
    b.expectedBucketOwner = expectedBucketOwner;
    return b;
  }

  /** The {@code Content-Type}. */
  public Optional<String> contentType() {
    return Optional.ofNullable(contentType);
  }

  /** The {@code Cache-Control}. */
  public Optional<String> cacheControl() {
    return Optional.ofNullable(cacheControl);
  }

  /** The server-side encryption ({@code x-amz-server-side-encryption}). */
  public Optional<ServerSideEncryption> serverSideEncryption() {
    return Optional.ofNullable(serverSideEncryption);
  }

  /** The KMS key of SSE-KMS ({@code x-amz-server-side-encryption-aws-kms-key-id}); empty: the account's default key. */
  public Optional<String> kmsKeyId() {
    return Optional.ofNullable(kmsKeyId);
  }

  /** The storage class ({@code x-amz-storage-class}). */
  public Optional<StorageClass> storageClass() {
    return Optional.ofNullable(storageClass);
  }

  /** The object's tags, in insertion order (unmodifiable; empty if none). */
  public Map<String, String> tags() {
    return tags;
  }

  /** The account that must own the bucket ({@code x-amz-expected-bucket-owner}); S3 answers 403 otherwise. */
  public Optional<String> expectedBucketOwner() {
    return Optional.ofNullable(expectedBucketOwner);
  }

  /** The tags as S3's {@code x-amz-tagging} value (URL-encoded query form), or {@code null} if none. */
  String tagging() {
    if (tags.isEmpty()) {
      return null;
    }
    StringJoiner joined = new StringJoiner("&");
    tags.forEach((k, v) -> joined.add(SdkHttpUtils.urlEncode(k) + "=" + SdkHttpUtils.urlEncode(v)));
    return joined.toString();
  }

  void applyTo(PutObjectRequest.Builder request) {
    request.contentType(contentType).cacheControl(cacheControl).serverSideEncryption(serverSideEncryption)
        .ssekmsKeyId(kmsKeyId).storageClass(storageClass).tagging(tagging()).expectedBucketOwner(expectedBucketOwner);
  }

  void applyTo(CreateMultipartUploadRequest.Builder request) {
    request.contentType(contentType).cacheControl(cacheControl).serverSideEncryption(serverSideEncryption)
        .ssekmsKeyId(kmsKeyId).storageClass(storageClass).tagging(tagging()).expectedBucketOwner(expectedBucketOwner);
  }

  @Override
  public boolean equals(Object o) {
    return o instanceof ObjectOptions other && Objects.equals(contentType, other.contentType)
        && Objects.equals(cacheControl, other.cacheControl) && serverSideEncryption == other.serverSideEncryption
        && Objects.equals(kmsKeyId, other.kmsKeyId) && storageClass == other.storageClass && tags.equals(other.tags)
        && Objects.equals(expectedBucketOwner, other.expectedBucketOwner);
  }

  @Override
  public int hashCode() {
    return Objects.hash(contentType, cacheControl, serverSideEncryption, kmsKeyId, storageClass, tags,
        expectedBucketOwner);
  }

  /** The options set, for logs; the KMS key id is shown, tags by name only. */
  @Override
  public String toString() {
    StringJoiner s = new StringJoiner(", ", "ObjectOptions[", "]");
    contentType().ifPresent(v -> s.add("contentType=" + v));
    cacheControl().ifPresent(v -> s.add("cacheControl=" + v));
    serverSideEncryption().ifPresent(v -> s.add("sse=" + v));
    kmsKeyId().ifPresent(v -> s.add("kmsKeyId=" + v));
    storageClass().ifPresent(v -> s.add("storageClass=" + v));
    if (!tags.isEmpty()) {
      s.add("tags=" + tags.keySet());
    }
    expectedBucketOwner().ifPresent(v -> s.add("expectedBucketOwner=" + v));
    return s.toString();
  }

  /**
   * Builds {@link ObjectOptions}. Every setter accepts {@code null} to unset its option. Not
   * thread-safe; {@link #build()} copies, so a builder may be reused.
   */
  public static final class Builder {
    private String contentType;
    private String cacheControl;
    private ServerSideEncryption serverSideEncryption;
    private String kmsKeyId;
    private StorageClass storageClass;
    private final Map<String, String> tags = new LinkedHashMap<>();
    private String expectedBucketOwner;

    private Builder() {}

    /** The {@code Content-Type}, for example {@code "video/mp2t"}. */
    public Builder contentType(String contentType) {
      this.contentType = nonBlank("contentType", contentType);
      return this;
    }

    /** The {@code Cache-Control}, for example {@code "public, max-age=31536000, immutable"}. */
    public Builder cacheControl(String cacheControl) {
      this.cacheControl = nonBlank("cacheControl", cacheControl);
      return this;
    }

    /** SSE-S3 ({@code AES256}); clears any KMS key id. */
    public Builder sseS3() {
      return serverSideEncryption(ServerSideEncryption.AES256, null);
    }

    /** SSE-KMS with {@code kmsKeyId} (a key id, ARN or alias), or with the account's default key if {@code null}. */
    public Builder sseKms(String kmsKeyId) {
      return serverSideEncryption(ServerSideEncryption.AWS_KMS, kmsKeyId);
    }

    /**
     * Server-side encryption and, for the KMS kinds only, a key id; {@code (null, null)} unsets both.
     *
     * @throws IllegalArgumentException for a key id without a KMS encryption, or an unknown encryption
     */
    public Builder serverSideEncryption(ServerSideEncryption encryption, String kmsKeyId) {
      if (encryption == ServerSideEncryption.UNKNOWN_TO_SDK_VERSION) {
        throw new IllegalArgumentException("unknown server-side encryption");
      }
      boolean kms = encryption == ServerSideEncryption.AWS_KMS || encryption == ServerSideEncryption.AWS_KMS_DSSE;
      if (kmsKeyId != null && !kms) {
        throw new IllegalArgumentException("a KMS key id needs SSE-KMS, not " + encryption);
      }
      this.serverSideEncryption = encryption;
      this.kmsKeyId = nonBlank("kmsKeyId", kmsKeyId);
      return this;
    }

    /** The storage class, for example {@link StorageClass#STANDARD_IA}. */
    public Builder storageClass(StorageClass storageClass) {
      if (storageClass == StorageClass.UNKNOWN_TO_SDK_VERSION) {
        throw new IllegalArgumentException("unknown storage class");
      }
      this.storageClass = storageClass;
      return this;
    }

    /** Adds or replaces one tag (at most {@value ObjectOptions#MAX_TAGS}); a {@code null} value removes it. */
    public Builder tag(String key, String value) {
      nonBlank("tag key", Objects.requireNonNull(key, "tag key"));
      if (value == null) {
        tags.remove(key);
        return this;
      }
      if (!tags.containsKey(key) && tags.size() >= MAX_TAGS) {
        throw new IllegalArgumentException("S3 accepts at most " + MAX_TAGS + " tags per object");
      }
      tags.put(key, value);
      return this;
    }

    /** Replaces all tags ({@code null} or empty: none). */
    public Builder tags(Map<String, String> tags) {
      this.tags.clear();
      if (tags != null) {
        tags.forEach(this::tag);
      }
      return this;
    }

    /** The account id that must own the bucket. */
    public Builder expectedBucketOwner(String accountId) {
      this.expectedBucketOwner = nonBlank("expectedBucketOwner", accountId);
      return this;
    }

    /** The options. */
    public ObjectOptions build() {
      return new ObjectOptions(this);
    }

    private static String nonBlank(String what, String value) {
      if (value != null && value.isBlank()) {
        throw new IllegalArgumentException(what + " must not be blank (null unsets it)");
      }
      return value;
    }
  }
}
