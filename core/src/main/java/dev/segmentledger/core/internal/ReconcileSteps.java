package dev.segmentledger.core.internal;

import dev.segmentledger.core.Axis;
import dev.segmentledger.core.ItemId;
import dev.segmentledger.core.ItemState;
import dev.segmentledger.core.LedgerItem;
import dev.segmentledger.core.ObjectKeys;
import dev.segmentledger.core.ReconcileRequest;
import dev.segmentledger.core.ReconcileStep;
import dev.segmentledger.core.ReconciliationReport;
import dev.segmentledger.core.ReconciliationReport.AxisReport;
import dev.segmentledger.core.ReconciliationReport.Difference;
import dev.segmentledger.core.ReconciliationReport.Kind;
import dev.segmentledger.core.ReconciliationReport.Unfinished;
import dev.segmentledger.core.SinkException;
import dev.segmentledger.core.StoredObjectInfo;
import dev.segmentledger.core.UnfinishedUpload;
import dev.segmentledger.core.query.Page;
import dev.segmentledger.core.query.RowQuery;
import dev.segmentledger.core.spi.ObjectSink;
import dev.segmentledger.core.spi.PlaylistRecord;
import dev.segmentledger.core.spi.StateStore;
import java.time.Clock;
import java.time.Instant;
import java.util.ArrayList;
import java.util.EnumMap;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * One bounded step of a reconcile pass ({@link ReconcileRequest}), for {@link DefaultReconciler}.
 *
 * <p>Design: a pass is cut where the work is cheap to resume. Rows are read by keyset page (the
 * store's {@code findRows}, CONFIRMED rows of the broadcast in row id order), and each is compared
 * with a HEAD of its key, so the cursor is the last row id checked. Objects are listed after the
 * last key checked ({@link ObjectSink#list(String, String, int)}), and each is compared with the
 * row at its identity ({@code StateStore.find}), so the cursor is that key. The playlists and
 * unfinished uploads of the broadcast are few and are checked in one go at the end. Every row and
 * object costs one check of the budget; the step stops before the check that would exceed the
 * count or start after the deadline. Nothing is kept between steps but the cursor text.
 */
final class ReconcileSteps {
  private static final int ROW_PAGE = 500;
  private static final int LIST_PAGE = 1_000;

  private final ReconcileComparisons comparisons;
  private final StateStore store;
  private final ObjectSink sink;
  private final Clock clock;
  private final Map<Axis, Tally> tallies = new EnumMap<>(Axis.class);
  private final List<Difference> unrecognized = new ArrayList<>();
  private long rowsChecked;
  private long objectsChecked;
  private Budget budget;

  ReconcileSteps(ReconcileComparisons comparisons, StateStore store, ObjectSink sink, Clock clock) {
    this.comparisons = comparisons;
    this.store = store;
    this.sink = sink;
    this.clock = clock;
    for (Axis axis : Axis.values()) {
      tallies.put(axis, new Tally());
    }
  }

  ReconcileStep run(ReconcileRequest request) {
    String broadcastId = request.broadcastId();
    Instant checkedAt = clock.instant();
    budget = new Budget(request.maxChecks(), checkedAt.plus(request.maxDuration()));
    ReconcileCursor cursor = request.cursor().map(c -> ReconcileCursor.parse(broadcastId, c))
        .orElse(ReconcileCursor.START);
    if (cursor.phase() == ReconcileCursor.Phase.ROWS) {
      cursor = checkRows(broadcastId, cursor.afterRowId());
    }
    if (cursor.phase() == ReconcileCursor.Phase.OBJECTS && budget.stop == null) {
      cursor = checkObjects(broadcastId, cursor.afterKey());
    }
    List<Difference> playlists = new ArrayList<>();
    List<Unfinished> unfinished = new ArrayList<>();
    String notListed = "listed by the step that ends the pass";
    boolean complete = false;
    if (cursor.phase() == ReconcileCursor.Phase.FINAL && budget.stop == null && budget.inTime()) {
      notListed = checkPlaylistsAndUploads(broadcastId, checkedAt, request.repair(), playlists, unfinished);
      complete = true;
    }
    boolean repair = request.repair();
    Map<Axis, AxisReport> axes = new EnumMap<>(Axis.class);
    tallies.forEach((axis, tally) -> axes.put(axis, new AxisReport(axis, tally.rows, tally.objects,
        repair ? comparisons.reopenAll(tally.missing) : tally.missing,
        repair ? comparisons.reopenAll(tally.mismatched) : tally.mismatched, tally.orphans)));
    ReconciliationReport report = new ReconciliationReport(broadcastId, checkedAt, repair, axes, unrecognized,
        unfinished, notListed, playlists);
    if (complete) {
      return new ReconcileStep(report, rowsChecked, objectsChecked, Optional.empty(), ReconcileStep.Stop.COMPLETE);
    }
    ReconcileStep.Stop stop = budget.stop == null ? ReconcileStep.Stop.TIME_LIMIT : budget.stop;
    return new ReconcileStep(report, rowsChecked, objectsChecked, Optional.of(cursor.text()), stop);
  }

  /** CONFIRMED rows after {@code afterRowId}, each against a HEAD of its key; returns where to go on. */
  private ReconcileCursor checkRows(String broadcastId, long afterRowId) {
    long after = afterRowId;
    while (true) {
      int want = Math.min(ROW_PAGE, budget.remaining());
      if (want == 0) {
        budget.take(); // records the stop
        return ReconcileCursor.rowsAfter(after);
      }
      Page<LedgerItem> page = store.findRows(RowQuery.builder().broadcastId(broadcastId).states(ItemState.CONFIRMED)
          .order(RowQuery.Order.OLDEST_FIRST).after(after).limit(want).build());
      for (LedgerItem row : page.items()) {
        if (!budget.take()) {
          return ReconcileCursor.rowsAfter(after);
        }
        Tally tally = tallies.get(row.id().axis());
        tally.rows++;
        rowsChecked++;
        comparisons.compareWithHead(row).ifPresent(d -> (d.kind() == Kind.OBJECT_MISSING ? tally.missing : tally.mismatched).add(d));
        after = row.rowId();
      }
      if (!page.hasNext()) {
        return ReconcileCursor.objectsAfter(null);
      }
    }
  }

  /** Objects after {@code afterKey}, each against the row at its identity; returns where to go on. */
  private ReconcileCursor checkObjects(String broadcastId, String afterKey) {
    String prefix = ObjectKeys.broadcastPrefix(broadcastId);
    String after = afterKey;
    while (true) {
      int want = Math.min(LIST_PAGE, budget.remaining());
      if (want == 0) {
        budget.take();
        return ReconcileCursor.objectsAfter(after);
      }
      List<StoredObjectInfo> objects = sink.list(prefix, after, want);
      for (StoredObjectInfo object : objects) {
        if (ReconcileComparisons.isPlaylistKey(broadcastId, object.key())) {
          after = object.key(); // compared with its record at the end of the pass
          continue;
        }
        if (!budget.take()) {
          return ReconcileCursor.objectsAfter(after);
        }
        after = object.key();
        objectsChecked++;
        Optional<ItemId> id = ObjectKeys.idOf(object.key()).filter(i -> i.broadcastId().equals(broadcastId));
        if (id.isEmpty()) {
          unrecognized.add(new Difference(Kind.UNRECOGNIZED_KEY, object.key(), null, object, false));
          continue;
        }
        Tally tally = tallies.get(id.get().axis());
        tally.objects++;
        LedgerItem row = store.find(id.get()).orElse(null);
        if (row == null || row.state() != ItemState.CONFIRMED || !row.objectKey().equals(object.key())) {
          tally.orphans.add(new Difference(Kind.ORPHAN, object.key(), row, object, false));
        }
      }
      if (objects.size() < want) {
        return ReconcileCursor.finalPhase();
      }
    }
  }

  /** The end of the pass: playlists and unfinished uploads; returns why uploads were not listed, or null. */
  private String checkPlaylistsAndUploads(String broadcastId, Instant checkedAt, boolean repair,
      List<Difference> playlists, List<Unfinished> unfinished) {
    List<PlaylistRecord> records = store.playlists().find(broadcastId);
    Map<String, StoredObjectInfo> objects = new HashMap<>();
    for (PlaylistRecord record : records) {
      String key = record.multivariant() ? ObjectKeys.multivariantPlaylistKey(broadcastId)
          : ObjectKeys.mediaPlaylistKey(broadcastId, record.rendition());
      sink.head(key).ifPresent(object -> objects.put(key, object));
    }
    for (PlaylistRecord record : records) {
      comparisons.comparePlaylist(record, objects, repair).ifPresent(playlists::add);
    }
    if (!sink.supportsUnfinishedUploads()) {
      return "the sink has no unfinished uploads to list";
    }
    try {
      for (UnfinishedUpload upload : sink.listUnfinishedUploads(ObjectKeys.broadcastPrefix(broadcastId))) {
        unfinished.add(comparisons.judge(broadcastId, upload, checkedAt, repair));
      }
      return null;
    } catch (SinkException e) {
      return "listing failed: " + e.getMessage();
    }
  }

  /** The checks left and the deadline; remembers why it refused the first check it refused. */
  private final class Budget {
    private final Instant deadline;
    private int left;
    private ReconcileStep.Stop stop;

    Budget(int checks, Instant deadline) {
      this.left = checks;
      this.deadline = deadline;
    }

    int remaining() {
      return left;
    }

    boolean inTime() {
      return clock.instant().isBefore(deadline);
    }

    /** Takes one check: false (and the reason kept) once the count is spent or the deadline passed. */
    boolean take() {
      if (stop != null) {
        return false;
      }
      if (left == 0) {
        stop = ReconcileStep.Stop.CHECK_LIMIT;
        return false;
      }
      if (!inTime()) {
        stop = ReconcileStep.Stop.TIME_LIMIT;
        return false;
      }
      left--;
      return true;
    }
  }

  private static final class Tally {
    int rows;
    int objects;
    final List<Difference> missing = new ArrayList<>();
    final List<Difference> mismatched = new ArrayList<>();
    final List<Difference> orphans = new ArrayList<>();
  }
}
