package dev.segmentledger.testkit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.segmentledger.core.Axis;
import dev.segmentledger.core.ItemId;
import dev.segmentledger.core.ItemState;
import dev.segmentledger.core.LedgerItem;
import dev.segmentledger.core.ReconciliationReport;
import dev.segmentledger.core.StoredObjectInfo;
import dev.segmentledger.core.spi.Confirmation;
import dev.segmentledger.core.spi.NewItem;
import dev.segmentledger.core.spi.ObjectSink;
import dev.segmentledger.core.spi.UploadContent;
import java.time.Instant;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.ConcurrentSkipListMap;
import org.junit.jupiter.api.Test;
import org.opentest4j.AssertionFailedError;

class ConsistencyAssertionsTest {
  private static final Instant T0 = Instant.parse("2026-01-01T00:00:00Z");

  private final InMemoryStateStore store = new InMemoryStateStore();
  private final KeySizeSink sink = new KeySizeSink();

  @Test
  void confirmedRowsWithTheirObjectsAreConsistent() {
    confirmedWithObject(ItemId.original("b1", "720p", 0), 10);
    confirmedWithObject(ItemId.playback("b1", "720p", 0), 20);
    confirmedWithObject(ItemId.init("b1", "720p"), 5);
    store.register(NewItem.pending(ItemId.original("b1", "720p", 1), "/x", 10, T0));
    sink.objects.put("b2/720p/original/0000000000.ts", 3L);

    ReconciliationReport report = ConsistencyAssertions.assertConsistent(store, sink, "b1");

    assertEquals(0, report.differences().size());
    for (Axis axis : Axis.values()) {
      assertEquals(1, report.axis(axis).confirmedRows());
      assertEquals(1, report.axis(axis).objects());
    }
  }

  @Test
  void missingObjectAndWrongSizeAreReportedOnTheirAxis() {
    confirm(store.register(NewItem.pending(ItemId.original("b1", "720p", 0), "/x", 10, T0)).item());
    confirmedWithObject(ItemId.playback("b1", "720p", 0), 20);
    sink.objects.put(ItemId.playback("b1", "720p", 0).objectKey(), 19L);

    ReconciliationReport report = ConsistencyAssertions.check(store, sink, "b1");

    assertEquals(2, report.differences().size());
    assertEquals(1, report.axis(Axis.ORIGINAL).missing().size());
    assertTrue(report.axis(Axis.PLAYBACK).mismatched().get(0).describe().contains("object has 19"));
    assertEquals(0, report.axis(Axis.INIT).differences().size());
  }

  @Test
  void objectsWithoutAConfirmedRowAndStrayKeysAreReported() {
    LedgerItem pending = store.register(NewItem.pending(ItemId.original("b1", "720p", 0), "/x", 10, T0)).item();
    sink.objects.put(pending.objectKey(), 10L);
    sink.objects.put(ItemId.init("b1", "720p").objectKey(), 7L);
    sink.objects.put("b1/720p/original/7.ts", 1L);

    ReconciliationReport report = ConsistencyAssertions.check(store, sink, "b1");

    assertEquals(3, report.differences().size());
    assertTrue(report.axis(Axis.ORIGINAL).orphans().get(0).describe().contains("is PENDING"));
    assertTrue(report.axis(Axis.INIT).orphans().get(0).describe().contains("no row"));
    assertEquals(List.of("b1/720p/original/7.ts (1 bytes)"),
        report.unrecognizedObjects().stream().map(ReconciliationReport.Difference::describe).toList());
    AssertionFailedError failure = assertThrows(AssertionFailedError.class,
        () -> ConsistencyAssertions.assertConsistent(store, sink, "b1"));
    assertTrue(failure.getMessage().contains("3 differences"), failure.getMessage());
  }

  private void confirmedWithObject(ItemId id, long size) {
    confirm(store.register(NewItem.pending(id, "/x", size, T0)).item());
    sink.objects.put(id.objectKey(), size);
  }

  private void confirm(LedgerItem row) {
    assertTrue(store.confirm(new Confirmation(row.rowId(), row.id(),
        ItemState.PENDING, row.sizeBytes(), null, T0)));
  }

  /** Keys and sizes only: all the consistency check reads. */
  private static final class KeySizeSink implements ObjectSink {
    final ConcurrentSkipListMap<String, Long> objects = new ConcurrentSkipListMap<>();

    @Override
    public StoredObjectInfo put(String key, UploadContent content, boolean mayExist) {
      objects.put(key, content.size());
      return new StoredObjectInfo(key, content.size(), null);
    }

    @Override
    public Optional<StoredObjectInfo> head(String key) {
      return Optional.ofNullable(objects.get(key)).map(size -> new StoredObjectInfo(key, size, null));
    }

    @Override
    public List<StoredObjectInfo> list(String prefix) {
      return objects.entrySet().stream().filter(e -> e.getKey().startsWith(prefix))
          .map(e -> new StoredObjectInfo(e.getKey(), e.getValue(), null)).toList();
    }
  }
}
