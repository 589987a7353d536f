package dev.segmentledger.engine;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.segmentledger.core.ItemId;
import dev.segmentledger.core.ItemState;
import dev.segmentledger.core.ManualLedger;
import dev.segmentledger.core.ReconcileRequest;
import dev.segmentledger.core.ReconcileStep;
import dev.segmentledger.core.Reconciler;
import dev.segmentledger.core.ReconciliationReport.Difference;
import dev.segmentledger.core.StoredObjectInfo;
import dev.segmentledger.core.spi.ObjectSink;
import dev.segmentledger.testkit.ConsistencyAssertions;
import dev.segmentledger.testkit.ForwardingObjectSink;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The bounded reconcile ({@link ReconcileRequest}): a pass cut into steps of a few checks finds
 * exactly what one whole run finds, no step sends more HEAD requests than its check limit (plus the
 * playlists at the end), a time limit stops a step on the ledger's clock, a repair in steps brings
 * the bucket back, and a cursor that is not one a step returned is refused with what is allowed.
 */
class BoundedReconcileTest {
  private static final ItemId O0 = ItemId.original("b1", "720p", 0);
  private static final ItemId P1 = ItemId.playback("b1", "720p", 1);
  private static final String ORPHAN_KEY = ItemId.original("b1", "720p", 9).objectKey();
  private static final String STRAY_KEY = "b1/720p/notes.txt";

  @TempDir Path temp;
  private LedgerFixture f;
  private ManualLedger ledger;
  private final AtomicInteger heads = new AtomicInteger();
  private ObjectSink countingSink;

  @BeforeEach
  void settledBroadcastWithADamagedBucket() {
    f = new LedgerFixture(temp);
    ledger = f.repackagingBuilder().buildManual();
    for (int i = 0; i < 5; i++) {
      ItemId id = ItemId.original("b1", "720p", i);
      ledger.register(id, f.record(id));
    }
    LedgerFixture.settle(ledger);
    ledger.publishPlaylists();
    ConsistencyAssertions.assertConsistent(f.store, f.sink, "b1");
    f.sink.delete(O0.objectKey());
    byte[] playback = f.sink.bytes(P1.objectKey()).orElseThrow();
    playback[0] ^= 1;
    f.sink.seed(P1.objectKey(), playback);
    f.sink.seed(ORPHAN_KEY, new byte[] {1, 2, 3});
    f.sink.seed(STRAY_KEY, new byte[] {4});
    countingSink = new ForwardingObjectSink() {
      @Override
      protected ObjectSink delegate() {
        return f.sink;
      }

      @Override
      public Optional<StoredObjectInfo> head(String key) {
        heads.incrementAndGet();
        return super.head(key);
      }
    };
  }

  @Test
  void aPassInSmallStepsFindsWhatAWholeRunFindsAndNoStepHeadsMoreThanItsLimit() {
    List<String> whole = keys(ledger.reconcile("b1").differences());
    Reconciler reconciler = Reconciler.create(f.store, countingSink, f.clock);
    int playlists = f.store.playlists().find("b1").size();
    assertTrue(playlists >= 2, "a media and a multivariant playlist were published");

    List<String> found = new ArrayList<>();
    ReconcileRequest request = ReconcileRequest.builder("b1").maxChecks(2).build();
    long rows = 0;
    long objects = 0;
    int steps = 0;
    while (true) {
      heads.set(0);
      ReconcileStep step = reconciler.reconcile(request);
      steps++;
      assertTrue(step.rowsChecked() + step.objectsChecked() <= 2, step::summary);
      assertTrue(heads.get() <= 2 + (step.complete() ? playlists : 0), "HEADs in one step: " + heads.get());
      found.addAll(keys(step.report().differences()));
      rows += step.rowsChecked();
      objects += step.objectsChecked();
      if (step.complete()) {
        assertEquals(ReconcileStep.Stop.COMPLETE, step.stoppedBy());
        assertTrue(step.summary().contains("the pass is complete"), step.summary());
        break;
      }
      assertEquals(ReconcileStep.Stop.CHECK_LIMIT, step.stoppedBy());
      assertTrue(step.summary().contains("continue at " + step.next().orElseThrow()), step.summary());
      request = request.continueAt(step.next().orElseThrow());
      assertTrue(steps < 100, "the pass ends");
    }
    assertEquals(whole.stream().sorted().toList(), found.stream().sorted().toList());
    assertTrue(found.containsAll(List.of("ORPHAN " + ORPHAN_KEY, "UNRECOGNIZED_KEY " + STRAY_KEY,
        "OBJECT_MISSING " + O0.objectKey(), "CHECKSUM_MISMATCH " + P1.objectKey())), found::toString);
    long confirmed = f.store.findByBroadcast("b1").stream().filter(r -> r.state() == ItemState.CONFIRMED).count();
    assertEquals(confirmed, rows, "every confirmed row checked once");
    long playlistObjects = f.sink.list("b1/").stream().filter(o -> o.key().endsWith(".m3u8")).count();
    assertEquals(2 * playlists, playlistObjects, "each playlist and its live counterpart");
    assertEquals(f.sink.list("b1/").size() - playlistObjects, objects, "every object but the playlists checked once");
  }

  @Test
  void aTimeLimitStopsAStepOnTheReconcilersClockAndTheNextStepGoesOn() {
    ObjectSink slowSink = new ForwardingObjectSink() {
      @Override
      protected ObjectSink delegate() {
        return f.sink;
      }

      @Override
      public Optional<StoredObjectInfo> head(String key) {
        f.clock.advance(Duration.ofSeconds(10));
        return super.head(key);
      }
    };
    Reconciler reconciler = Reconciler.create(f.store, slowSink, f.clock);
    ReconcileStep first = reconciler.reconcile(ReconcileRequest.builder("b1").maxDuration(Duration.ofSeconds(15))
        .build());
    assertEquals(ReconcileStep.Stop.TIME_LIMIT, first.stoppedBy(), first::summary);
    assertEquals(2, first.rowsChecked(), "the second HEAD ends past the deadline; no third starts");
    ReconcileStep second = reconciler.reconcile(ReconcileRequest.builder("b1").maxDuration(Duration.ofSeconds(15))
        .cursor(first.next().orElseThrow()).build());
    assertEquals(2, second.rowsChecked(), second::summary);
    assertTrue(second.next().orElseThrow().compareTo(first.next().orElseThrow()) != 0, "the cursor moved on");
  }

  @Test
  void aRepairInStepsReopensWhatDiffersAndTheSweeperRestoresTheBucket() {
    ReconcileRequest request = ReconcileRequest.builder("b1").repair(true).maxChecks(3).build();
    int reopened = 0;
    for (int i = 0; i < 100; i++) {
      ReconcileStep step = ledger.reconcile(request);
      reopened += step.report().reopened();
      if (step.complete()) {
        break;
      }
      request = request.continueAt(step.next().orElseThrow());
    }
    assertEquals(2, reopened, "the missing original and the changed playback segment");
    LedgerFixture.settle(ledger);
    f.sink.delete(ORPHAN_KEY);
    f.sink.delete(STRAY_KEY);
    ConsistencyAssertions.assertConsistent(f.store, f.sink, "b1");
  }

  @Test
  void aCursorThatNoStepReturnedIsRefusedWithWhatIsAllowed() {
    ReconcileRequest.Builder builder = ReconcileRequest.builder("b1");
    for (String bad : List.of("rows:-1", "rows:x", "objects:b2/720p/init.mp4", "later", "objects:b1/\u202e")) {
      IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> builder.cursor(bad));
      assertTrue(e.getMessage().contains("rows:<row id>, objects:<key of the broadcast> or final"), e.getMessage());
      assertFalse(e.getMessage().contains("\u202e"), "the refused text is escaped");
    }
    IllegalArgumentException limit = assertThrows(IllegalArgumentException.class, () -> builder.maxChecks(0));
    assertTrue(limit.getMessage().contains("between 1 and 100000"), limit.getMessage());
    IllegalArgumentException time = assertThrows(IllegalArgumentException.class,
        () -> builder.maxDuration(Duration.ofHours(1)));
    assertTrue(time.getMessage().contains("at most 600 s"), time.getMessage());
    assertThrows(IllegalArgumentException.class, () -> ReconcileRequest.builder("../b1"));
  }

  private static List<String> keys(List<Difference> differences) {
    return differences.stream().map(d -> d.kind() + " " + d.key()).toList();
  }
}
