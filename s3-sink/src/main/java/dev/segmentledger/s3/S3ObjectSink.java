package dev.segmentledger.s3;

import dev.segmentledger.core.Checksums;
import dev.segmentledger.core.ConditionalPut;
import dev.segmentledger.core.ObjectKeys;
import dev.segmentledger.core.SinkException;
import dev.segmentledger.core.StoredObjectInfo;
import dev.segmentledger.core.UnfinishedUpload;
import dev.segmentledger.core.spi.ObjectSink;
import dev.segmentledger.core.spi.UploadContent;
import dev.segmentledger.s3.MultipartPut.UploadVanished;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import software.amazon.awssdk.core.exception.SdkException;
import software.amazon.awssdk.services.s3.S3Client;
import software.amazon.awssdk.services.s3.model.ChecksumMode;
import software.amazon.awssdk.services.s3.model.ChecksumType;
import software.amazon.awssdk.services.s3.model.HeadObjectResponse;
import software.amazon.awssdk.services.s3.model.ListObjectsV2Response;
import software.amazon.awssdk.services.s3.model.NoSuchKeyException;
import software.amazon.awssdk.services.s3.model.PutObjectResponse;
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
 * <p><b>Full-object checksums</b> ({@link Builder#integrity}). With {@link Integrity#CHECKSUMS} the
 * server checks every body against its CRC32C and keeps the object's full-object CRC32C; the sink
 * then reports the checksum as {@code sha256:<base64> crc32c:<base64>} (the notation of {@link
 * Checksums}), which is what the ledger records on confirm, and each HEAD asks for the server's
 * checksums and adds the full-object CRC32C the server reports, if any. The reconciler compares the
 * two entry by entry: bytes replaced under copied metadata show as a different CRC32C. A CRC32C the
 * server does not report (servers that check but do not keep it, an object uploaded without one,
 * a {@code COMPOSITE} multipart checksum) leaves only the SHA-256 to compare. With {@link
 * Integrity#MD5_ONLY} the checksum is the SHA-256 alone, as before.
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
 * <em>and</em> the same checksum metadata (and no server CRC32C that differs from the content's)
 * counts as stored, is not uploaded again, and is reported with the checksum a fresh upload would
 * report. Anything else (missing, other size, other or no checksum) is uploaded again. It never
 * skips on size alone; {@link #findIdentical} applies the same rule.
 *
 * <p><b>Multipart.</b> Content of at least {@link Builder#multipartThreshold} bytes is uploaded in
 * parts of {@link Builder#partSize} bytes (more if 10,000 parts would not suffice; the boundaries
 * are a pure function of the content's size and these settings), up to {@link
 * Builder#partConcurrency} parts at once (default 4). Each part streams its own range of the content
 * through one 64 KiB buffer; no part is held in memory, so one upload holds at most part concurrency
 * × (64 KiB + one HTTP connection's buffers). The parts beyond the caller's own thread run on a
 * pool of daemon threads owned by the sink (at most 64, each ending after 30 s idle, so the sink
 * needs no close); a thread reading the content is never interrupted (an interrupt would close the
 * ledger's {@code FileChannel} under every part). The digest pass before the upload is shared out
 * the same way: the SHA-256 on one lane, the parts' MD5s on the others.
 *
 * <p><b>Continuing an unfinished upload.</b> A process killed mid-upload leaves its upload
 * unfinished, and a failed attempt leaves it too unless its failure was permanent (a refusal the
 * next attempt would meet as well: then it is aborted). A retry ({@code mayExist}) that does not
 * find an identical object continues it: it lists the uploads of exactly its key ({@code
 * ListMultipartUploads}) and their parts ({@code ListParts}), keeps every part whose size and ETag
 * (the hex MD5 of its range) match this content, sends only the others, and completes. Of several
 * uploads of the key it continues the one holding the most of the content and aborts the rest.
 * Since an upload's checksum metadata cannot be read before it is complete, a continued upload is
 * HEADed after completion and uploaded again afresh if its metadata is not this content's (the
 * request options, set at creation too, are those of the attempt that created it). After
 * every completion, and when an identical object makes them obsolete, the other unfinished uploads
 * of the key are aborted. Parts whose ETag is not an MD5 (SSE-KMS, SSE-C) cannot be verified and
 * are sent again. Stored bytes are reported to {@link UploadContent#reportStored} as they grow.
 * The listing and aborting never fail the put, except for a configuration error the put would
 * fail on anyway (missing bucket, unknown key id, bad signature); any other failure (for example
 * {@code AccessDenied} when the role lacks {@code s3:ListBucketMultipartUploads}, {@code
 * s3:ListMultipartUploadParts} or {@code s3:AbortMultipartUpload}) is logged, the first one at WARN,
 * and the put goes on with a fresh upload. A failed part listing of one upload for any other cause
 * (5xx, {@code SlowDown}, 400, no reply) fails the put retryably instead, leaving that upload
 * unaborted for the retry to continue. {@link #listUnfinishedUploads} and {@link
 * #abortUnfinishedUpload} serve the reconciler. Uploads that nothing retries still keep costing
 * storage: give the bucket a lifecycle rule with {@code AbortIncompleteMultipartUpload} as a
 * backstop (see the module README). An upload aborted by someone else while this sink sends its
 * parts fails with a retryable {@code NoSuchUpload}.
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
 * <p><b>No silent overwrite</b> ({@link Builder#conditionalWrites}, off by default). With {@link
 * ConditionalWrites#AUTO} or {@link ConditionalWrites#REQUIRED} the PUT of an item's object (any key
 * {@link ObjectKeys#idOf} parses; playlists are rewritten, conditionally only through {@link
 * #putIfMatch}) carries {@code
 * If-None-Match: *}, and so does the completion of its multipart upload where the server honours it
 * there too. A {@code 412} is judged like the {@code mayExist} skip: the same size and checksum
 * metadata confirm the object; anything else fails permanently with a message beginning {@value
 * #CONFLICT}, the stored object untouched. A {@code 409} on a completion aborts the upload and fails
 * retryably, so that the next attempt starts again.
 *
 * <p><b>Conditional rewrites</b> ({@link #putIfMatch}, the ledger's playlists). Where the probe found
 * {@code If-None-Match: *} and {@code If-Match} honoured on {@code PutObject} ({@link
 * #supportsConditionalPuts()}; never with {@link ConditionalWrites#OFF}), {@code putIfMatch} is one
 * {@code PutObject} (whatever the multipart threshold, up to 5 GiB) with {@code If-Match} on the
 * expected ETag, in the form the server compares (quoted, or unquoted for Ceph RGW), or with {@code
 * If-None-Match: *} when no ETag is expected. A {@code 412} (or a {@code 404 NoSuchKey} on {@code
 * If-Match}: the object is gone) is judged by a HEAD: an identical object (size and checksum
 * metadata) is reported stored with its ETag, anything else refused with the ETag found and left
 * untouched. A {@code 409} fails retryably. Elsewhere {@code putIfMatch} is {@code put(key, content,
 * true)}, exactly as before.
 *
 * <p>Thread-safe (as is {@link S3Client}); its settings are immutable.
 */
public final class S3ObjectSink implements ObjectSink {
  /** The user-metadata name of the content checksum (sent as {@code x-amz-meta-segment-ledger-checksum}). */
  public static final String CHECKSUM_METADATA = "segment-ledger-checksum";
  /** How the message of a conflict failure begins: another object is at an item's key and was kept. */
  public static final String CONFLICT = "object conflict";

  static final long MIB = 1024 * 1024;
  /** The smallest part S3 accepts (but for the last): 5 MiB. */
  public static final long MIN_PART_SIZE = 5 * MIB;
  /** The largest part S3 accepts: 5 GiB. */
  public static final long MAX_PART_SIZE = 5L * 1024 * MIB;
  /** The default {@link Builder#multipartThreshold}: 16 MiB. */
  public static final long DEFAULT_MULTIPART_THRESHOLD = 16 * MIB;
  /** The default {@link Builder#partSize}: 8 MiB. */
  public static final long DEFAULT_PART_SIZE = 8 * MIB;
  /** The default {@link Builder#partConcurrency}: 4. */
  public static final int DEFAULT_PART_CONCURRENCY = 4;
  /** The most parts of one upload a sink sends at once ({@link Builder#partConcurrency}). */
  static final int MAX_PART_CONCURRENCY = 32;

  private final S3Client client;
  private final String bucket;
  private final String prefix;
  private final long multipartThreshold;
  private final long partSize;
  private final ObjectOptionsProvider objectOptions;
  private final Lanes lanes;
  private final UnfinishedUploads unfinished;
  private final MultipartPut multipart;
  private final ConditionalWrites conditionalWrites;
  private final Integrity integrity;
  private final Object probeLock = new Object();
  private volatile ConditionalWriteProbe.Support detected;

  private S3ObjectSink(Builder builder) {
    this.client = Objects.requireNonNull(builder.client, "client");
    this.bucket = Objects.requireNonNull(builder.bucket, "bucket");
    this.prefix = builder.prefix;
    this.multipartThreshold = builder.multipartThreshold;
    this.partSize = builder.partSize;
    this.objectOptions = builder.objectOptions;
    this.lanes = new Lanes(Lanes.helperPool("s3-sink-" + bucket), builder.partConcurrency);
    this.unfinished = new UnfinishedUploads(client, bucket, prefix, new Housekeeping());
    this.conditionalWrites = builder.conditionalWrites;
    this.integrity = builder.integrity;
    this.multipart = new MultipartPut(client, bucket, lanes, unfinished, this::head);
  }

  /** A builder; {@link Builder#client} and {@link Builder#bucket} are required. */
  public static Builder builder() {
    return new Builder();
  }

  @Override
  public StoredObjectInfo put(String key, UploadContent content, boolean mayExist) {
    String objectKey = prefix + Objects.requireNonNull(key, "key");
    long size = content.size();
    boolean isMultipart = size >= multipartThreshold;
    PartLayout layout = isMultipart ? PartLayout.multipart(size, partSize) : PartLayout.single(size);
    ContentDigests digests;
    try {
      digests = ContentDigests.of(content, layout, lanes);
    } catch (IOException | RuntimeException e) {
      throw SinkException.retryable("reading the content for s3://" + bucket + "/" + objectKey + " failed", e);
    }
    ObjectOptions options = optionsFor(key, objectKey);
    if (mayExist) {
      Optional<StoredObjectInfo> existing = headIfAllowed(key);
      if (existing.isPresent() && existing.get().sizeBytes() == size && digests.describedBy(existing.get().checksum())) {
        if (isMultipart) {
          unfinished.abortAllBut(key, null, "an identical object is stored at the key");
        }
        return new StoredObjectInfo(key, size, digests.recorded(integrity));
      }
    }
    Map<String, String> metadata = Map.of(CHECKSUM_METADATA, digests.checksum());
    boolean ifNoneMatch = isImmutable(key) && conditionalWrites != ConditionalWrites.OFF
        && (isMultipart ? support().complete() : support().put());
    try {
      if (isMultipart) {
        multipart.put(new MultipartPut.Job(key, objectKey, content, layout, digests, metadata, options, mayExist,
            ifNoneMatch, integrity));
      } else {
        putObject(objectKey, options, content, size, digests, ifNoneMatch ? "*" : null, null);
      }
    } catch (S3Exception e) {
      if (ifNoneMatch && e.statusCode() == 412) {
        return existingAfterRefusal(key, size, digests, e);
      }
      if (ifNoneMatch && isMultipart && e.statusCode() == 409) {
        throw SinkException.retryable("conditional completion of s3://" + bucket + "/" + objectKey + " conflicted with"
            + " a concurrent write (409); the upload was aborted and starts again", e);
      }
      throw S3Failures.classify(isMultipart ? "multipart PUT" : "PUT", bucket, objectKey, e);
    } catch (UploadVanished e) {
      throw SinkException.retryable("multipart PUT s3://" + bucket + "/" + objectKey + ": upload " + e.uploadId
          + " vanished (aborted by another process?): HTTP " + e.getCause().statusCode() + " "
          + S3Failures.errorCode(e.getCause()), e.getCause());
    } catch (SdkException | UncheckedIOException e) {
      throw S3Failures.classify(isMultipart ? "multipart PUT" : "PUT", bucket, objectKey, e);
    }
    return new StoredObjectInfo(key, size, digests.recorded(integrity));
  }

  /**
   * Whether this sink sends {@code If-None-Match: *} with the PUT of an item's object: {@code false}
   * for {@link ConditionalWrites#OFF}, else the probe's verdict. Completions of multipart uploads
   * carry it only if the probe found them refused too ({@link #sendsConditionalCompletions()}). The
   * probe runs once, on first use; a transient failure of it is thrown and it runs again next time.
   *
   * @throws SinkException retryable if the probe failed transiently; configuration if the setting
   *     is {@link ConditionalWrites#REQUIRED} and the server does not refuse overwrites on both PUT
   *     and completion, or if the probe was refused (for example {@code AccessDenied})
   */
  public boolean sendsConditionalWrites() {
    return conditionalWrites != ConditionalWrites.OFF && support().put();
  }

  /**
   * {@inheritDoc} {@code false} for {@link ConditionalWrites#OFF}; else whether the probe found
   * {@code If-None-Match: *} and {@code If-Match} honoured on {@code PutObject}.
   *
   * @throws SinkException as {@link #sendsConditionalWrites()} does
   */
  @Override
  public boolean supportsConditionalPuts() {
    return conditionalWrites != ConditionalWrites.OFF && support().put()
        && support().ifMatch() != ConditionalWriteProbe.EtagForm.NONE;
  }

  /** {@inheritDoc} See the class comment, "Conditional rewrites". */
  @Override
  public ConditionalPut putIfMatch(String key, UploadContent content, String expectedEtag) {
    long size = content.size();
    if (!supportsConditionalPuts() || size > MAX_PART_SIZE) {
      return ConditionalPut.unconditional(put(key, content, true), null);
    }
    String objectKey = prefix + Objects.requireNonNull(key, "key");
    ContentDigests digests;
    try {
      digests = ContentDigests.of(content, PartLayout.single(size), lanes);
    } catch (IOException | RuntimeException e) {
      throw SinkException.retryable("reading the content for s3://" + bucket + "/" + objectKey + " failed", e);
    }
    ObjectOptions options = optionsFor(key, objectKey);
    String ifMatch = expectedEtag == null ? null : support().ifMatch().header(expectedEtag);
    PutObjectResponse response;
    try {
      response = putObject(objectKey, options, content, size, digests, ifMatch == null ? "*" : null, ifMatch);
    } catch (S3Exception e) {
      if (e.statusCode() == 412 || (ifMatch != null && e.statusCode() == 404
          && !"NoSuchBucket".equals(S3Failures.errorCode(e)))) {
        return judgeRefusal(key, size, digests);
      }
      if (e.statusCode() == 409) {
        throw SinkException.retryable("conditional PUT of s3://" + bucket + "/" + objectKey + " conflicted with a"
            + " concurrent write (409)", e);
      }
      throw S3Failures.classify("conditional PUT", bucket, objectKey, e);
    } catch (SdkException | UncheckedIOException e) {
      throw S3Failures.classify("conditional PUT", bucket, objectKey, e);
    }
    return ConditionalPut.stored(new StoredObjectInfo(key, size, digests.recorded(integrity)), response.eTag());
  }

  /**
   * One {@code PutObject} of the whole content: its options, {@code Content-MD5}, the checksum
   * metadata, the CRC32C under {@link Integrity#CHECKSUMS}, and {@code If-None-Match} or {@code
   * If-Match} when given ({@code null}: not sent).
   */
  private PutObjectResponse putObject(String objectKey, ObjectOptions options, UploadContent content, long size,
      ContentDigests digests, String ifNoneMatch, String ifMatch) {
    return client.putObject(b -> {
      options.applyTo(b);
      b.bucket(bucket).key(objectKey).contentLength(size).contentMD5(digests.partMd5s().get(0))
          .metadata(Map.of(CHECKSUM_METADATA, digests.checksum()));
      if (integrity == Integrity.CHECKSUMS) {
        b.checksumCRC32C(digests.crc32c());
      }
      if (ifNoneMatch != null) {
        b.ifNoneMatch(ifNoneMatch);
      }
      if (ifMatch != null) {
        b.ifMatch(ifMatch);
      }
    }, ContentRange.body(content, 0, size));
  }

  /**
   * A conditional rewrite was refused: an identical object at the key (an earlier attempt's, whose
   * answer was lost) counts as stored; anything else is a refusal naming the ETag found.
   */
  private ConditionalPut judgeRefusal(String key, long size, ContentDigests digests) {
    Optional<HeadObjectResponse> found = headResponse(key);
    if (found.isPresent() && found.get().contentLength() == size
        && digests.describedBy(info(key, found.get()).checksum())) {
      return ConditionalPut.stored(new StoredObjectInfo(key, size, digests.recorded(integrity)), found.get().eTag());
    }
    return ConditionalPut.refused(found.map(HeadObjectResponse::eTag).orElse(null));
  }

  /** Whether completions of multipart uploads of items carry {@code If-None-Match: *}; see {@link #sendsConditionalWrites()}. */
  public boolean sendsConditionalCompletions() {
    return conditionalWrites != ConditionalWrites.OFF && support().complete();
  }

  private ConditionalWriteProbe.Support support() {
    ConditionalWriteProbe.Support known = detected;
    if (known == null) {
      synchronized (probeLock) { // workers starting together probe once
        known = detected;
        if (known == null) {
          try {
            known = ConditionalWriteProbe.probe(client, bucket, prefix);
          } catch (SdkException e) {
            throw S3Failures.classify("conditional-write probe", bucket, prefix + ConditionalWriteProbe.PROBE_PREFIX, e);
          }
          detected = known;
        }
      }
    }
    if (conditionalWrites == ConditionalWrites.REQUIRED && !(known.put() && known.complete())) {
      throw SinkException.configuration("conditional writes are REQUIRED but s3://" + bucket + " does not refuse"
          + " an overwrite with 412 (If-None-Match: * on PutObject: " + known.put() + ", on CompleteMultipartUpload: "
          + known.complete() + ")", null);
    }
    return known;
  }

  /**
   * Keys the ledger writes once (items: originals, segments, init segments) get {@code
   * If-None-Match: *} from {@link #put}; any other key (playlists, which are rewritten) is written by
   * {@code put} as before, and conditionally only through {@link #putIfMatch}.
   */
  private static boolean isImmutable(String key) {
    return ObjectKeys.idOf(key).isPresent();
  }

  /**
   * A conditional write was refused ({@code 412}): an object is at the key. Judged as the {@code
   * mayExist} skip judges: the same size and checksum metadata confirm it; anything else is a
   * conflict, a permanent failure, and the object stays untouched.
   */
  private StoredObjectInfo existingAfterRefusal(String key, long size, ContentDigests digests, S3Exception refusal) {
    Optional<StoredObjectInfo> existing = head(key);
    if (existing.isPresent() && existing.get().sizeBytes() == size && digests.describedBy(existing.get().checksum())) {
      return new StoredObjectInfo(key, size, digests.recorded(integrity));
    }
    if (existing.isEmpty()) {
      throw SinkException.retryable("PUT s3://" + bucket + "/" + prefix + key + " was refused with 412 (an object"
          + " was there) but the object is gone now", refusal);
    }
    throw SinkException.permanent(CONFLICT + ": a different object is stored at s3://" + bucket + "/" + prefix + key
        + " (" + existing.get().sizeBytes() + " bytes, checksum " + existing.get().checksum() + "; this content "
        + size + " bytes, " + digests.recorded(integrity) + "); it was left untouched", refusal);
  }

  /**
   * {@inheritDoc} A HEAD of the key; only if the object there has the content's size is the content
   * read, for its SHA-256, which must equal the object's {@value #CHECKSUM_METADATA} metadata (and
   * its CRC32C any CRC32C the server reports): the rule of the {@code mayExist} skip. An object
   * without that metadata is never identical.
   *
   * @throws SinkException as {@link #head} does, or retryable if the content cannot be read
   */
  @Override
  public Optional<StoredObjectInfo> findIdentical(String key, UploadContent content) {
    Optional<StoredObjectInfo> stored = head(key);
    if (stored.isEmpty() || stored.get().sizeBytes() != content.size() || stored.get().checksum() == null) {
      return Optional.empty();
    }
    ContentDigests digests;
    try {
      digests = ContentDigests.whole(content);
    } catch (IOException | RuntimeException e) {
      throw SinkException.retryable("reading the content to compare with s3://" + bucket + "/" + prefix + key
          + " failed", e);
    }
    return digests.describedBy(stored.get().checksum()) ? stored : Optional.empty();
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
      if (e.failureKind() == SinkException.Kind.TRANSIENT) {
        throw e;
      }
      return Optional.empty();
    }
  }

  /**
   * {@inheritDoc} The checksum is the object's {@value #CHECKSUM_METADATA} metadata ({@code null}
   * without it); with {@link Integrity#CHECKSUMS} the HEAD asks for the server's checksums ({@code
   * x-amz-checksum-mode: ENABLED}) and a full-object CRC32C the server reports is added as a {@code
   * crc32c:} entry (see the class comment, "Full-object checksums").
   */
  @Override
  public Optional<StoredObjectInfo> head(String key) {
    return headResponse(key).map(response -> info(key, response));
  }

  /** What a HEAD says of the object at {@code key}; see {@link #head}. */
  private StoredObjectInfo info(String key, HeadObjectResponse response) {
    String checksum = response.metadata().get(CHECKSUM_METADATA);
    String crc32c = response.checksumCRC32C();
    boolean fullObject = crc32c != null && !crc32c.contains("-") && response.checksumType() != ChecksumType.COMPOSITE;
    if (integrity == Integrity.CHECKSUMS && fullObject) {
      checksum = checksum == null ? ContentDigests.CRC32C_ENTRY + ":" + crc32c
          : Checksums.with(checksum, ContentDigests.CRC32C_ENTRY, crc32c);
    }
    return new StoredObjectInfo(key, response.contentLength(), checksum);
  }

  /** The HEAD of {@code key}, or empty if no object is there; see {@link #head}. */
  private Optional<HeadObjectResponse> headResponse(String key) {
    String objectKey = prefix + Objects.requireNonNull(key, "key");
    try {
      return Optional.of(client.headObject(b -> {
        b.bucket(bucket).key(objectKey);
        if (integrity == Integrity.CHECKSUMS) {
          b.checksumMode(ChecksumMode.ENABLED);
        }
      }));
    } catch (NoSuchKeyException e) {
      return Optional.empty();
    } catch (S3Exception e) {
      if (e.statusCode() == 404 && !"NoSuchBucket".equals(S3Failures.errorCode(e))) {
        return Optional.empty();
      }
      throw S3Failures.classify("HEAD", bucket, objectKey, e);
    } catch (SdkException e) {
      throw S3Failures.classify("HEAD", bucket, objectKey, e);
    }
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
    return unfinished.list(Objects.requireNonNull(keyPrefix, "prefix"));
  }

  /** {@inheritDoc} One {@code AbortMultipartUpload}; S3's {@code 404 NoSuchUpload} means already gone. */
  @Override
  public boolean abortUnfinishedUpload(UnfinishedUpload upload) {
    return unfinished.abort(Objects.requireNonNull(upload, "upload"));
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
    private long multipartThreshold = DEFAULT_MULTIPART_THRESHOLD;
    private long partSize = DEFAULT_PART_SIZE;
    private ObjectOptionsProvider objectOptions = ObjectOptionsProvider.defaults();
    private int partConcurrency = DEFAULT_PART_CONCURRENCY;
    private ConditionalWrites conditionalWrites = ConditionalWrites.OFF;
    private Integrity integrity = Integrity.MD5_ONLY;

    private Builder() {}

    /**
     * Whether uploads also carry S3's full-object CRC32C checksums (default {@link
     * Integrity#MD5_ONLY}, what servers without them accept). See {@link Integrity}.
     */
    public Builder integrity(Integrity mode) {
      this.integrity = Objects.requireNonNull(mode, "mode");
      return this;
    }

    /**
     * Whether the first PUT and every completion of an item's object carry {@code If-None-Match: *}
     * (default {@link ConditionalWrites#OFF}, which keeps the {@code ObjectSink} contract's "a PUT
     * replaces whatever is there"; {@link ConditionalWrites#AUTO} detects support once against the
     * bucket). See {@link ConditionalWrites}.
     */
    public Builder conditionalWrites(ConditionalWrites mode) {
      this.conditionalWrites = Objects.requireNonNull(mode, "mode");
      return this;
    }

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
     * How many parts of one multipart upload are sent at once, and how many lanes share the
     * digest pass before it (default 4; 1 to {@value S3ObjectSink#MAX_PART_CONCURRENCY}; 1 sends
     * the parts one after the other on the calling thread). Each part in flight holds one read
     * buffer of 64 KiB and one HTTP connection of the client: give the client's connection pool at
     * least the ledger's workers times this many connections (the SDK's Apache clients default to
     * 50).
     */
    public Builder partConcurrency(int parts) {
      if (parts < 1 || parts > MAX_PART_CONCURRENCY) {
        throw new IllegalArgumentException("partConcurrency must be between 1 and " + MAX_PART_CONCURRENCY + ", got "
            + parts);
      }
      this.partConcurrency = parts;
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
