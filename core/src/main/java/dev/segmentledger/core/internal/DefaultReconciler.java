package dev.segmentledger.core.internal;

import dev.segmentledger.core.Axis;
import dev.segmentledger.core.ItemId;
import dev.segmentledger.core.ItemState;
import dev.segmentledger.core.LedgerItem;
import dev.segmentledger.core.ObjectKeys;
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
 * and compares them axis by axis ({@link ReconcileComparisons}, shared with the bounded steps); a
 * repairing run re-opens by compare-and-set and aborts old unfinished uploads. Bounded steps ({@link #reconcile(ReconcileRequest)}) run through
 * {@link ReconcileSteps}. Immutable and thread-safe.
 */
public final class DefaultReconciler implements Reconciler {
  private static final Logger log = LoggerFactory.getLogger(Reconciler.class);

  private final StateStore store;
  private final ObjectSink sink;
  private final Clock clock;
  private final ReconcileComparisons comparisons;

  /** See {@link Reconciler#create(StateStore, ObjectSink, Clock, Duration)}. */
  public DefaultReconciler(StateStore store, ObjectSink sink, Clock clock, Duration abortUnfinishedAfter) {
    this.store = Objects.requireNonNull(store, "store");
    this.sink = Objects.requireNonNull(sink, "sink");
    this.clock = Objects.requireNonNull(clock, "clock");
    Objects.requireNonNull(abortUnfinishedAfter, "abortUnfinishedAfter");
    if (abortUnfinishedAfter.isNegative() || abortUnfinishedAfter.isZero()) {
      throw new IllegalArgumentException("abortUnfinishedAfter must be > 0, got " + abortUnfinishedAfter);
    }
    this.comparisons = new ReconcileComparisons(store, sink, clock, abortUnfinishedAfter);
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
    return new ReconcileSteps(comparisons, store, sink, clock).run(request);
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
        comparisons.compareListed(row, objectsByKey.get(row.objectKey())).ifPresent(d ->
            (d.kind() == Kind.OBJECT_MISSING ? tally.missing : tally.mismatched).add(d));
      }
    }
    List<Difference> unrecognized = new ArrayList<>();
    List<Difference> playlists = new ArrayList<>();
    for (PlaylistRecord record : playlistRecords) {
      comparisons.comparePlaylist(record, objectsByKey, repair).ifPresent(playlists::add);
    }
    for (StoredObjectInfo object : objectsByKey.values()) {
      Optional<ItemId> id = ObjectKeys.idOf(object.key()).filter(i -> i.broadcastId().equals(broadcastId));
      if (id.isEmpty() && ReconcileComparisons.isPlaylistKey(broadcastId, object.key())) {
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
        repair ? comparisons.reopenAll(tally.missing) : tally.missing,
        repair ? comparisons.reopenAll(tally.mismatched) : tally.mismatched,
        tally.orphans)));
    List<Unfinished> unfinished = new ArrayList<>(uploads.size());
    for (UnfinishedUpload upload : uploads) {
      unfinished.add(comparisons.judge(broadcastId, upload, checkedAt, repair));
    }
    return new ReconciliationReport(broadcastId, checkedAt, repair, axes, unrecognized, unfinished, notListed,
        playlists);
  }

  private static final class Tally {
    int confirmedRows;
    int objects;
    final List<Difference> missing = new ArrayList<>();
    final List<Difference> mismatched = new ArrayList<>();
    final List<Difference> orphans = new ArrayList<>();
  }
}
