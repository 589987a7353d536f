package dev.segmentledger.testkit;

import dev.segmentledger.core.Axis;
import dev.segmentledger.core.ItemId;
import dev.segmentledger.core.ItemState;
import dev.segmentledger.core.LedgerItem;
import dev.segmentledger.core.ObjectKeys;
import dev.segmentledger.core.StoredObjectInfo;
import dev.segmentledger.core.spi.ObjectSink;
import dev.segmentledger.core.spi.StateStore;
import java.util.ArrayList;
import java.util.EnumMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.api.Assertions;

/**
 * The end-of-scenario check of the design: every CONFIRMED row of a broadcast has an object at its
 * key with the registered size, and every object under the broadcast's prefix has a CONFIRMED row.
 * Each axis is compared on its own.
 *
 * <p>Reads the store once ({@link StateStore#findByBroadcast}) and lists the sink once
 * ({@link ObjectSink#list} of {@link ObjectKeys#broadcastPrefix}). Stateless and thread-safe, but
 * the comparison is only meaningful once the ledger is quiet (no upload in flight).
 */
public final class ConsistencyAssertions {
  private ConsistencyAssertions() {}

  /** Compares the ledger rows of {@code broadcastId} with the objects under its prefix. */
  public static ConsistencyReport check(StateStore store, ObjectSink sink, String broadcastId) {
    Map<String, LedgerItem> rowsByKey = new LinkedHashMap<>();
    for (LedgerItem row : store.findByBroadcast(broadcastId)) {
      rowsByKey.put(row.objectKey(), row);
    }
    Map<String, StoredObjectInfo> objectsByKey = new LinkedHashMap<>();
    for (StoredObjectInfo object : sink.list(ObjectKeys.broadcastPrefix(broadcastId))) {
      objectsByKey.put(object.key(), object);
    }

    Map<Axis, Tally> tallies = new EnumMap<>(Axis.class);
    for (Axis axis : Axis.values()) {
      tallies.put(axis, new Tally());
    }
    for (LedgerItem row : rowsByKey.values()) {
      if (row.state() != ItemState.CONFIRMED) {
        continue;
      }
      Tally tally = tallies.get(row.id().axis());
      tally.confirmedRows++;
      StoredObjectInfo object = objectsByKey.get(row.objectKey());
      if (object == null) {
        tally.confirmedWithoutObject.add(row.objectKey() + " (row " + row.rowId() + ", " + row.sizeBytes()
            + " bytes): no object");
      } else if (object.sizeBytes() != row.sizeBytes()) {
        tally.confirmedWithoutObject.add(row.objectKey() + " (row " + row.rowId() + "): row has "
            + row.sizeBytes() + " bytes, object has " + object.sizeBytes());
      }
    }
    List<String> unrecognized = new ArrayList<>();
    for (StoredObjectInfo object : objectsByKey.values()) {
      Optional<ItemId> id = ObjectKeyParser.parse(object.key());
      if (id.isEmpty() || !id.get().broadcastId().equals(broadcastId)) {
        unrecognized.add(object.key() + " (" + object.sizeBytes() + " bytes)");
        continue;
      }
      Tally tally = tallies.get(id.get().axis());
      tally.objects++;
      LedgerItem row = rowsByKey.get(object.key());
      if (row == null) {
        tally.objectsWithoutConfirmedRow.add(object.key() + " (" + object.sizeBytes() + " bytes): no row");
      } else if (row.state() != ItemState.CONFIRMED) {
        tally.objectsWithoutConfirmedRow.add(object.key() + " (" + object.sizeBytes() + " bytes): row "
            + row.rowId() + " is " + row.state());
      }
    }

    Map<Axis, ConsistencyReport.AxisReport> axes = new EnumMap<>(Axis.class);
    tallies.forEach((axis, tally) -> axes.put(axis, new ConsistencyReport.AxisReport(axis, tally.confirmedRows,
        tally.objects, tally.confirmedWithoutObject, tally.objectsWithoutConfirmedRow)));
    return new ConsistencyReport(broadcastId, axes, unrecognized);
  }

  /**
   * {@linkplain #check Checks} the broadcast and fails the test with the full listing unless there
   * is no difference.
   *
   * @return the report, for further assertions on the counts
   */
  public static ConsistencyReport assertConsistent(StateStore store, ObjectSink sink, String broadcastId) {
    ConsistencyReport report = check(store, sink, broadcastId);
    if (!report.isConsistent()) {
      Assertions.fail(report.describe());
    }
    return report;
  }

  private static final class Tally {
    int confirmedRows;
    int objects;
    final List<String> confirmedWithoutObject = new ArrayList<>();
    final List<String> objectsWithoutConfirmedRow = new ArrayList<>();
  }
}
