package dev.segmentledger.it;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.segmentledger.core.Axis;
import dev.segmentledger.core.BroadcastEndedException;
import dev.segmentledger.core.BroadcastStatus;
import dev.segmentledger.core.ItemId;
import dev.segmentledger.core.ItemState;
import dev.segmentledger.core.Ledger;
import dev.segmentledger.core.LedgerItem;
import dev.segmentledger.core.Reason;
import dev.segmentledger.core.spi.Confirmation;
import dev.segmentledger.core.spi.NewItem;
import dev.segmentledger.core.spi.RegisterResult;
import dev.segmentledger.jdbi.JdbiStateStore;
import dev.segmentledger.testkit.ConsistencyAssertions;
import dev.segmentledger.testkit.DirectoryObjectSink;
import dev.segmentledger.testkit.FakeRepackager;
import dev.segmentledger.testkit.LedgerEvents;
import dev.segmentledger.testkit.PostgresExtension;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import org.jdbi.v3.core.Jdbi;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.RepeatedTest;
import org.junit.jupiter.api.RepetitionInfo;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

/**
 * The six recovery scenarios of docs/design.md on real PostgreSQL. Each seeds the database with the
 * failure a previous process left behind, then starts a ledger (real sweeper, queue, workers,
 * repackager and store) and waits, on ledger events, for it to converge. Each ends with the
 * consistency check per axis. Five runs each, every run on a broadcast of its own.
 */
@Tag("long") // an end-to-end scenario of 20 s or more: the long profile runs it (tests/README.md)
class RecoveryScenariosTest {
  @RegisterExtension static final PostgresExtension PG = PostgresExtension.create();
  private static final Duration CONVERGE = Duration.ofSeconds(30);
  private static JdbiStateStore store;

  @TempDir Path temp;
  private Path root;
  private DirectoryObjectSink sink;
  private final FakeRepackager repackager = new FakeRepackager();
  private final LedgerEvents events = new LedgerEvents();

  @BeforeAll
  static void migrate() {
    store = JdbiStateStore.create(Jdbi.create(PG.dataSource())).migrate();
  }

  @BeforeEach
  void setUp() throws Exception {
    root = Files.createDirectories(temp.resolve("root")).toRealPath();
    sink = new DirectoryObjectSink(Files.createDirectories(temp.resolve("bucket")));
  }

  private Ledger start() {
    Ledger ledger = Wiring.ledger(store, sink, root, repackager, events).build();
    ledger.start();
    return ledger;
  }

  /** What a registration by an earlier process wrote: original, init, waiting playback. */
  private List<LedgerItem> seedRegistration(ItemId original, Instant at) {
    Path file = Wiring.record(root, original);
    ItemId init = ItemId.init(original.broadcastId(), original.rendition());
    ItemId playback = ItemId.playback(original.broadcastId(), original.rendition(), original.sequence());
    return store.registerAll(List.of(
            NewItem.pending(original, file.toString(), fileSize(file), at),
            NewItem.derived(init, root.resolve("playback").resolve(init.objectKey()).toString(), file.toString(), at),
            NewItem.derived(playback, root.resolve("playback").resolve(playback.objectKey()).toString(),
                file.toString(), at)))
        .stream().map(RegisterResult::item).toList();
  }

  /** What an upload that failed left: the attempt counted, due now. */
  private static void seedFailure(LedgerItem row) {
    assertTrue(store.recordFailure(row.rowId(), row.state(), "node-a", Reason.SINK_TRANSIENT, "seeded: 503 SlowDown",
        Instant.now().minusSeconds(1)));
  }

  /** What a completed upload left: the object stored and the row confirmed. */
  private LedgerItem seedConfirmed(LedgerItem row) throws Exception {
    LedgerItem produced = produce(row);
    var stored = sink.put(produced.objectKey(), Wiring.contentOf(Path.of(produced.sourcePath())), false);
    assertTrue(store.confirm(new Confirmation(produced.rowId(), produced.id(),
        ItemState.PENDING, produced.sizeBytes(), stored.checksum(),
        Instant.now())));
    return store.findByRowId(row.rowId()).orElseThrow();
  }

  /** What the repackager of an earlier process left for a PLAYBACK or INIT row. */
  private LedgerItem produce(LedgerItem row) throws Exception {
    if (row.id().axis() == Axis.ORIGINAL) {
      return row;
    }
    Path target = Path.of(row.sourcePath());
    Files.createDirectories(target.getParent());
    var out = row.id().axis() == Axis.INIT
        ? repackager.init(Path.of(row.originPath()), target)
        : repackager.segment(Path.of(row.originPath()), row.id().sequence(), target);
    assertTrue(store.recordProduced(row.rowId(), row.state(), row.sizeBytes(), target.toString(), out.sizeBytes(),
        out.duration()));
    return store.findByRowId(row.rowId()).orElseThrow();
  }

  private void awaitAllConfirmed(String broadcastId) throws InterruptedException {
    events.awaitUntil(broadcastId + " fully confirmed", () -> store.findByBroadcast(broadcastId).stream()
        .allMatch(row -> row.state() == ItemState.CONFIRMED), CONVERGE);
  }

  private static long fileSize(Path file) {
    try {
      return Files.size(file);
    } catch (java.io.IOException e) {
      throw new java.io.UncheckedIOException(e);
    }
  }

  private static String broadcast(String scenario, RepetitionInfo run) {
    return scenario + "-run" + run.getCurrentRepetition() + "-" + Long.toString(System.nanoTime(), 36);
  }

  @RepeatedTest(5)
  void scenario1OriginalUploadFailed(RepetitionInfo run) throws Exception {
    String b = broadcast("s1", run);
    List<LedgerItem> rows = seedRegistration(ItemId.original(b, "720p", 0), Instant.now());
    seedFailure(rows.get(0));

    try (Ledger ledger = start()) {
      awaitAllConfirmed(b);
      assertEquals(2, ledger.find(ItemId.original(b, "720p", 0)).orElseThrow().attempts() + 1,
          "one more attempt after the seeded failure");
    }
    ConsistencyAssertions.assertConsistent(store, sink, b);
  }

  @RepeatedTest(5)
  void scenario2PlaybackUploadFailed(RepetitionInfo run) throws Exception {
    String b = broadcast("s2", run);
    List<LedgerItem> rows = seedRegistration(ItemId.original(b, "720p", 0), Instant.now());
    seedConfirmed(rows.get(0));
    seedConfirmed(rows.get(1)); // the init confirm releases the playback row
    LedgerItem playback = produce(store.findByRowId(rows.get(2).rowId()).orElseThrow());
    seedFailure(playback);

    try (Ledger ledger = start()) {
      awaitAllConfirmed(b);
    }
    assertEquals(1, repackager.segmentCalls(), "the produced playback file was reused, not re-made");
    ConsistencyAssertions.assertConsistent(store, sink, b);
  }

  @RepeatedTest(5)
  void scenario3InitNeverConfirmed(RepetitionInfo run) throws Exception {
    String b = broadcast("s3", run);
    for (int i = 0; i < 3; i++) {
      seedConfirmed(seedRegistration(ItemId.original(b, "720p", i), Instant.now()).get(0));
    }
    assertEquals(3, store.findByBroadcast(b).stream().filter(r -> r.state() == ItemState.WAITING).count());

    try (Ledger ledger = start()) {
      awaitAllConfirmed(b);
      assertEquals(3, ledger.playback(b, "720p").segments().size());
    }
    ConsistencyAssertions.assertConsistent(store, sink, b);
  }

  @RepeatedTest(5)
  void scenario4BroadcastEndedWithRowsUnconfirmed(RepetitionInfo run) throws Exception {
    String b = broadcast("s4", run);
    for (int i = 0; i < 3; i++) {
      seedRegistration(ItemId.original(b, "720p", i), Instant.now());
    }
    assertTrue(store.endBroadcast(b, Instant.now()));

    try (Ledger ledger = start()) {
      assertEquals(BroadcastStatus.Phase.ENDED, ledger.broadcastStatus(b).phase());
      ItemId late = ItemId.original(b, "720p", 3);
      assertThrows(BroadcastEndedException.class, () -> ledger.register(late, Wiring.record(root, late)));
      events.awaitUntil(b + " complete",
          () -> ledger.broadcastStatus(b).phase() == BroadcastStatus.Phase.COMPLETE, CONVERGE);
      assertTrue(ledger.playback(b, "720p").mediaPlaylist().orElseThrow().endsWith("#EXT-X-ENDLIST\n"));
    }
    assertEquals(7, store.findByBroadcast(b).size(), "3 originals, 3 playback, 1 init; the late file has no row");
    ConsistencyAssertions.assertConsistent(store, sink, b);
  }

  @RepeatedTest(5)
  void scenario5RowsPastTheCutoffAreExcluded(RepetitionInfo run) throws Exception {
    String b = broadcast("s5", run);
    Instant twoDaysAgo = Instant.now().minus(Duration.ofDays(2));
    seedRegistration(ItemId.original(b, "720p", 0), twoDaysAgo);
    seedRegistration(ItemId.original(b, "720p", 1), Instant.now());

    try (Ledger ledger = Wiring.ledger(store, sink, root, repackager, events).cutoff(Duration.ofDays(1)).build()) {
      ledger.start();
      events.awaitUntil(b + " settled", () -> store.findByBroadcast(b).stream()
          .allMatch(row -> row.state().isTerminal()), CONVERGE);
    }
    for (LedgerItem row : store.findByBroadcast(b)) {
      boolean old = row.registeredAt().isBefore(Instant.now().minus(Duration.ofDays(1)));
      if (old && row.id().axis() != Axis.INIT) {
        assertEquals(ItemState.EXCLUDED, row.state(), row.id().toString());
        assertEquals(Reason.PAST_CUTOFF, row.reason());
        assertTrue(sink.head(row.objectKey()).isEmpty(), "never uploaded: " + row.id());
      } else {
        // Recent rows, and the old INIT that the recent playback needs, are uploaded.
        assertEquals(ItemState.CONFIRMED, row.state(), row.id().toString());
      }
    }
    assertTrue(store.count(Axis.ORIGINAL, ItemState.EXCLUDED) >= 1, "the exclusions are counted");
    ConsistencyAssertions.assertConsistent(store, sink, b);
  }

  @RepeatedTest(5)
  void scenario6InitRecoveredBySweeperReleasesWaitingPlayback(RepetitionInfo run) throws Exception {
    String b = broadcast("s6", run);
    LedgerItem init = null;
    for (int i = 0; i < 3; i++) {
      List<LedgerItem> rows = seedRegistration(ItemId.original(b, "720p", i), Instant.now());
      seedConfirmed(rows.get(0));
      init = rows.get(1);
    }
    // The earlier process stored the init, then died before its confirm.
    LedgerItem produced = produce(store.findByRowId(init.rowId()).orElseThrow());
    sink.put(produced.objectKey(), Wiring.contentOf(Path.of(produced.sourcePath())), false);
    int initsBefore = repackager.initCalls();

    try (Ledger ledger = start()) {
      awaitAllConfirmed(b);
      assertTrue(ledger.playback(b, "720p").canOpen());
    }
    assertEquals(initsBefore, repackager.initCalls(), "the stored init was recovered, not re-made");
    ConsistencyAssertions.assertConsistent(store, sink, b);
  }
}
