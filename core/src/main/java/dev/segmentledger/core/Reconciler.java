package dev.segmentledger.core;

import dev.segmentledger.core.ReconciliationReport.AxisReport;
import dev.segmentledger.core.ReconciliationReport.Difference;
import dev.segmentledger.core.ReconciliationReport.Kind;
import dev.segmentledger.core.ReconciliationReport.Unfinished;
import dev.segmentledger.core.spi.ObjectSink;
import dev.segmentledger.core.spi.PlaylistRecord;
import dev.segmentledger.core.spi.SinkException;
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
 * Compares the ledger with the bucket, one broadcast at a time, and optionally repairs the
 * ledger. The check the design ends every scenario with, made available to applications: after an
 * operator restored a bucket, after a lifecycle rule or a person deleted objects, or on a schedule.
 *
 * <p><b>What is compared.</b> The rows of the broadcast ({@link StateStore#findByBroadcast}, read
 * first) with the objects under {@link ObjectKeys#broadcastPrefix} ({@link ObjectSink#list}, read
 * second), each axis on its own. A confirmed row must have an object at its key with the row's
 * size; if both the row and the object carry a checksum they must be equal. A listing often carries
 * no checksum (S3's does not), so for each confirmed row that has a checksum while its listed
 * object has none, the object is read with {@link ObjectSink#head}: one HEAD request per such row.
 * Checksums are compared as strings in the sink's own notation, and only when both sides have one:
 * an object written behind the ledger's back without the sink's checksum (for example by a plain
 * PUT) is compared on its size alone, so a same-size replacement of that kind is not detected. A
 * missing checksum is never taken as a difference, since a sink that reports none on HEAD would
 * then have every row re-opened on every run. Every object must have a confirmed row; one that has
 * not is an orphan.
 *
 * <p><b>Repair.</b> {@link #reconcileAndRepair} re-opens every confirmed row whose object is
 * missing or different: {@link StateStore#reopen} back to {@link ItemState#PENDING} with
 * {@link Reason#OBJECT_MISSING} or {@link Reason#OBJECT_MISMATCH}, due at once, attempts kept. The
 * sweeper then uploads the row again from its file to the same key and confirms it by
 * compare-and-set, as for any unconfirmed row. If the file is gone by then, the row ends
 * {@link ItemState#REJECTED} with {@link Reason#MISSING_FILE}: reported, never silently confirmed.
 * <b>Orphans are never deleted</b> and no object is ever removed from the bucket: an orphan may be an
 * upload whose confirm is still to come, or the only copy of data the ledger has forgotten; it is
 * reported for a person to decide.
 *
 * <p><b>Unfinished uploads.</b> If the sink {@linkplain ObjectSink#supportsUnfinishedUploads()
 * supports} them, the uploads under the prefix that were started and neither completed nor aborted
 * (multipart uploads of a killed process) are listed third ({@link ObjectSink#listUnfinishedUploads})
 * and reported apart, not as differences: they hold no object, and one may be an upload in
 * progress. {@link #reconcileAndRepair} aborts those at a contract key of the broadcast whose age
 * (from their initiation to the start of the run, on this reconciler's clock) is at least the age
 * limit given to {@link #create(StateStore, ObjectSink, Clock, Duration)} (default {@link
 * #DEFAULT_ABORT_UNFINISHED_AFTER}, 1 day: far longer than any upload, so an upload in progress is
 * never aborted). Uploads of unknown age or at other keys are reported only. Aborting deletes no
 * object, only the parts of an upload nothing will complete. This housekeeping never fails a run: a
 * failed listing or abort is logged and written into the report.
 *
 * <p><b>Guarantees and limits.</b> The comparison is a snapshot of two systems read one after the
 * other, so it is exact only while the broadcast is quiet. Reading rows before objects means an
 * upload that completes meanwhile shows at worst as an orphan (reported, never acted upon), never as
 * a missing object. A re-open is a compare-and-set on {@link ItemState#CONFIRMED}: a row that changed
 * since it was read is left alone (the difference says it was not re-opened). Two reconcilers
 * repairing at once may cause one extra upload of identical bytes, the price the ledger always
 * accepts over losing work. Store and sink failures propagate unchanged (except those of the unfinished-upload
 * housekeeping, see above); a repairing run re-opens nothing unless both reads succeeded.
 *
 * <p>Immutable and thread-safe. Obtain one from {@link #create} or use {@link Ledger#reconcile} and
 * {@link Ledger#reconcileAndRepair}.
 */
public final class Reconciler {
  /** The default age from which a repairing run aborts an unfinished upload: 1 day. */
  public static final Duration DEFAULT_ABORT_UNFINISHED_AFTER = Duration.ofDays(1);

  private static final Logger log = LoggerFactory.getLogger(Reconciler.class);

  private final StateStore store;
  private final ObjectSink sink;
  private final Clock clock;
  private final Duration abortUnfinishedAfter;

  private Reconciler(StateStore store, ObjectSink sink, Clock clock, Duration abortUnfinishedAfter) {
    this.store = Objects.requireNonNull(store, "store");
    this.sink = Objects.requireNonNull(sink, "sink");
    this.clock = Objects.requireNonNull(clock, "clock");
    Objects.requireNonNull(abortUnfinishedAfter, "abortUnfinishedAfter");
    if (abortUnfinishedAfter.isNegative() || abortUnfinishedAfter.isZero()) {
      throw new IllegalArgumentException("abortUnfinishedAfter must be > 0, got " + abortUnfinishedAfter);
    }
    this.abortUnfinishedAfter = abortUnfinishedAfter;
  }

  /**
   * A reconciler of {@code store} against {@code sink}; {@code clock} dates reports and re-opens and
   * ages unfinished uploads. A repairing run aborts unfinished uploads at least {@link
   * #DEFAULT_ABORT_UNFINISHED_AFTER} old.
   */
  public static Reconciler create(StateStore store, ObjectSink sink, Clock clock) {
    return new Reconciler(store, sink, clock, DEFAULT_ABORT_UNFINISHED_AFTER);
  }

  /**
   * A reconciler like {@link #create(StateStore, ObjectSink, Clock)} whose repairing runs abort the
   * unfinished uploads at least {@code abortUnfinishedAfter} old (measured on {@code clock} against
   * the initiation time the sink reports). Choose it well above your longest upload plus the clock
   * skew between this host and the object store: an upload in progress that is aborted fails and is
   * retried (its row is never lost, but the bytes are sent again).
   *
   * @throws IllegalArgumentException if {@code abortUnfinishedAfter} is zero or negative
   */
  public static Reconciler create(StateStore store, ObjectSink sink, Clock clock, Duration abortUnfinishedAfter) {
    return new Reconciler(store, sink, clock, abortUnfinishedAfter);
  }

  /** Compares the broadcast's rows with its objects and reports every difference. Changes nothing. */
  public ReconciliationReport reconcile(String broadcastId) {
    return run(broadcastId, false);
  }

  /**
   * Compares like {@link #reconcile}, then re-opens each confirmed row whose object is missing or
   * different, so that the sweeper uploads it again, and aborts the unfinished uploads at the
   * broadcast's contract keys that are at least the age limit old. Orphans are reported, never
   * deleted.
   */
  public ReconciliationReport reconcileAndRepair(String broadcastId) {
    return run(broadcastId, true);
  }

  /**
   * One bounded step of a pass over a broadcast: at most {@link ReconcileRequest#maxChecks()} rows
   * and objects checked, for at most {@link ReconcileRequest#maxDuration()} on this reconciler's
   * clock, from {@link ReconcileRequest#cursor()}; with {@link ReconcileRequest#repair()}, repairs
   * what it found as {@link #reconcileAndRepair} does. See {@link ReconcileRequest} for the order
   * of the pass. Rows are read before the object they are compared with, and objects before the
   * row at their key, so an upload that completes meanwhile shows at worst as an orphan, as in a
   * whole run. A pass over a broadcast that changes while it runs checks each row and object as it
   * finds them: a row confirmed behind the cursor is checked by the next pass.
   *
   * @throws dev.segmentledger.core.spi.SinkException if the bucket cannot be read; what this step
   *     re-opened before stays re-opened
   */
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

  /** Whether {@code key} is the multivariant playlist of the broadcast or a media playlist of one of its renditions. */
  static boolean isPlaylistKey(String broadcastId, String key) {
    if (key.equals(ObjectKeys.multivariantPlaylistKey(broadcastId))) {
      return true;
    }
    String prefix = ObjectKeys.broadcastPrefix(broadcastId);
    String suffix = "/" + ObjectKeys.MEDIA_PLAYLIST_NAME;
    if (!key.startsWith(prefix) || !key.endsWith(suffix) || key.length() <= prefix.length() + suffix.length()) {
      return false;
    }
    String rendition = key.substring(prefix.length(), key.length() - suffix.length());
    try {
      return key.equals(ObjectKeys.mediaPlaylistKey(broadcastId, rendition));
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
          "reconciler: " + d.describe(), clock.instant());
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
