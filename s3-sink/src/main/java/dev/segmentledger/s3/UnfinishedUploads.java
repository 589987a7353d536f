package dev.segmentledger.s3;

import dev.segmentledger.core.SinkException;
import dev.segmentledger.core.UnfinishedUpload;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import software.amazon.awssdk.core.exception.SdkException;
import software.amazon.awssdk.services.s3.S3Client;
import software.amazon.awssdk.services.s3.model.MultipartUpload;
import software.amazon.awssdk.services.s3.model.NoSuchUploadException;
import software.amazon.awssdk.services.s3.model.Part;
import software.amazon.awssdk.services.s3.model.S3Exception;

/**
 * The unfinished multipart uploads of one sink: listing and aborting them (for the reconciler and
 * for the sink's own housekeeping), and, for a retry, finding the one an earlier attempt left that
 * can be continued.
 *
 * <p>Design note. A retry lists the uploads of exactly its key ({@code ListMultipartUploads} by
 * prefix returns longer keys too) and lists the parts of each ({@code ListParts}, every page). A
 * part is <em>verified</em> when it lies where this content's {@link PartLayout} puts a part, has
 * that part's size, and its ETag (quotes stripped) is the hex MD5 of that range. Anything else (a
 * part of other content, another part size, an ETag that is not an MD5, as under SSE-KMS) is not
 * kept: it is sent again. The upload with the most verified bytes is continued; uploads with no
 * verified part are not worth continuing (a fresh upload costs the same and carries the current
 * metadata and options), so they are aborted with the others. A failure to list the uploads is
 * {@link Housekeeping}: the put goes on with a fresh upload.
 *
 * <p>A failure to list the parts of one upload (a 5xx, {@code SlowDown}, a 400, no reply) says
 * nothing about what the upload holds: it may hold most of a 40 GB original, and a node whose
 * lease was taken over may still be sending it. So such an upload is never aborted, and the
 * attempt fails retryably without creating an upload: its retry, after backoff, lists again and
 * continues it. A fresh upload instead would send the whole content again, beside the sender that
 * may still be live. Only when every retry would meet the failure (the role may not list parts,
 * {@code 403}; the store does not implement the listing, {@code 501}; a {@code 400} that is not a
 * passing condition such as {@code RequestTimeout}), or when the listing of the same upload failed
 * {@value #FAILED_LISTINGS_BEFORE_FRESH} times running in this sink (a corrupt upload that always
 * answers 500), is the upload left alone and the put goes on with a fresh upload, with a warning:
 * else the row would wait for ever with no upload. The cost is a second full upload, possibly beside
 * a live sender of the first; the cleanup after the fresh upload's completion aborts the one left,
 * when the object is stored.
 *
 * <p>Thread-safe.
 */
final class UnfinishedUploads {
  private static final Logger log = LoggerFactory.getLogger(S3ObjectSink.class);

  /** An upload an earlier attempt left, with the parts of it that hold this content's bytes. */
  record Continuable(String uploadId, Map<Integer, String> verifiedEtags, long verifiedBytes) {}

  private final S3Client client;
  private final String bucket;
  private final String prefix;
  private final Housekeeping housekeeping;

  /** Listings of one upload's parts that may fail running before the put goes on with a fresh upload. */
  static final int FAILED_LISTINGS_BEFORE_FRESH = 3;

  /** Most uploads whose failed listings are counted at once; beyond, the counts start over. */
  private static final int MAX_COUNTED_UPLOADS = 10_000;

  /** Failed listings of parts running, by upload id; removed when a listing succeeds. */
  private final Map<String, Integer> failedListings = new ConcurrentHashMap<>();

  UnfinishedUploads(S3Client client, String bucket, String prefix, Housekeeping housekeeping) {
    this.client = client;
    this.bucket = bucket;
    this.prefix = prefix;
    this.housekeeping = housekeeping;
  }

  /** See {@link S3ObjectSink#listUnfinishedUploads}. */
  List<UnfinishedUpload> list(String keyPrefix) {
    String listPrefix = prefix + keyPrefix;
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

  /** See {@link S3ObjectSink#abortUnfinishedUpload}. */
  boolean abort(UnfinishedUpload upload) {
    String objectKey = prefix + upload.key();
    try {
      client.abortMultipartUpload(b -> b.bucket(bucket).key(objectKey).uploadId(upload.uploadId()));
      return true;
    } catch (NoSuchUploadException e) {
      return false;
    } catch (S3Exception e) {
      if (e.statusCode() == 404 && "NoSuchUpload".equals(S3Failures.errorCode(e))) {
        return false;
      }
      throw S3Failures.classify("ABORT multipart upload " + upload.uploadId() + " of", bucket, objectKey, e);
    } catch (SdkException e) {
      throw S3Failures.classify("ABORT multipart upload " + upload.uploadId() + " of", bucket, objectKey, e);
    }
  }

  /**
   * For a retry of {@code key}: the unfinished upload of exactly that key with the most verified
   * bytes (at least one part), if any; every other upload of the key whose parts were listed is
   * aborted. A failed listing of the uploads is logged and answers empty, unless it is a
   * configuration error the put would fail on too (thrown). A failed listing of an upload's parts
   * never counts as "nothing stored": the upload is not aborted, and the attempt fails retryably
   * (see the class note), unless the role may not list parts (then the upload is left as it is).
   */
  Optional<Continuable> continuable(String key, PartLayout layout, ContentDigests digests, String owner) {
    List<UnfinishedUpload> uploads;
    try {
      uploads = list(key).stream().filter(u -> u.key().equals(key)).toList();
    } catch (SinkException e) {
      if (Housekeeping.failsEveryRequest(e)) {
        throw e;
      }
      housekeeping.failed("list the unfinished multipart uploads", where(key), "starting a fresh upload", e);
      return Optional.empty();
    }
    Continuable best = null;
    UnfinishedUpload bestUpload = null;
    List<UnfinishedUpload> obsolete = new ArrayList<>();
    for (UnfinishedUpload upload : uploads) {
      Optional<Continuable> listed = verify(upload, layout, digests, owner);
      if (listed.isEmpty()) {
        continue; // not listed, so neither continued nor aborted; a completion aborts it
      }
      Continuable candidate = listed.get();
      if (candidate.verifiedBytes() > 0 && (best == null || candidate.verifiedBytes() > best.verifiedBytes())) {
        if (bestUpload != null) {
          obsolete.add(bestUpload);
        }
        best = candidate;
        bestUpload = upload;
      } else {
        obsolete.add(upload);
      }
    }
    String why = best == null ? "no part of it holds this content"
        : "upload " + best.uploadId() + " holds more of this content and is continued";
    for (UnfinishedUpload upload : obsolete) {
      abortQuietly(upload, why);
    }
    return Optional.ofNullable(best);
  }

  /**
   * Aborts every unfinished upload of exactly {@code key} but {@code keep} (none if null): after a
   * completion (leftovers of killed attempts) or when an identical object makes them obsolete.
   * Never fails: the object is stored; what cannot be aborted is logged and left.
   */
  void abortAllBut(String key, String keep, String why) {
    try {
      for (UnfinishedUpload upload : list(key)) {
        if (upload.key().equals(key) && !upload.uploadId().equals(keep)) {
          abortQuietly(upload, why);
        }
      }
    } catch (SinkException e) {
      housekeeping.failed("list the unfinished multipart uploads", where(key), "leaving them", e);
    }
  }

  /**
   * The parts of {@code upload} that hold this content, or empty if the role may not list them.
   *
   * @throws SinkException retryable for any other failure of the listing, or as the put would
   *     fail for a configuration error
   */
  private Optional<Continuable> verify(UnfinishedUpload upload, PartLayout layout, ContentDigests digests,
      String owner) {
    String objectKey = prefix + upload.key();
    Map<Integer, String> verified = new HashMap<>();
    long bytes = 0;
    try {
      for (Part part : client.listPartsPaginator(b -> b.bucket(bucket).key(objectKey).uploadId(upload.uploadId())
          .expectedBucketOwner(owner)).parts()) {
        int index = part.partNumber() == null ? -1 : part.partNumber() - 1;
        if (index >= 0 && index < layout.count() && part.size() != null && part.size() == layout.length(index)
            && part.eTag() != null && unquoted(part.eTag()).equalsIgnoreCase(digests.partMd5Hex(index))
            && (part.checksumCRC32C() == null || part.checksumCRC32C().equals(digests.partCrc32cs().get(index)))) {
          verified.put(index, part.eTag());
          bytes += layout.length(index);
        }
      }
    } catch (SdkException e) {
      SinkException failure = S3Failures.classify("LIST parts of multipart upload " + upload.uploadId() + " of",
          bucket, objectKey, e);
      if (Housekeeping.failsEveryRequest(failure)) {
        throw failure;
      }
      if (isNoSuchUpload(e)) {
        failedListings.remove(upload.uploadId());
        return Optional.empty(); // completed or aborted since it was listed: nothing to continue or abort
      }
      boolean everyRetryWouldMeetIt = everyRetryWouldMeet(e, failure);
      int failedRunning = countFailedListing(upload.uploadId());
      if (!everyRetryWouldMeetIt && failedRunning < FAILED_LISTINGS_BEFORE_FRESH) {
        throw SinkException.retryable(failure.getMessage() + "; the upload is left for the next attempt to continue",
            e);
      }
      housekeeping.failed("list the parts of multipart upload " + upload.uploadId()
          + (everyRetryWouldMeetIt ? "" : " (" + failedRunning + " times running)"), where(upload.key()),
          "leaving it and starting a fresh upload, possibly beside a live sender of it", failure);
      return Optional.empty();
    }
    failedListings.remove(upload.uploadId());
    return Optional.of(new Continuable(upload.uploadId(), Map.copyOf(verified), bytes));
  }

  private void abortQuietly(UnfinishedUpload upload, String why) {
    try {
      if (abort(upload)) {
        log.info("aborted unfinished multipart upload {} of {} (initiated {}): {}", upload.uploadId(),
            where(upload.key()), upload.initiated(), why);
      }
    } catch (SinkException e) {
      housekeeping.failed("abort multipart upload " + upload.uploadId(), where(upload.key()), "leaving it", e);
    }
  }

  private String where(String key) {
    return "s3://" + bucket + "/" + prefix + key;
  }

  /** Counts a failed listing of {@code uploadId}'s parts; returns how many failed running. */
  private int countFailedListing(String uploadId) {
    if (failedListings.size() >= MAX_COUNTED_UPLOADS) {
      failedListings.clear();
    }
    return failedListings.merge(uploadId, 1, Integer::sum);
  }

  /**
   * A failure every retry of the listing would meet: 403 (the role lacks
   * {@code s3:ListMultipartUploadParts}), 501 (the store does not implement it), or a 400 that is
   * not a passing condition ({@code failure} is not retryable).
   */
  private static boolean everyRetryWouldMeet(SdkException e, SinkException failure) {
    if (!(e instanceof S3Exception s3)) {
      return false;
    }
    return s3.statusCode() == 403 || s3.statusCode() == 501 || s3.statusCode() == 400 && !failure.isRetryable();
  }

  private static boolean isNoSuchUpload(SdkException e) {
    return e instanceof NoSuchUploadException
        || e instanceof S3Exception s3 && s3.statusCode() == 404 && "NoSuchUpload".equals(S3Failures.errorCode(s3));
  }

  private static String unquoted(String etag) {
    return etag.length() >= 2 && etag.startsWith("\"") && etag.endsWith("\"") ? etag.substring(1, etag.length() - 1)
        : etag;
  }
}
