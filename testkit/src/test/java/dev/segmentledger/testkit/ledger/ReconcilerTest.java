package dev.segmentledger.testkit.ledger;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.segmentledger.core.Axis;
import dev.segmentledger.core.ItemId;
import dev.segmentledger.core.ItemState;
import dev.segmentledger.core.LedgerItem;
import dev.segmentledger.core.ManualLedger;
import dev.segmentledger.core.Reason;
import dev.segmentledger.core.ReconciliationReport;
import dev.segmentledger.core.ReconciliationReport.Difference;
import dev.segmentledger.core.ReconciliationReport.Kind;
import dev.segmentledger.core.Reconciler;
import dev.segmentledger.core.StoredObjectInfo;
import dev.segmentledger.core.spi.ObjectSink;
import dev.segmentledger.core.spi.UploadContent;
import dev.segmentledger.testkit.ConsistencyAssertions;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The reconciler on a manual three-axis ledger: each kind of difference found on its own axis, a
 * report-only run that changes nothing, a repair that re-opens exactly the missing and mismatched
 * rows (which the sweeper then uploads again), and orphans that are never deleted.
 */
class ReconcilerTest {
  private static final ItemId O0 = ItemId.original("b1", "720p", 0);
  private static final ItemId P1 = ItemId.playback("b1", "720p", 1);
  private static final ItemId INIT = ItemId.init("b1", "720p");
  private static final String ORPHAN_KEY = ItemId.original("b1", "720p", 9).objectKey();
  private static final String STRAY_KEY = "b1/720p/notes.txt";

  @TempDir Path temp;
  private LedgerFixture f;
  private ManualLedger ledger;

  @BeforeEach
  void settledBroadcast() {
    f = new LedgerFixture(temp);
    ledger = f.repackagingBuilder().buildManual();
    for (int i = 0; i < 3; i++) {
      ItemId id = ItemId.original("b1", "720p", i);
      ledger.register(id, f.record(id));
    }
    LedgerFixture.settle(ledger);
    ConsistencyAssertions.assertConsistent(f.store, f.sink, "b1");
  }

  /** An object deleted, one overwritten with other bytes of the same size, one cut short; an orphan, a stray key. */
  private void damageTheBucket() {
    f.sink.delete(O0.objectKey());
    byte[] playback = f.sink.bytes(P1.objectKey()).orElseThrow();
    playback[0] ^= 1;
    f.sink.seed(P1.objectKey(), playback);
    byte[] init = f.sink.bytes(INIT.objectKey()).orElseThrow();
    f.sink.seed(INIT.objectKey(), java.util.Arrays.copyOf(init, init.length - 1));
    f.sink.seed(ORPHAN_KEY, new byte[] {1, 2, 3});
    f.sink.seed(STRAY_KEY, new byte[] {4});
  }

  @Test
  void eachDifferenceIsReportedOnItsAxisAndAReportChangesNothing() {
    damageTheBucket();
    List<LedgerItem> before = f.store.findByBroadcast("b1");

    ReconciliationReport report = ledger.reconcile("b1");

    assertEquals(before, f.store.findByBroadcast("b1"), "a report-only run changes no row");
    assertFalse(report.repair());
    assertEquals(5, report.differences().size(), report::describe);
    assertEquals(0, report.reopened());
    assertEquals(List.of(Kind.OBJECT_MISSING), kinds(report.axis(Axis.ORIGINAL).missing()));
    assertEquals(List.of(Kind.ORPHAN), kinds(report.axis(Axis.ORIGINAL).orphans()));
    assertEquals(List.of(Kind.CHECKSUM_MISMATCH), kinds(report.axis(Axis.PLAYBACK).mismatched()));
    assertEquals(List.of(Kind.SIZE_MISMATCH), kinds(report.axis(Axis.INIT).mismatched()));
    assertEquals(List.of(STRAY_KEY), report.unrecognizedObjects().stream().map(Difference::key).toList());
    assertEquals(3, report.axis(Axis.ORIGINAL).confirmedRows());
    assertEquals(3, report.axis(Axis.ORIGINAL).objects(), "two of the three plus the orphan");
    Difference orphan = report.axis(Axis.ORIGINAL).orphans().get(0);
    assertNull(orphan.row());
    assertEquals(Optional.of(Axis.ORIGINAL), orphan.axis());
    String text = report.describe();
    assertTrue(text.contains("5 differences"), text);
    assertTrue(text.contains(O0.objectKey() + " (row "), text);
    assertTrue(text.contains("no object") && text.contains("row checksum") && text.contains("object has "), text);
    assertTrue(text.contains(ORPHAN_KEY + " (3 bytes): no row"), text);
  }

  /** Keys listed from the bucket are outside input: a report shows them escaped, one line per difference. */
  @Test
  void aHostileKeyInTheBucketIsEscapedInTheReport() {
    String hostile = "b1/720p/x\nINFO forged line \u2028\u202e\u0085.ts";
    f.sink.seed(hostile, new byte[] {5});

    ReconciliationReport report = ledger.reconcile("b1");

    assertEquals(List.of(hostile), report.unrecognizedObjects().stream().map(Difference::key).toList(),
        "the key itself is kept as listed");
    String line = report.unrecognizedObjects().get(0).describe();
    assertEquals("b1/720p/x\\u000aINFO forged line \\u2028\\u202e\\u0085.ts (1 bytes)", line);
    assertEquals(List.of(line), report.describe().lines().filter(l -> l.contains("forged")).map(String::strip)
        .map(l -> l.substring(l.indexOf(": ") + 2)).toList());
  }

  @Test
  void repairReopensMissingAndMismatchedRowsTheSweeperUploadsThemAgainAndOrphansStay() throws Exception {
    damageTheBucket();
    int attemptsBefore = f.store.find(O0).orElseThrow().attempts();

    ReconciliationReport report = ledger.reconcileAndRepair("b1");

    assertTrue(report.repair());
    assertEquals(3, report.reopened(), report::describe);
    assertTrue(report.describe().contains("3 rows re-opened for upload"), report::describe);
    LedgerItem original = f.store.find(O0).orElseThrow();
    assertEquals(ItemState.PENDING, original.state());
    assertEquals(Reason.OBJECT_MISSING, original.reason());
    assertEquals(attemptsBefore, original.attempts(), "attempts kept");
    assertTrue(original.lastError().startsWith("reconciler: "), original.lastError());
    assertEquals(Reason.OBJECT_MISMATCH, f.store.find(P1).orElseThrow().reason());
    assertEquals(Reason.OBJECT_MISMATCH, f.store.find(INIT).orElseThrow().reason());
    assertEquals(ItemState.CONFIRMED, f.store.find(ItemId.playback("b1", "720p", 0)).orElseThrow().state(),
        "rows whose object is right are not touched");

    LedgerFixture.settle(ledger);

    for (ItemId id : List.of(O0, P1, INIT)) {
      LedgerItem row = f.store.find(id).orElseThrow();
      assertEquals(ItemState.CONFIRMED, row.state(), id::toString);
      assertArrayEquals(Files.readAllBytes(Path.of(row.sourcePath())), f.sink.bytes(id.objectKey()).orElseThrow(),
          id::toString);
    }
    ReconciliationReport after = ledger.reconcileAndRepair("b1");
    assertEquals(List.of(Kind.ORPHAN, Kind.UNRECOGNIZED_KEY), kinds(after.differences()), after::describe);
    assertEquals(0, after.reopened());
    assertArrayEquals(new byte[] {1, 2, 3}, f.sink.bytes(ORPHAN_KEY).orElseThrow(), "orphans are never deleted");
    assertArrayEquals(new byte[] {4}, f.sink.bytes(STRAY_KEY).orElseThrow());
    assertTrue(f.store.find(ItemId.original("b1", "720p", 9)).isEmpty(), "an orphan gets no row either");
  }

  @Test
  void checksumsAreReadByHeadWhenTheListingHasNone() {
    byte[] playback = f.sink.bytes(P1.objectKey()).orElseThrow();
    playback[playback.length - 1] ^= 1;
    f.sink.seed(P1.objectKey(), playback);
    ListingWithoutChecksums bucket = new ListingWithoutChecksums(f.sink);

    ReconciliationReport report = Reconciler.create(f.store, bucket, f.clock).reconcile("b1");

    assertEquals(List.of(Kind.CHECKSUM_MISMATCH), kinds(report.differences()), report::describe);
    assertEquals(f.store.findByBroadcast("b1").stream().filter(r -> r.checksum() != null).count(), bucket.heads.get(),
        "one HEAD per confirmed row with a checksum");
  }

  @Test
  void aRowThatChangedSinceItWasReadIsNotReopened() {
    f.sink.delete(O0.objectKey());
    LedgerItem row = f.store.find(O0).orElseThrow();
    // Another reconciler re-opens the row between this one's read of the rows and its listing.
    ObjectSink racing = new ListingWithoutChecksums(f.sink) {
      @Override
      public List<StoredObjectInfo> list(String prefix) {
        assertTrue(f.store.reopen(row.rowId(), ItemState.CONFIRMED, Reason.OBJECT_MISSING, "the other one", f.clock.instant()));
        return f.sink.list(prefix);
      }
    };

    ReconciliationReport report = Reconciler.create(f.store, racing, f.clock).reconcileAndRepair("b1");

    Difference missing = report.axis(Axis.ORIGINAL).missing().get(0);
    assertFalse(missing.reopened(), report::describe);
    assertEquals(0, report.reopened());
    assertEquals("the other one", f.store.find(O0).orElseThrow().lastError());
  }

  private static List<Kind> kinds(List<Difference> differences) {
    return differences.stream().map(Difference::kind).toList();
  }

  /** A bucket whose listing carries sizes only, as S3's does; counts HEAD requests. */
  private static class ListingWithoutChecksums implements ObjectSink {
    final ObjectSink delegate;
    final AtomicInteger heads = new AtomicInteger();

    ListingWithoutChecksums(ObjectSink delegate) {
      this.delegate = delegate;
    }

    @Override
    public StoredObjectInfo put(String key, UploadContent content, boolean mayExist) {
      return delegate.put(key, content, mayExist);
    }

    @Override
    public Optional<StoredObjectInfo> head(String key) {
      heads.incrementAndGet();
      return delegate.head(key);
    }

    @Override
    public List<StoredObjectInfo> list(String prefix) {
      return delegate.list(prefix).stream().map(o -> new StoredObjectInfo(o.key(), o.sizeBytes(), null)).toList();
    }
  }
}
