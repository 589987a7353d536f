package dev.segmentledger.engine;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.segmentledger.core.Axis;
import dev.segmentledger.core.ItemId;
import dev.segmentledger.core.ItemState;
import dev.segmentledger.core.LedgerItem;
import dev.segmentledger.core.ManualLedger;
import dev.segmentledger.core.Reason;
import dev.segmentledger.core.Reconciler;
import dev.segmentledger.core.ReconciliationReport;
import dev.segmentledger.core.ReconciliationReport.Difference;
import dev.segmentledger.core.ReconciliationReport.Kind;
import dev.segmentledger.core.ReconciliationReport.Unfinished;
import dev.segmentledger.core.SinkException;
import dev.segmentledger.core.StoredObjectInfo;
import dev.segmentledger.core.UnfinishedUpload;
import dev.segmentledger.core.spi.ObjectSink;
import dev.segmentledger.core.spi.UploadContent;
import dev.segmentledger.testkit.ConsistencyAssertions;
import dev.segmentledger.testkit.ForwardingObjectSink;
import dev.segmentledger.testkit.SinkFault;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The reconciler on a manual three-axis ledger: each kind of difference found on its own axis, a
 * report-only run that changes nothing, a repair that re-opens exactly the missing and mismatched
 * rows (which the sweeper then uploads again), and orphans that are never deleted. Unfinished
 * uploads (left in the fake sink as a killed multipart upload leaves them) are reported apart from
 * the differences, and a repair aborts those at the broadcast's keys that are old enough on the
 * ledger's clock.
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
    f.sink.failNext(O0.objectKey(), SinkFault.failRetryable()); // O0 is confirmed on its second attempt
    for (int i = 0; i < 3; i++) {
      ItemId id = ItemId.original("b1", "720p", i);
      ledger.register(id, f.record(id));
    }
    LedgerFixture.settle(ledger);
    f.clock.advance(Duration.ofSeconds(2)); // past O0's backoff
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
    assertTrue(attemptsBefore > 0, "O0 needed more than one attempt: " + attemptsBefore);
    assertEquals(0, original.attempts(), "attempts start over");
    assertTrue(original.lastError().startsWith("reconciler: "), original.lastError());
    assertTrue(original.lastError().endsWith("; attempts before: " + attemptsBefore), original.lastError());
    assertEquals(Reason.OBJECT_MISMATCH, f.store.find(P1).orElseThrow().reason());
    assertEquals(Reason.OBJECT_MISMATCH, f.store.find(INIT).orElseThrow().reason());
    assertEquals(ItemState.CONFIRMED, f.store.find(ItemId.playback("b1", "720p", 0)).orElseThrow().state(),
        "rows whose object is right are not touched");

    LedgerFixture.settle(ledger);

    for (ItemId id : List.of(O0, P1, INIT)) {
      LedgerItem row = f.store.find(id).orElseThrow();
      assertEquals(ItemState.CONFIRMED, row.state(), id::toString);
      if (row.originPath() == null) {
        assertArrayEquals(Files.readAllBytes(Path.of(row.sourcePath())), f.sink.bytes(id.objectKey()).orElseThrow(),
            id::toString);
      } else { // produced again for its upload, then deleted again once confirmed
        assertFalse(Files.exists(Path.of(row.sourcePath())), id::toString);
        assertEquals(row.sizeBytes(), f.sink.bytes(id.objectKey()).orElseThrow().length, id::toString);
      }
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

  @Test
  void unfinishedUploadsAreReportedApartAndTheRepairAbortsTheOldOnesAtLedgerKeys() {
    Instant now = f.clock.instant();
    UnfinishedUpload old = f.sink.leaveUnfinishedUpload(O0.objectKey(), now.minus(Duration.ofDays(2)));
    UnfinishedUpload young = f.sink.leaveUnfinishedUpload(P1.objectKey(), now.minus(Duration.ofHours(1)));
    UnfinishedUpload stray = f.sink.leaveUnfinishedUpload(STRAY_KEY, now.minus(Duration.ofDays(3)));
    UnfinishedUpload elsewhere = f.sink.leaveUnfinishedUpload(ItemId.original("b10", "720p", 0).objectKey(),
        now.minus(Duration.ofDays(3)));

    ReconciliationReport report = ledger.reconcile("b1");

    assertTrue(report.isConsistent(), "unfinished uploads are no differences: " + report.describe());
    assertTrue(report.unfinishedUploadsListed());
    assertEquals(List.of(stray, old, young), uploads(report), "under b1/ only, in key order");
    assertEquals(List.of(Duration.ofDays(3), Duration.ofDays(2), Duration.ofHours(1)),
        report.unfinishedUploads().stream().map(Unfinished::age).toList());
    assertEquals(List.of(Optional.empty(), Optional.of(Axis.ORIGINAL), Optional.of(Axis.PLAYBACK)),
        report.unfinishedUploads().stream().map(Unfinished::axis).toList());
    assertEquals(0, report.abortedUploads());
    assertEquals(List.of(), f.sink.abortedUploads(), "a report-only run aborts nothing");
    assertTrue(report.describe().contains("3 unfinished uploads (no object; not counted as differences)"),
        report::describe);

    ReconciliationReport repair = ledger.reconcileAndRepair("b1");

    assertEquals(List.of(false, true, false), repair.unfinishedUploads().stream().map(Unfinished::aborted).toList(),
        "older than a day and at a ledger key: " + repair.describe());
    assertEquals(List.of(old), f.sink.abortedUploads());
    assertEquals(List.of(stray, young, elsewhere), f.sink.listUnfinishedUploads(""));
    assertTrue(repair.describe().contains("1 unfinished uploads aborted"), repair::describe);
    assertTrue(repair.describe().contains(old.uploadId() + ", initiated " + old.initiated() + ", PT48H old) [aborted]"),
        repair::describe);

    f.clock.advance(Duration.ofDays(1));
    ReconciliationReport later = ledger.reconcileAndRepair("b1");

    assertEquals(List.of(stray, young), uploads(later));
    assertEquals(List.of(old, young), f.sink.abortedUploads(), "a day later the young one is old enough");
    assertEquals(List.of(stray, elsewhere), f.sink.listUnfinishedUploads(""),
        "a key outside the contract, and another broadcast's upload, are never aborted");
  }

  @Test
  void theAgeLimitIsConfigurable() {
    Instant now = f.clock.instant();
    UnfinishedUpload young = f.sink.leaveUnfinishedUpload(P1.objectKey(), now.minus(Duration.ofHours(1)));
    UnfinishedUpload younger = f.sink.leaveUnfinishedUpload(O0.objectKey(), now.minus(Duration.ofMinutes(10)));

    ReconciliationReport repair = Reconciler.create(f.store, f.sink, f.clock, Duration.ofMinutes(30))
        .reconcileAndRepair("b1");

    assertEquals(1, repair.abortedUploads(), repair::describe);
    assertEquals(List.of(young), f.sink.abortedUploads());
    assertEquals(List.of(younger), f.sink.listUnfinishedUploads(""));
    assertThrows(IllegalArgumentException.class, () -> Reconciler.create(f.store, f.sink, f.clock, Duration.ZERO));
  }

  @Test
  void theLedgersAgeLimitIsABuilderSetting() {
    UnfinishedUpload young = f.sink.leaveUnfinishedUpload(P1.objectKey(), f.clock.instant().minus(Duration.ofHours(1)));
    ManualLedger eager = f.repackagingBuilder().abortUnfinishedUploadsAfter(Duration.ofMinutes(30)).buildManual();

    assertEquals(0, ledger.reconcileAndRepair("b1").abortedUploads(), "the default: a day");
    assertEquals(1, eager.reconcileAndRepair("b1").abortedUploads());
    assertEquals(List.of(young), f.sink.abortedUploads());
    assertThrows(IllegalArgumentException.class, () -> f.builder().abortUnfinishedUploadsAfter(Duration.ofSeconds(-1)));
  }

  @Test
  void aSinkWithoutUnfinishedUploadsIsReportedAsNotListed() {
    FakeBucketWithoutUnfinishedUploads bucket = new FakeBucketWithoutUnfinishedUploads(f.sink);

    ReconciliationReport report = Reconciler.create(f.store, bucket, f.clock).reconcileAndRepair("b1");

    assertTrue(report.isConsistent(), report::describe);
    assertFalse(report.unfinishedUploadsListed());
    assertTrue(report.describe().contains("unfinished uploads not listed: the sink has no unfinished uploads"),
        report::describe);
  }

  @Test
  void failedHousekeepingIsReportedAndTheRunGoesOn() {
    f.sink.delete(O0.objectKey());
    UnfinishedUpload old = f.sink.leaveUnfinishedUpload(P1.objectKey(), f.clock.instant().minus(Duration.ofDays(2)));
    ObjectSink listingFails = new ListingWithoutChecksums(f.sink) {
      @Override
      public List<UnfinishedUpload> listUnfinishedUploads(String prefix) {
        throw SinkException.permanent("LIST multipart uploads failed: HTTP 403 AccessDenied", null);
      }
    };
    ObjectSink abortFails = new ListingWithoutChecksums(f.sink) {
      @Override
      public boolean abortUnfinishedUpload(UnfinishedUpload upload) {
        throw SinkException.retryable("ABORT failed: HTTP 500 InternalError", null);
      }
    };

    ReconciliationReport notListed = Reconciler.create(f.store, listingFails, f.clock).reconcile("b1");
    ReconciliationReport notAborted = Reconciler.create(f.store, abortFails, f.clock).reconcileAndRepair("b1");

    assertEquals(List.of(Kind.OBJECT_MISSING), kinds(notListed.differences()), notListed::describe);
    assertEquals("listing failed: LIST multipart uploads failed: HTTP 403 AccessDenied",
        notListed.unfinishedUploadsNotListed());
    assertEquals(1, notAborted.reopened(), "the row is re-opened all the same: " + notAborted.describe());
    Unfinished unfinished = notAborted.unfinishedUploads().get(0);
    assertFalse(unfinished.aborted());
    assertEquals("ABORT failed: HTTP 500 InternalError", unfinished.abortFailure());
    assertTrue(notAborted.describe().contains("[abort failed: ABORT failed: HTTP 500 InternalError]"),
        notAborted::describe);
    assertEquals(List.of(old), f.sink.listUnfinishedUploads(""));
  }

  private static List<UnfinishedUpload> uploads(ReconciliationReport report) {
    return report.unfinishedUploads().stream().map(Unfinished::upload).toList();
  }

  /** Objects only: keeps the SPI's defaults for unfinished uploads, like an all-or-nothing sink. */
  private static final class FakeBucketWithoutUnfinishedUploads implements ObjectSink {
    final ObjectSink delegate;

    FakeBucketWithoutUnfinishedUploads(ObjectSink delegate) {
      this.delegate = delegate;
    }

    @Override
    public StoredObjectInfo put(String key, UploadContent content, boolean mayExist) {
      return delegate.put(key, content, mayExist);
    }

    @Override
    public Optional<StoredObjectInfo> head(String key) {
      return delegate.head(key);
    }

    @Override
    public List<StoredObjectInfo> list(String prefix) {
      return delegate.list(prefix);
    }
  }

  private static List<Kind> kinds(List<Difference> differences) {
    return differences.stream().map(Difference::kind).toList();
  }

  /** A bucket whose listing carries sizes only, as S3's does; counts HEAD requests. */
  private static class ListingWithoutChecksums extends ForwardingObjectSink {
    final ObjectSink delegate;
    final AtomicInteger heads = new AtomicInteger();

    ListingWithoutChecksums(ObjectSink delegate) {
      this.delegate = delegate;
    }

    @Override
    protected ObjectSink delegate() {
      return delegate;
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
