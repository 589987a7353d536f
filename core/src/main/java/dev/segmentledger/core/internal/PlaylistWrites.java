package dev.segmentledger.core.internal;

import dev.segmentledger.core.Checksums;
import dev.segmentledger.core.ConditionalPut;
import dev.segmentledger.core.SinkException;
import dev.segmentledger.core.StoredObjectInfo;
import dev.segmentledger.core.internal.PlaylistPlans.Plan;
import dev.segmentledger.core.internal.PlaylistPlans.Put;
import dev.segmentledger.core.spi.ObjectSink;
import dev.segmentledger.core.spi.PlaylistRecord;
import dev.segmentledger.core.spi.UploadContent;
import java.io.ByteArrayInputStream;
import java.io.InputStream;
import java.util.Optional;

/**
 * The PUTs of one playlist publication ({@link Plan#puts()}), in order, through the {@link
 * SinkBreaker}, each counted as an item's PUT is ({@link Uploader}).
 *
 * <p><b>Conditional writes.</b> When the store keeps the ETags of the published playlist objects
 * ({@link dev.segmentledger.core.spi.PlaylistStore#recordsEtags()}) and the sink writes
 * conditionally ({@link ObjectSink#supportsConditionalPuts()}), each object is written with {@link
 * ObjectSink#putIfMatch} on the ETag the record holds for it ({@code If-None-Match: *} if none): a
 * write over any other version is refused by the bucket, and the publication stops at the first
 * refusal, writing nothing more ({@link Written#refused()}). Otherwise each object is PUT as
 * before, replacing whatever is there, and its ETag is not known afterwards.
 *
 * <p>Thread-safe (stateless beyond its collaborators).
 */
final class PlaylistWrites {
  /** How the recorded error of a refused publication begins ({@link PlaylistRecord#lastError()}). */
  static final String REFUSED = "playlist version conflict";

  private final ObjectSink sink;
  private final SinkBreaker breaker;
  private final boolean storeKeepsEtags;

  PlaylistWrites(ObjectSink sink, SinkBreaker breaker, boolean storeKeepsEtags) {
    this.sink = sink;
    this.breaker = breaker;
    this.storeKeepsEtags = storeKeepsEtags;
  }

  /**
   * What the PUTs of a publication did.
   *
   * @param checksum the checksum of the last object (as the sink reports it, else as computed)
   * @param liveEtag the ETag of the live playlist object to record: the new one if it was written,
   *     the one found if its write was refused, else as the record had it
   * @param fullEtag the same for the full playlist object
   * @param refusedKey the key whose conditional write was refused, or {@code null}
   * @param expected the ETag the refused write expected ({@code null}: no object)
   */
  record Written(String checksum, String liveEtag, String fullEtag, String refusedKey, String expected) {
    boolean refused() {
      return refusedKey != null;
    }

    /** The named reason of a refusal, for the record, the log and the listener. */
    String refusal() {
      String found = expected == null ? "no object was expected there" : "expected ETag " + expected;
      return REFUSED + ": " + refusedKey + " is not the version this node last published (" + found
          + "); another node published it meanwhile, its lease overlapped, or it was replaced or deleted";
    }
  }

  /** Writes the plan's objects for {@code record}; stops at the first refusal. */
  Written write(PlaylistRecord record, Plan plan) {
    // Not through the breaker: a constant answer says nothing of the sink's health (and must not
    // close a half-open breaker before the PUT that probes it); a failed probe fails the publication.
    boolean conditional = storeKeepsEtags && sink.supportsConditionalPuts();
    String checksum = plan.checksum();
    String live = record.liveEtag();
    String full = record.fullEtag();
    for (Put put : plan.puts()) {
      if (put.ifDifferent()) {
        Optional<StoredObjectInfo> existing = breaker.call(() -> sink.head(put.key()));
        if (existing.isPresent() && Checksums.agree(put.checksum(), existing.get().checksum())) {
          checksum = put.checksum();
          continue;
        }
      }
      String etag = null;
      StoredObjectInfo stored;
      if (conditional) {
        String expected = put.live() ? live : full;
        ConditionalPut result = breaker.call(() -> sink.putIfMatch(put.key(), content(put.bytes()), expected));
        if (result.refused()) {
          return put.live() ? new Written(null, result.etag(), full, put.key(), expected)
              : new Written(null, live, result.etag(), put.key(), expected);
        }
        stored = result.stored();
        etag = result.etag();
      } else {
        stored = breaker.call(() -> sink.put(put.key(), content(put.bytes()), true));
      }
      if (stored.sizeBytes() != put.bytes().length) {
        throw SinkException.retryable("sink reports " + stored.sizeBytes() + " bytes at " + put.key() + ", PUT "
            + put.bytes().length, null);
      }
      checksum = stored.checksum() != null ? stored.checksum() : put.checksum();
      if (put.live()) {
        live = etag;
      } else {
        full = etag;
      }
    }
    return new Written(checksum, live, full, null, null);
  }

  private static UploadContent content(byte[] bytes) {
    return new UploadContent() {
      @Override
      public long size() {
        return bytes.length;
      }

      @Override
      public InputStream openStream() {
        return new ByteArrayInputStream(bytes);
      }
    };
  }
}
