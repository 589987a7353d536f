package dev.segmentledger.core.internal;

import dev.segmentledger.core.Axis;
import dev.segmentledger.core.Identifiers;
import dev.segmentledger.core.ItemId;
import dev.segmentledger.core.ItemState;
import dev.segmentledger.core.LedgerItem;
import dev.segmentledger.core.ObjectKeys;
import dev.segmentledger.core.Reason;
import dev.segmentledger.core.ReconcileRequest;
import dev.segmentledger.core.ReconcileStep;
import dev.segmentledger.core.Reconciler;
import dev.segmentledger.core.ReconciliationReport;
import dev.segmentledger.core.ReconciliationReport.AxisReport;
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
import java.util.EnumMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The {@link Reconciler}: reads a broadcast's rows, then its objects, then its unfinished uploads,
 * and compares them axis by axis; a repairing run re-opens by compare-and-set and aborts old
 * unfinished uploads. Bounded steps ({@link #reconcile(ReconcileRequest)}) run through
 * {@link ReconcileSteps}. Immutable and thread-safe.
 */
public final class DefaultReconciler implements Reconciler {
  private static final Logger log = LoggerFactory.getLogger(Reconciler.class);

  private final StateStore store;
  private final ObjectSink sink;
  private final Clock clock;
  private final Duration abortUnfinishedAfter;

  /** See {@link Reconciler#create(StateStore, ObjectSink, Clock, Duration)}. */
  public DefaultReconciler(StateStore store, ObjectSink sink, Clock clock, Duration abortUnfinishedAfter) {
    this.store = Objects.requireNonNull(store, "store");
    this.sink = Objects.requireNonNull(sink, "sink");
    this.clock = Objects.requireNonNull(clock, "clock");
    Objects.requireNonNull(abortUnfinishedAfter, "abortUnfinishedAfter");
    if (abortUnfinishedAfter.isNegative() || abortUnfinishedAfter.isZero()) {
      throw new IllegalArgumentException("abortUnfinishedAfter must be > 0, got " + abortUnfinishedAfter);
    }
    this.abortUnfinishedAfter = abortUnfinishedAfter;
  }

  @Override
  public ReconciliationReport reconcile(String broadcastId) {
    return run(broadcastId, false);
  }

  @Override
  public ReconciliationReport reconcileAndRepair(String broadcastId) {
    return run(broadcastId, true);
  }

  @Override
  public ReconcileStep reconcile(ReconcileRequest request) {
    return new ReconcileSteps(this, store, sink, clock).run(request);
  }

  private ReconciliationReport run(String broadcastId, boolean repair) {
    String prefix = ObjectKeys.broadcastPrefix(broadcastId);
    Instant checkedAt = clock.instant();
    Map<String, LedgerItem> rowsByKey = new LinkedHashMap<>();
    for (LedgerItem row : store.findByBroadcast(broadcastId)) {
      rowsByKey.put(row.objectKey(), row);
    }
    // Read before the listing: a playlist recorded as published then had its object PUT before the listing.
    List<PlaylistRecord> playlistRecords = store.playlists().find(broadcastId);
    Map<String, StoredObjectInfo> objectsByKey = new LinkedHashMap<>();
    for (StoredObjectInfo object : sink.list(prefix)) {
      objectsByKey.put(object.key(), object);
    }
    List<UnfinishedUpload> uploads = List.of();
    String notListed = null;
    if (!sink.supportsUnfinishedUploads()) {
      notListed = "the sink has no unfinished uploads to list";
    } else {
      try {
        uploads = sink.listUnfinishedUploads(prefix);
      } catch (SinkException e) {
        notListed = "listing failed: " + e.getMessage();
        log.warn("reconciler: could not list the unfinished uploads of broadcast {} (the comparison goes on): {}",
            broadcastId, e.getMessage());
      }
    }

    Map<Axis, Tally> tallies = new EnumMap<>(Axis.class);
    for (Axis axis : Axis.values()) {
      tallies.put(axis, new Tally());
    }
    for (LedgerItem row : rowsByKey.values()) {
      if (row.state() == ItemState.CONFIRMED) {
        Tally tally = tallies.get(row.id().axis());
        tally.confirmedRows++;
        compare(row, objectsByKey.get(row.objectKey())).ifPresent(d ->
            (d.kind() == Kind.OBJECT_MISSING ? tally.missing : tally.mismatched).add(d));
      }
    }
    List<Difference> unrecognized = new ArrayList<>();
    List<Difference> playlists = new ArrayList<>();
    for (PlaylistRecord record : playlistRecords) {
      comparePlaylist(record, objectsByKey, repair).ifPresent(playlists::add);
    }
    for (StoredObjectInfo object : objectsByKey.values()) {
      Optional<ItemId> id = ObjectKeys.idOf(object.key()).filter(i -> i.broadcastId().equals(broadcastId));
      if (id.isEmpty() && isPlaylistKey(broadcastId, object.key())) {
        continue; // a playlist: compared with its record above
      }
      if (id.isEmpty()) {
        unrecognized.add(new Difference(Kind.UNRECOGNIZED_KEY, object.key(), null, object, false));
        continue;
      }
      Tally tally = tallies.get(id.get().axis());
      tally.objects++;
      LedgerItem row = rowsByKey.get(object.key());
      if (row == null || row.state() != ItemState.CONFIRMED) {
        tally.orphans.add(new Difference(Kind.ORPHAN, object.key(), row, object, false));
      }
    }

    Map<Axis, AxisReport> axes = new EnumMap<>(Axis.class);
    tallies.forEach((axis, tally) -> axes.put(axis, new AxisReport(axis, tally.confirmedRows, tally.objects,
        repair ? reopenAll(tally.missing) : tally.missing, repair ? reopenAll(tally.mismatched) : tally.mismatched,
        tally.orphans)));
    List<Unfinished> unfinished = new ArrayList<>(uploads.size());
    for (UnfinishedUpload upload : uploads) {
      unfinished.add(judge(broadcastId, upload, checkedAt, repair));
    }
    return new ReconciliationReport(broadcastId, checkedAt, repair, axes, unrecognized, unfinished, notListed,
        playlists);
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
    } else if (object.checksum() != null && !object.checksum().equals(record.publishedChecksum())) {
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

  /** The difference between a confirmed row and what its listing shows, if any. */
  private Optional<Difference> compare(LedgerItem row, StoredObjectInfo listed) {
    String key = row.objectKey();
    if (listed == null) {
      return Optional.of(new Difference(Kind.OBJECT_MISSING, key, row, null, false));
    }
    if (listed.sizeBytes() != row.sizeBytes()) {
      return Optional.of(new Difference(Kind.SIZE_MISMATCH, key, row, listed, false));
    }
    if (row.checksum() == null) {
      return Optional.empty();
    }
    StoredObjectInfo object = listed;
    if (object.checksum() == null) {
      Optional<StoredObjectInfo> head = sink.head(key);
      if (head.isEmpty()) { // deleted since the listing
        return Optional.of(new Difference(Kind.OBJECT_MISSING, key, row, null, false));
      }
      object = head.get();
      if (object.sizeBytes() != row.sizeBytes()) {
        return Optional.of(new Difference(Kind.SIZE_MISMATCH, key, row, object, false));
      }
    }
    if (object.checksum() != null && !object.checksum().equals(row.checksum())) {
      return Optional.of(new Difference(Kind.CHECKSUM_MISMATCH, key, row, object, false));
    }
    return Optional.empty();
  }

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

  private static final class Tally {
    int confirmedRows;
    int objects;
    final List<Difference> missing = new ArrayList<>();
    final List<Difference> mismatched = new ArrayList<>();
    final List<Difference> orphans = new ArrayList<>();
  }
}
