package dev.segmentledger.core.internal;

import dev.segmentledger.core.Checksums;
import dev.segmentledger.core.Identifiers;
import dev.segmentledger.core.ItemState;
import dev.segmentledger.core.LedgerItem;
import dev.segmentledger.core.ObjectKeys;
import dev.segmentledger.core.Reason;
import dev.segmentledger.core.ReconciliationReport.Difference;
import dev.segmentledger.core.ReconciliationReport.Kind;
import dev.segmentledger.core.ReconciliationReport.Unfinished;
import dev.segmentledger.core.SinkException;
import dev.segmentledger.core.StoredObjectInfo;
import dev.segmentledger.core.UnfinishedUpload;
import dev.segmentledger.core.spi.ObjectSink;
import dev.segmentledger.core.spi.PlaylistRecord;
import dev.segmentledger.core.spi.StateStore;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The comparisons and repairs a reconcile makes, one place for both passes: the whole run
 * ({@link DefaultReconciler}) and the bounded steps ({@link ReconcileSteps}). A confirmed row against
 * its object, a published playlist against its object, an unfinished upload against its age; and
 * the repairs (re-open a row, ask for a playlist's publication, abort an old upload). Immutable and
 * thread-safe.
 */
final class ReconcileComparisons {
  private static final Logger log = LoggerFactory.getLogger(dev.segmentledger.core.Reconciler.class);

  private final StateStore store;
  private final ObjectSink sink;
  private final Clock clock;
  private final Duration abortUnfinishedAfter;

  ReconcileComparisons(StateStore store, ObjectSink sink, Clock clock, Duration abortUnfinishedAfter) {
    this.store = store;
    this.sink = sink;
    this.clock = clock;
    this.abortUnfinishedAfter = abortUnfinishedAfter;
  }

  /** The difference between a confirmed row and its object (null: none), as read, if any. */
  static Optional<Difference> compare(LedgerItem row, StoredObjectInfo object) {
    String key = row.objectKey();
    if (object == null) {
      return Optional.of(new Difference(Kind.OBJECT_MISSING, key, row, null, false));
    }
    if (object.sizeBytes() != row.sizeBytes()) {
      return Optional.of(new Difference(Kind.SIZE_MISMATCH, key, row, object, false));
    }
    if (Checksums.contradict(row.checksum(), object.checksum())) {
      return Optional.of(new Difference(Kind.CHECKSUM_MISMATCH, key, row, object, false));
    }
    return Optional.empty();
  }

  /** The difference between a confirmed row and its object as its HEAD shows it, if any. */
  Optional<Difference> compareWithHead(LedgerItem row) {
    return compare(row, sink.head(row.objectKey()).orElse(null));
  }

  /**
   * The difference between a confirmed row and what a listing shows of its object, if any. A listed
   * object of the row's size without a checksum, where the row has one, is read again (HEAD): a
   * listing may leave checksums out.
   */
  Optional<Difference> compareListed(LedgerItem row, StoredObjectInfo listed) {
    if (listed == null || listed.sizeBytes() != row.sizeBytes() || row.checksum() == null
        || listed.checksum() != null) {
      return compare(row, listed);
    }
    return compareWithHead(row); // deleted since the listing: missing
  }

  /**
   * The difference between a playlist the ledger records as published and its object, if any. A
   * playlist never published, awaiting a newer publication or leased now is not compared: its object
   * is about to change. A repair asks for the playlist to be published again.
   */
  Optional<Difference> comparePlaylist(PlaylistRecord record, Map<String, StoredObjectInfo> objects,
      boolean repair) {
    if (record.published() == 0 || record.publishedChecksum() == null || record.awaitingPublication()
        || record.leaseOwner() != null) {
      return Optional.empty();
    }
    String key = record.multivariant() ? ObjectKeys.multivariantPlaylistKey(record.broadcastId())
        : ObjectKeys.mediaPlaylistKey(record.broadcastId(), record.rendition());
    StoredObjectInfo object = objects.get(key);
    if (object != null && object.checksum() == null) {
      object = sink.head(key).orElse(null);
    }
    Kind kind;
    if (object == null) {
      kind = Kind.PLAYLIST_MISSING;
    } else if (Checksums.contradict(object.checksum(), record.publishedChecksum())) {
      kind = Kind.PLAYLIST_DIFFERENT;
    } else {
      return Optional.empty();
    }
    boolean unchanged = store.playlists().find(record.broadcastId()).stream().anyMatch(record::equals);
    if (!unchanged) { // published again (or claimed) since it was read: its object is moving, not wrong
      return Optional.empty();
    }
    if (repair) {
      store.playlists().requestPublication(record.broadcastId(), record.rendition(), clock.instant());
    }
    return Optional.of(new Difference(kind, key, null, object, repair));
  }

  /** An unfinished upload as reported, aborted first if this is a repair and it is old enough. */
  Unfinished judge(String broadcastId, UnfinishedUpload upload, Instant checkedAt, boolean repair) {
    Duration age = upload.initiated() == null ? null
        : upload.initiated().isAfter(checkedAt) ? Duration.ZERO : Duration.between(upload.initiated(), checkedAt);
    boolean ledgerKey = ObjectKeys.idOf(upload.key()).filter(id -> id.broadcastId().equals(broadcastId)).isPresent();
    if (!repair || age == null || age.compareTo(abortUnfinishedAfter) < 0 || !ledgerKey) {
      return new Unfinished(upload, age, false, null);
    }
    try {
      boolean aborted = sink.abortUnfinishedUpload(upload);
      if (aborted) {
        log.info("reconciler aborted unfinished upload {} of {} ({} old)", upload.uploadId(), upload.key(), age);
      }
      return new Unfinished(upload, age, aborted, null);
    } catch (SinkException e) {
      log.warn("reconciler: could not abort unfinished upload {} of {}: {}", upload.uploadId(), upload.key(),
          e.getMessage());
      return new Unfinished(upload, age, false, e.getMessage());
    }
  }

  /** Re-opens the rows of {@code differences} for upload; returns them, each saying whether its row was re-opened. */
  List<Difference> reopenAll(List<Difference> differences) {
    List<Difference> repaired = new ArrayList<>(differences.size());
    for (Difference d : differences) {
      Reason reason = d.kind() == Kind.OBJECT_MISSING ? Reason.OBJECT_MISSING : Reason.OBJECT_MISMATCH;
      boolean reopened = store.reopen(d.row().rowId(), ItemState.CONFIRMED, reason,
          "reconciler: " + d.describe() + "; attempts before: " + d.row().attempts(), clock.instant());
      repaired.add(new Difference(d.kind(), d.key(), d.row(), d.object(), reopened));
    }
    return repaired;
  }

  /**
   * Whether {@code key} is a playlist of the broadcast: its multivariant or live multivariant
   * playlist, or a media playlist or live window of one of its renditions.
   */
  static boolean isPlaylistKey(String broadcastId, String key) {
    if (key.equals(ObjectKeys.multivariantPlaylistKey(broadcastId))
        || key.equals(ObjectKeys.liveMultivariantPlaylistKey(broadcastId))) {
      return true;
    }
    return isRenditionPlaylistKey(broadcastId, key, ObjectKeys.MEDIA_PLAYLIST_NAME)
        || isRenditionPlaylistKey(broadcastId, key, ObjectKeys.LIVE_PLAYLIST_NAME);
  }

  private static boolean isRenditionPlaylistKey(String broadcastId, String key, String name) {
    String prefix = ObjectKeys.broadcastPrefix(broadcastId);
    String suffix = "/" + name;
    if (!key.startsWith(prefix) || !key.endsWith(suffix) || key.length() <= prefix.length() + suffix.length()) {
      return false;
    }
    String rendition = key.substring(prefix.length(), key.length() - suffix.length());
    try {
      return key.equals(ObjectKeys.broadcastPrefix(broadcastId) + Identifiers.requireValid("rendition", rendition)
          + suffix);
    } catch (IllegalArgumentException e) {
      return false;
    }
  }
}
