package dev.segmentledger.s3;

import dev.segmentledger.core.SinkException;
import dev.segmentledger.core.StoredObjectInfo;
import dev.segmentledger.core.spi.Tracing;
import dev.segmentledger.core.spi.UploadContent;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.atomic.AtomicReferenceArray;
import java.util.function.Function;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import software.amazon.awssdk.services.s3.S3Client;
import software.amazon.awssdk.services.s3.model.ChecksumAlgorithm;
import software.amazon.awssdk.services.s3.model.ChecksumType;
import software.amazon.awssdk.services.s3.model.CompletedPart;
import software.amazon.awssdk.services.s3.model.S3Exception;

/**
 * The multipart upload of one put: continue what an earlier attempt left, or start afresh; send
 * the parts on the sink's {@link Lanes}; complete; clean up the key.
 *
 * <p>Design note. A retry ({@code mayExist}) continues the unfinished upload an earlier attempt
 * left at the key ({@link UnfinishedUploads#continuable}): only parts that are missing or cannot be
 * verified are sent. The checksum metadata of an upload is set when it is created and cannot be
 * read back before it is complete, so after completing a continued upload the object is HEADed;
 * if its size or checksum metadata is not this content's (an upload created from other content of
 * the same size: practically impossible, but a wrong checksum is never confirmed), the content is
 * uploaded again as a fresh upload. After any completion the other unfinished uploads of the key
 * are aborted, so a key ends with none.
 *
 * <p>A failed attempt leaves its upload unfinished for the next attempt to continue, unless the
 * failure is permanent (a refusal the next attempt would meet too): then the upload is aborted,
 * with any abort failure suppressed on the original one. A part or completion answered {@code 404}
 * means the upload was aborted under us ({@link UploadVanished}). With {@link Job#ifNoneMatch} the
 * completion carries {@code If-None-Match: *}: a {@code 412} (an object is at the key) aborts the
 * upload and is judged by the sink, a {@code 409} aborts it so that the next attempt starts again.
 * Thread-safe.
 */
final class MultipartPut {
  private static final Logger log = LoggerFactory.getLogger(S3ObjectSink.class);

  /** What one put uploads, and where. */
  record Job(String key, String objectKey, UploadContent content, PartLayout layout, ContentDigests digests,
      Map<String, String> metadata, ObjectOptions options, boolean mayExist, boolean ifNoneMatch,
      Integrity integrity) {
    boolean checksums() {
      return integrity == Integrity.CHECKSUMS;
    }

    String owner() {
      return options.expectedBucketOwner().orElse(null);
    }
  }

  private final S3Client client;
  private final String bucket;
  private final Lanes lanes;
  private final UnfinishedUploads unfinished;
  private final Function<String, Optional<StoredObjectInfo>> head;

  MultipartPut(S3Client client, String bucket, Lanes lanes, UnfinishedUploads unfinished,
      Function<String, Optional<StoredObjectInfo>> head) {
    this.client = client;
    this.bucket = bucket;
    this.lanes = lanes;
    this.unfinished = unfinished;
    this.head = head;
  }

  /** Uploads {@code job}; throws what the SDK throws, or {@link UploadVanished}. */
  void put(Job job) {
    StoredProgress progress = new StoredProgress(job.content());
    Optional<UnfinishedUploads.Continuable> earlier = job.mayExist()
        ? unfinished.continuable(job.key(), job.layout(), job.digests(), job.owner())
        : Optional.empty();
    String completed;
    if (earlier.isPresent()) {
      UnfinishedUploads.Continuable upload = earlier.get();
      log.info("continuing multipart upload {} of s3://{}/{}: {} of {} parts ({} of {} bytes) already stored and"
          + " verified", upload.uploadId(), bucket, job.objectKey(), upload.verifiedEtags().size(),
          job.layout().count(), upload.verifiedBytes(), job.layout().size());
      progress.add(upload.verifiedBytes());
      completed = sendAndComplete(job, upload.uploadId(), upload.verifiedEtags(), progress);
      if (!storedAsThisContent(job)) {
        log.warn("continued multipart upload {} of s3://{}/{} completed with other checksum metadata than its"
            + " content's (it was created for other content of the same size); uploading the content again",
            upload.uploadId(), bucket, job.objectKey());
        progress.startOver();
        completed = fresh(job, progress);
      }
    } else {
      completed = fresh(job, progress);
    }
    unfinished.abortAllBut(job.key(), completed, "upload " + completed + " of the key completed");
  }

  private String fresh(Job job, StoredProgress progress) {
    String uploadId = client.createMultipartUpload(b -> {
      job.options().applyTo(b);
      b.bucket(bucket).key(job.objectKey()).metadata(job.metadata());
      if (job.checksums()) {
        b.checksumAlgorithm(ChecksumAlgorithm.CRC32_C).checksumType(ChecksumType.FULL_OBJECT);
      }
    }).uploadId();
    return sendAndComplete(job, uploadId, Map.of(), progress);
  }

  /** Sends the parts not in {@code stored} (index to ETag), completes, and returns {@code uploadId}. */
  private String sendAndComplete(Job job, String uploadId, Map<Integer, String> stored, StoredProgress progress) {
    PartLayout layout = job.layout();
    AtomicReferenceArray<String> etags = new AtomicReferenceArray<>(layout.count());
    List<Integer> missing = new ArrayList<>();
    for (int i = 0; i < layout.count(); i++) {
      if (stored.containsKey(i)) {
        etags.set(i, stored.get(i));
      } else {
        missing.add(i);
      }
    }
    try {
      lanes.run(missing.size(), task -> {
        int index = missing.get(task);
        long length = layout.length(index);
        Tracing.Span span = job.content().part(index + 1, layout.offset(index), length);
        String etag;
        try {
          etag = client.uploadPart(b -> b.bucket(bucket).key(job.objectKey()).uploadId(uploadId)
                  .partNumber(index + 1).contentLength(length).contentMD5(job.digests().partMd5s().get(index))
                  .checksumCRC32C(job.checksums() ? job.digests().partCrc32cs().get(index) : null)
                  .expectedBucketOwner(job.owner()),
              ContentRange.body(job.content(), layout.offset(index), length)).eTag();
        } catch (RuntimeException | Error e) {
          span.end(e);
          throw e;
        }
        span.end();
        etags.set(index, etag);
        progress.add(length);
      });
      List<CompletedPart> parts = new ArrayList<>();
      for (int i = 0; i < layout.count(); i++) {
        parts.add(CompletedPart.builder().partNumber(i + 1).eTag(etags.get(i))
            .checksumCRC32C(job.checksums() ? job.digests().partCrc32cs().get(i) : null).build());
      }
      client.completeMultipartUpload(b -> {
        b.bucket(bucket).key(job.objectKey()).uploadId(uploadId).multipartUpload(m -> m.parts(parts))
            .expectedBucketOwner(job.owner()).ifNoneMatch(job.ifNoneMatch() ? "*" : null);
        if (job.checksums()) {
          b.checksumCRC32C(job.digests().crc32c()).checksumType(ChecksumType.FULL_OBJECT);
        }
      });
      return uploadId;
    } catch (IOException e) {
      throw new UncheckedIOException(e); // the part tasks throw none
    } catch (RuntimeException e) {
      // A 404 other than NoSuchBucket once the upload exists: someone aborted it (S3 says NoSuchUpload,
      // S3Proxy NoSuchKey). Not permanent: the next attempt starts a new upload.
      if (e instanceof S3Exception s3 && s3.statusCode() == 404 && !"NoSuchBucket".equals(S3Failures.errorCode(s3))) {
        throw new UploadVanished(uploadId, s3);
      }
      // 409 on a conditional completion (a concurrent one won the race): this upload cannot be
      // completed any more; abort it so that the next attempt starts again.
      if (job.ifNoneMatch() && e instanceof S3Exception s3 && s3.statusCode() == 409
          || S3Failures.classify("", bucket, job.objectKey(), e).failureKind() == SinkException.Kind.PERMANENT) {
        abortAfterPermanentFailure(job, uploadId, e);
      }
      throw e;
    }
  }

  private void abortAfterPermanentFailure(Job job, String uploadId, RuntimeException failure) {
    try {
      client.abortMultipartUpload(b -> b.bucket(bucket).key(job.objectKey()).uploadId(uploadId)
          .expectedBucketOwner(job.owner()));
    } catch (RuntimeException abortFailure) {
      failure.addSuppressed(abortFailure);
    }
  }

  /** Whether the object now at the key has this content's size and checksum metadata. */
  private boolean storedAsThisContent(Job job) {
    Optional<StoredObjectInfo> stored = head.apply(job.key());
    return stored.isPresent() && stored.get().sizeBytes() == job.layout().size()
        && job.digests().describedBy(stored.get().checksum());
  }

  /** An upload that a part or the completion found gone. */
  static final class UploadVanished extends RuntimeException {
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
}
