package dev.segmentledger.it;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.segmentledger.core.Axis;
import dev.segmentledger.core.ItemId;
import dev.segmentledger.core.ItemState;
import dev.segmentledger.core.Ledger;
import dev.segmentledger.core.LedgerItem;
import dev.segmentledger.core.Reason;
import dev.segmentledger.core.Reconciler;
import dev.segmentledger.core.ReconciliationReport.Difference;
import dev.segmentledger.core.ReconciliationReport.Kind;
import dev.segmentledger.core.ReconciliationReport.Unfinished;
import dev.segmentledger.core.ReconciliationReport;
import dev.segmentledger.jdbi.JdbiStateStore;
import dev.segmentledger.s3.ConditionalWrites;
import dev.segmentledger.s3.S3ObjectSink;
import dev.segmentledger.s3.S3TestServer;
import dev.segmentledger.testkit.ConsistencyAssertions;
import dev.segmentledger.testkit.FakeRepackager;
import dev.segmentledger.testkit.LedgerEvents;
import dev.segmentledger.testkit.PostgresExtension;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.util.Comparator;
import java.util.List;
import org.jdbi.v3.core.Jdbi;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.RepeatedTest;
import org.junit.jupiter.api.RepetitionInfo;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;
import software.amazon.awssdk.core.sync.RequestBody;
import software.amazon.awssdk.services.s3.S3Client;
import software.amazon.awssdk.services.s3.model.MultipartUpload;

/**
 * The reconciler end to end on real PostgreSQL and the S3 sink on S3Proxy: objects deleted or
 * replaced behind the ledger's back are reported, the repair re-opens their rows, the running
 * ledger's sweeper uploads them again, and the consistency check holds. Orphans are reported and
 * never deleted. Unfinished multipart uploads under the broadcast (as a killed process leaves them)
 * are reported apart from the differences, and a repair aborts those at the broadcast's keys once
 * they are older than the reconciler's age limit. Five runs each, every run on a broadcast of its
 * own.
 *
 * <p>S3Proxy (in-memory {@code transient-nio2} store) answers ListMultipartUploads and
 * AbortMultipartUpload like S3, but reports an upload's {@code Initiated} as the time of the
 * listing: every upload looks new. The reconciler ages uploads on its injected clock, so the test
 * runs the "a day later" repair with a clock two days ahead. With {@code -Prgw} the test runs against
 * the external endpoint instead ({@link S3TestServer}; .ci/run uses Ceph RGW), which reports the
 * real creation time; the clock two days ahead ages those uploads the same way.
 */
@Tag("long") // an end-to-end scenario of 20 s or more: the long profile runs it (tests/README.md)
class ReconcileOnS3Test {
  @RegisterExtension static final PostgresExtension PG = PostgresExtension.create();
  private static final Duration CONVERGE = Duration.ofSeconds(30);
  private static JdbiStateStore store;
  private static S3TestServer server;
  private static S3Client s3;

  @TempDir Path temp;
  private Path root;
  private String bucket;
  private S3ObjectSink sink;
  private final LedgerEvents events = new LedgerEvents();

  @BeforeAll
  static void start() throws Exception {
    store = JdbiStateStore.create(Jdbi.create(PG.dataSource())).migrate();
    server = S3TestServer.start();
    s3 = server.clientTo(server.endpoint(), Duration.ofSeconds(30));
  }

  @AfterAll
  static void stop() throws Exception {
    s3.close();
    server.close();
  }

  @BeforeEach
  void setUp() throws Exception {
    root = Files.createDirectories(temp.resolve("root")).toRealPath();
    bucket = server.createBucket(s3);
    sink = S3ObjectSink.builder().client(s3).bucket(bucket).build();
  }

  private static String broadcast(String scenario, RepetitionInfo run) {
    return scenario + "-run" + run.getCurrentRepetition() + "-" + Long.toString(System.nanoTime(), 36);
  }

  /** A started three-axis ledger with {@code segments} originals of {@code b} uploaded and confirmed. */
  private Ledger uploaded(String b, int segments) throws InterruptedException {
    // Items only: playlists written in the background while the test lists the bucket would race
    // S3Proxy's filesystem store (a LIST answered 400); playlists have their own tests.
    Ledger ledger = Wiring.ledger(store, sink, root, new FakeRepackager(), events).publishPlaylists(false).build();
    ledger.start();
    for (int i = 0; i < segments; i++) {
      ItemId id = ItemId.original(b, "720p", i);
      ledger.register(id, Wiring.record(root, id));
    }
    awaitAllConfirmed(b, 2 * segments + 1);
    ConsistencyAssertions.assertConsistent(store, sink, b);
    return ledger;
  }

  private void awaitAllConfirmed(String b, int rows) throws InterruptedException {
    events.awaitUntil(b + ": " + rows + " rows confirmed", () -> {
      List<LedgerItem> all = store.findByBroadcast(b);
      return all.size() == rows && all.stream().allMatch(row -> row.state() == ItemState.CONFIRMED);
    }, CONVERGE);
  }

  private byte[] objectBytes(String key) {
    return s3.getObjectAsBytes(r -> r.bucket(bucket).key(key)).asByteArray();
  }

  private void assertObjectsHoldTheRegisteredBytes(String b) throws Exception {
    for (LedgerItem row : store.findByBroadcast(b)) {
      RegisteredBytes.assertObjectHolds(row, objectBytes(row.objectKey()));
    }
  }

  @RepeatedTest(5)
  void objectsDeletedBehindTheLedgersBackAreReportedRepairedAndUploadedAgain(RepetitionInfo run) throws Exception {
    String b = broadcast("deleted", run);
    try (Ledger ledger = uploaded(b, 3)) {
      ItemId original = ItemId.original(b, "720p", 1);
      ItemId init = ItemId.init(b, "720p");
      s3.deleteObject(r -> r.bucket(bucket).key(original.objectKey()));
      s3.deleteObject(r -> r.bucket(bucket).key(init.objectKey()));
      List<LedgerItem> rowsBefore = store.findByBroadcast(b);

      ReconciliationReport report = ledger.reconcile(b);

      assertEquals(2, report.differences().size(), report::describe);
      assertEquals(List.of(original.objectKey()), keys(report.axis(Axis.ORIGINAL).missing()));
      assertEquals(List.of(init.objectKey()), keys(report.axis(Axis.INIT).missing()));
      assertEquals(rowsBefore, store.findByBroadcast(b), "reporting changes nothing");

      ReconciliationReport repair = ledger.reconcileAndRepair(b);

      assertEquals(2, repair.reopened(), repair::describe);
      awaitAllConfirmed(b, 7);
      LedgerItem reconfirmed = store.find(original).orElseThrow();
      assertEquals(Reason.OBJECT_MISSING, reconfirmed.reason(), "the row keeps why it was re-opened");
      assertTrue(ledger.stats().axis(Axis.ORIGINAL).confirmed() >= 4, ledger.stats()::toString);
    }
    assertObjectsHoldTheRegisteredBytes(b);
    ConsistencyAssertions.assertConsistent(store, sink, b);
  }

  @RepeatedTest(5)
  void replacedObjectsAreRepairedAndOrphansAreReportedNeverDeleted(RepetitionInfo run) throws Exception {
    String b = broadcast("replaced", run);
    String orphan = ItemId.original(b, "720p", 99).objectKey();
    String stray = b + "/720p/notes.txt";
    try (Ledger ledger = uploaded(b, 3)) {
      // Other sizes, written by a plain client: the listing shows the size.
      ItemId shortened = ItemId.original(b, "720p", 0);
      s3.putObject(r -> r.bucket(bucket).key(shortened.objectKey()), RequestBody.fromBytes(new byte[] {1}));
      // Same size, other bytes, written through a sink: only the checksum (read by HEAD) differs.
      ItemId replaced = ItemId.playback(b, "720p", 2);
      byte[] bytes = objectBytes(replaced.objectKey());
      bytes[0] ^= 1;
      sink.put(replaced.objectKey(), Wiring.contentOf(Files.write(temp.resolve("replaced"), bytes)), false);
      s3.putObject(r -> r.bucket(bucket).key(orphan), RequestBody.fromString("nobody registered me"));
      s3.putObject(r -> r.bucket(bucket).key(stray), RequestBody.fromString("notes"));

      ReconciliationReport repair = ledger.reconcileAndRepair(b);

      assertEquals(List.of(Kind.SIZE_MISMATCH), kinds(repair.axis(Axis.ORIGINAL).mismatched()), repair::describe);
      assertEquals(List.of(Kind.CHECKSUM_MISMATCH), kinds(repair.axis(Axis.PLAYBACK).mismatched()), repair::describe);
      assertEquals(List.of(orphan), keys(repair.axis(Axis.ORIGINAL).orphans()));
      assertEquals(List.of(stray), keys(repair.unrecognizedObjects()));
      assertEquals(2, repair.reopened());
      awaitAllConfirmed(b, 7);
      assertEquals(Reason.OBJECT_MISMATCH, store.find(replaced).orElseThrow().reason());

      ReconciliationReport after = ledger.reconcileAndRepair(b);
      assertEquals(List.of(orphan, stray), keys(after.differences()), after::describe);
      assertEquals(0, after.reopened());
    }
    assertObjectsHoldTheRegisteredBytes(b);
    assertEquals("nobody registered me", new String(objectBytes(orphan)), "orphans are never deleted");
    assertEquals("notes", new String(objectBytes(stray)));
    assertFalse(ConsistencyAssertions.check(store, sink, b).isConsistent(), "the orphans stay reported");
    s3.deleteObject(r -> r.bucket(bucket).key(orphan));
    s3.deleteObject(r -> r.bucket(bucket).key(stray));
    ConsistencyAssertions.assertConsistent(store, sink, b);
  }

  /**
   * With conditional writes on ({@code AUTO}; S3Proxy and RGW honour {@code If-None-Match: *} on a
   * PUT), the re-opened row of a replaced object meets that object at its key: the row fails with
   * {@code object conflict} and the object is left as it is (docs/reconciling.md, "Repair").
   */
  @RepeatedTest(1)
  void withConditionalWritesARepairDoesNotOverwriteAReplacedObject(RepetitionInfo run) throws Exception {
    sink = S3ObjectSink.builder().client(s3).bucket(bucket).conditionalWrites(ConditionalWrites.AUTO).build();
    String b = broadcast("conditional", run);
    try (Ledger ledger = uploaded(b, 2)) {
      ItemId shortened = ItemId.original(b, "720p", 0);
      s3.putObject(r -> r.bucket(bucket).key(shortened.objectKey()), RequestBody.fromBytes(new byte[] {1}));

      ReconciliationReport repair = ledger.reconcileAndRepair(b);

      assertEquals(List.of(Kind.SIZE_MISMATCH), kinds(repair.axis(Axis.ORIGINAL).mismatched()), repair::describe);
      assertEquals(1, repair.reopened());
      events.awaitUntil(shortened + " rejected", () -> store.find(shortened).orElseThrow().state()
          == ItemState.REJECTED, CONVERGE);
      LedgerItem row = store.find(shortened).orElseThrow();
      assertEquals(Reason.SINK_PERMANENT, row.reason(), row::toString);
      assertTrue(row.lastError().contains(S3ObjectSink.CONFLICT), row.lastError());
      assertEquals(1, objectBytes(shortened.objectKey()).length, "the object at the key is left as it is");
    }
  }

  @RepeatedTest(5)
  void unfinishedUploadsAreReportedAndTheRepairAbortsThoseOlderThanTheAgeLimit(RepetitionInfo run) throws Exception {
    String b = broadcast("unfinished", run);
    String atLedgerKey = ItemId.original(b, "720p", 7).objectKey();
    String atStrayKey = b + "/720p/notes.txt";
    try (Ledger ledger = uploaded(b, 2)) {
      String killed = unfinishedUpload(atLedgerKey);
      String foreign = unfinishedUpload(atStrayKey);

      ReconciliationReport report = ledger.reconcile(b);

      assertTrue(report.isConsistent(), "unfinished uploads are no differences: " + report.describe());
      assertEquals(List.of(atStrayKey, atLedgerKey),
          report.unfinishedUploads().stream().map(Unfinished::key).toList(), report::describe);
      assertEquals(List.of(foreign, killed),
          report.unfinishedUploads().stream().map(u -> u.upload().uploadId()).toList());

      ReconciliationReport young = ledger.reconcileAndRepair(b);

      assertEquals(0, young.abortedUploads(), "younger than a day: " + young.describe());
      assertEquals(List.of(foreign, killed), unfinishedUploadIds(b));

      Clock twoDaysLater = Clock.offset(Clock.systemUTC(), Duration.ofDays(2));
      ReconciliationReport old = Reconciler.create(store, sink, twoDaysLater).reconcileAndRepair(b);

      assertEquals(List.of(false, true), old.unfinishedUploads().stream().map(Unfinished::aborted).toList(),
          old::describe);
      assertEquals(List.of(foreign), unfinishedUploadIds(b), "a key outside the contract is never aborted");
      assertTrue(old.describe().contains(killed + ", initiated ") && old.describe().contains("[aborted]"),
          old::describe);
      assertEquals(0, old.reopened());
    }
    assertObjectsHoldTheRegisteredBytes(b);
    ConsistencyAssertions.assertConsistent(store, sink, b);
    s3.abortMultipartUpload(r -> r.bucket(bucket).key(atStrayKey).uploadId(unfinishedUploadIds(b).get(0)));
  }

  /** Starts a multipart upload at {@code key} with one 5 MiB part and leaves it, as a killed process does. */
  private String unfinishedUpload(String key) {
    String uploadId = s3.createMultipartUpload(r -> r.bucket(bucket).key(key)).uploadId();
    s3.uploadPart(r -> r.bucket(bucket).key(key).uploadId(uploadId).partNumber(1),
        RequestBody.fromBytes(new byte[5 * 1024 * 1024]));
    return uploadId;
  }

  private List<String> unfinishedUploadIds(String b) {
    return s3.listMultipartUploads(r -> r.bucket(bucket).prefix(b + "/")).uploads().stream()
        .sorted(Comparator.comparing(MultipartUpload::key)).map(MultipartUpload::uploadId).toList();
  }

  private static List<String> keys(List<Difference> differences) {
    return differences.stream().map(Difference::key).toList();
  }

  private static List<Kind> kinds(List<Difference> differences) {
    return differences.stream().map(Difference::kind).toList();
  }
}
