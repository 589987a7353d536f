package dev.segmentledger.core.spi;

import dev.segmentledger.core.ConditionalPut;
import dev.segmentledger.core.SinkException;
import dev.segmentledger.core.StoredObjectInfo;
import dev.segmentledger.core.UnfinishedUpload;
import java.util.List;
import java.util.Optional;

/**
 * The bucket. Keys are those of {@link dev.segmentledger.core.ObjectKeys}; a sink may place them
 * under a fixed prefix of its own. Implementations must be thread-safe, must report every failure
 * as a {@link SinkException} (nothing swallowed), and should pass
 * {@code dev.segmentledger.testkit.contract.ObjectSinkContract}.
 *
 * <p><b>Unfinished uploads.</b> A sink that uploads in several requests (S3 multipart) leaves an
 * {@link UnfinishedUpload} behind when its process dies mid-upload: no object, but parts that take
 * (and on S3 are billed for) storage. Such a sink says so with {@link #supportsUnfinishedUploads()}
 * and implements {@link #listUnfinishedUploads} and {@link #abortUnfinishedUpload}. On a retry
 * ({@code mayExist}) it should continue an unfinished upload an earlier attempt left at that key:
 * verify each stored part against its range of the content, send only the parts that are missing
 * or cannot be verified, and abort only the uploads that cannot be continued. A failed attempt
 * should leave its unfinished upload for the next attempt to continue rather than abort it. It
 * reports what is stored as it goes ({@link UploadContent#reportStored}). The reconciler reports
 * unfinished uploads and, when repairing, aborts old ones. A sink whose uploads are
 * all-or-nothing keeps the defaults, which say "not supported". A sink that forwards to another
 * must forward these three methods too.
 *
 * <p><b>Conditional writes of rewritten objects.</b> The ledger rewrites its playlists. A sink whose
 * server can refuse a write unless the object at the key is a given version (S3's {@code If-Match}
 * on the ETag, and {@code If-None-Match: *} for "no object yet") says so with {@link
 * #supportsConditionalPuts()} and implements {@link #putIfMatch}; the ledger then never overwrites a
 * playlist object that is not the version it last published. The defaults say "not supported" and
 * write unconditionally, as {@link #put} does. A sink that forwards to another must forward both.
 */
public interface ObjectSink {

  /**
   * Stores {@code content} at {@code key}, overwriting whatever is there. Returns only once the
   * object is durably stored with exactly {@code content.size()} bytes.
   *
   * @param mayExist {@code true} when an earlier attempt may already have stored this object
   *     (any retry). The sink may then check the existing object (size and checksum) and skip the
   *     upload if it is identical; it must never skip on size alone.
   * @return what is now stored at {@code key}
   * @throws SinkException on any failure, classified retryable or permanent; an unknown outcome
   *     (timeout, reset after sending) is retryable
   */
  StoredObjectInfo put(String key, UploadContent content, boolean mayExist);

  /**
   * The object at {@code key} if it is identical to {@code content}: the same size and the same
   * checksum, computed from the content the way {@link #put} computes it. Never judged on size
   * alone. Empty if nothing is stored there, if what is stored differs, or if the sink cannot tell
   * (the default: a sink that cannot compare says "unknown" by returning empty). The ledger asks
   * before it rejects a row whose attempts keep ending without an outcome: an identical object
   * confirms the row instead. Reads the content; stores nothing.
   *
   * @throws SinkException on any failure to read what is stored
   */
  default Optional<StoredObjectInfo> findIdentical(String key, UploadContent content) {
    return Optional.empty();
  }

  /**
   * Whether {@link #putIfMatch} writes conditionally (the server refuses a write over another
   * version). The default, {@code false}, is right for a sink that cannot; the ledger then writes its
   * playlists with {@link #put} as it always did. May consult the server once (a probe) and is
   * constant after its first answer.
   *
   * @throws SinkException if finding out failed (then it is asked again later)
   */
  default boolean supportsConditionalPuts() {
    return false;
  }

  /**
   * Stores {@code content} at {@code key} only if the object there is the version the caller
   * expects: the one whose ETag is {@code expectedEtag} (S3's {@code If-Match}), or, for a {@code
   * null} {@code expectedEtag}, no object at all ({@code If-None-Match: *}). If the object there is
   * another version, or absent when a version was expected, or present when none was, nothing is
   * written and the result is {@link ConditionalPut.Outcome#REFUSED} with the ETag of what is there;
   * an object already identical to {@code content} (same size and checksum, as for {@code
   * mayExist}) is reported {@link ConditionalPut.Outcome#STORED} with its ETag, since the write of
   * an attempt whose answer was lost may have put it there. A write that is not refused returns
   * {@link ConditionalPut.Outcome#STORED} with the new object's ETag, which the caller passes as
   * {@code expectedEtag} next time. Returns only once the object is durably stored, as {@link #put}.
   *
   * <p>The default, for a sink that cannot write conditionally ({@link #supportsConditionalPuts()}
   * {@code false}), is {@code put(key, content, true)}, reported as {@link
   * ConditionalPut.Outcome#UNCONDITIONAL}: no protection against overwriting another version.
   * Thread-safe.
   *
   * @param expectedEtag the ETag this caller last stored at {@code key} (as a {@code STORED} result
   *     returned it), or {@code null} if it stored none there
   * @throws SinkException on any failure other than the refusal, classified as for {@link #put}
   */
  default ConditionalPut putIfMatch(String key, UploadContent content, String expectedEtag) {
    return ConditionalPut.unconditional(put(key, content, true), null);
  }

  /** What is stored at {@code key}, or empty if nothing is. */
  Optional<StoredObjectInfo> head(String key);

  /** Every object whose key starts with {@code prefix}, in key order. */
  List<StoredObjectInfo> list(String prefix);

  /**
   * One bounded part of {@link #list(String)}: at most {@code maxKeys} objects whose key starts
   * with {@code prefix} and comes strictly after {@code startAfter} (in key order, by UTF-16 code
   * units of the keys, which for the ledger's ASCII keys is the byte order S3 lists in), in key
   * order. The bounded reconcile ({@link dev.segmentledger.core.ReconcileRequest}) reads a
   * broadcast's objects with it, one step at a time. The default filters {@link #list(String)}, so
   * it reads the whole prefix each time: a sink that can start a listing at a key (S3's {@code
   * StartAfter}) should override it. A sink that forwards to another must forward it too.
   *
   * @param startAfter the last key of the previous part; {@code null} or empty: from the first key
   * @param maxKeys at least 1
   * @throws SinkException on any failure to list
   */
  default List<StoredObjectInfo> list(String prefix, String startAfter, int maxKeys) {
    if (maxKeys < 1) {
      throw new IllegalArgumentException("maxKeys must be >= 1, got " + maxKeys);
    }
    return list(prefix).stream()
        .filter(o -> startAfter == null || o.key().compareTo(startAfter) > 0)
        .sorted(java.util.Comparator.comparing(StoredObjectInfo::key))
        .limit(maxKeys)
        .toList();
  }

  /**
   * Whether this sink can leave unfinished uploads behind and implements {@link
   * #listUnfinishedUploads} and {@link #abortUnfinishedUpload}. Constant for a given sink. The
   * default, {@code false}, is right for a sink whose uploads are all-or-nothing (a failed or killed
   * upload leaves nothing to clean up).
   */
  default boolean supportsUnfinishedUploads() {
    return false;
  }

  /**
   * The unfinished uploads whose key starts with {@code prefix} (a plain string prefix, as for
   * {@link #list}), in key order, then in order of initiation. Uploads still in progress, in this
   * process or another, are listed too: the sink cannot tell them from abandoned ones, only their
   * {@linkplain UnfinishedUpload#initiated() age} can. Thread-safe, like every sink method.
   *
   * @throws UnsupportedOperationException if {@link #supportsUnfinishedUploads()} is {@code false}
   *     (the default)
   * @throws SinkException on any failure to list
   */
  default List<UnfinishedUpload> listUnfinishedUploads(String prefix) {
    throw new UnsupportedOperationException(this + " does not list unfinished uploads");
  }

  /**
   * Aborts {@code upload}: its parts are deleted and it can no longer be completed. Never touches a
   * stored object, not even the one at the upload's key. An upload still in progress is aborted all
   * the same, and its uploader then fails with a retryable {@link SinkException}; choose what to
   * abort by age. Thread-safe.
   *
   * @return {@code true} if this call aborted it, {@code false} if it was already gone (completed or
   *     aborted meanwhile, possibly by another process): not a failure
   * @throws UnsupportedOperationException if {@link #supportsUnfinishedUploads()} is {@code false}
   *     (the default)
   * @throws SinkException on any other failure
   */
  default boolean abortUnfinishedUpload(UnfinishedUpload upload) {
    throw new UnsupportedOperationException(this + " does not abort unfinished uploads");
  }
}
