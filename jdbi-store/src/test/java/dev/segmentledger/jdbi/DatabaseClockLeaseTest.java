package dev.segmentledger.jdbi;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.segmentledger.core.ItemId;
import dev.segmentledger.core.ItemState;
import dev.segmentledger.core.Ledger;
import dev.segmentledger.core.LedgerItem;
import dev.segmentledger.core.ManualLedger;
import dev.segmentledger.core.spi.NewItem;
import dev.segmentledger.testkit.FakeObjectSink;
import dev.segmentledger.testkit.PostgresExtension;
import dev.segmentledger.testkit.SettableClock;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import org.jdbi.v3.core.Jdbi;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

/**
 * Leases are judged by the database's clock, not by each node's: a node whose clock runs an hour
 * ahead finds another node's lease as live as the database says it is, and takes nothing over; the
 * skew it sees between its clock and the database's is in its stats. Declaring a storage group lost
 * leaves a lease alone that is live by the database's clock, whatever the caller's clock says.
 */
class DatabaseClockLeaseTest {
  @RegisterExtension static final PostgresExtension PG = PostgresExtension.create();

  private static final Duration LEASE = Duration.ofSeconds(30);
  private static final Duration AHEAD = Duration.ofHours(1);

  private static JdbiStateStore store;

  @TempDir Path temp;

  @BeforeAll
  static void migrate() {
    store = JdbiStateStore.create(Jdbi.create(PG.dataSource())).migrate();
  }

  private ManualLedger node(String name, Clock clock, FakeObjectSink sink, Path root) {
    return Ledger.builder().stateStore(store).objectSink(sink).allowedRoot(root).clock(clock).nodeId(name)
        .leaseDuration(LEASE).buildManual();
  }

  @Test
  void aNodeWhoseClockRunsAheadTakesOverNoLiveLease() throws Exception {
    Path root = Files.createDirectories(temp.resolve("root")).toRealPath();
    Path file = Files.writeString(root.resolve("0.ts"), "recorded bytes");
    ItemId id = ItemId.original("skew-" + Long.toString(System.nanoTime(), 36), "720p", 0);
    FakeObjectSink sink = new FakeObjectSink();
    SettableClock onTime = SettableClock.at(Instant.now());
    SettableClock ahead = SettableClock.at(Instant.now().plus(AHEAD));
    ManualLedger a = node("node-a", onTime, sink, root);
    ManualLedger b = node("node-b", ahead, sink, root);

    a.register(id, file); // leased to node a from its registration, for its queue
    b.sweepRound();
    b.drainQueue();

    assertEquals(0, sink.putCount(), "node b, an hour ahead, took over node a's live lease");
    Duration skew = b.stats().clockSkew();
    assertTrue(skew.minus(AHEAD).abs().compareTo(Duration.ofMinutes(1)) < 0, "node b's skew: " + skew);
    assertTrue(a.stats().clockSkew().abs().compareTo(Duration.ofMinutes(1)) < 0, "node a's skew: "
        + a.stats().clockSkew());
    a.drainQueue();
    LedgerItem row = store.find(id).orElseThrow();
    assertEquals(ItemState.CONFIRMED, row.state());
    assertEquals(1, sink.putCount(), "uploaded once, by node a");
  }

  @Test
  void aNodeWhoseClockRunsBehindWritesLeasesThatLastTheirDuration() throws Exception {
    Path root = Files.createDirectories(temp.resolve("root")).toRealPath();
    Path file = Files.writeString(root.resolve("0.ts"), "recorded bytes");
    ItemId id = ItemId.original("behind-" + Long.toString(System.nanoTime(), 36), "720p", 0);
    FakeObjectSink sink = new FakeObjectSink();
    ManualLedger behind = node("node-a", SettableClock.at(Instant.now().minus(AHEAD)), sink, root);
    ManualLedger onTime = node("node-b", SettableClock.at(Instant.now()), sink, root);

    behind.heartbeat(); // measures the skew, as a started ledger does at its start
    behind.register(id, file); // its registration lease, on the database's time
    onTime.sweepRound();
    onTime.drainQueue();

    assertEquals(0, sink.putCount(), "node b took over the lease node a, an hour behind, had just taken");
    assertTrue(behind.stats().clockSkew().plus(AHEAD).abs().compareTo(Duration.ofMinutes(1)) < 0,
        "node a's skew: " + behind.stats().clockSkew());
    behind.drainQueue();
    assertEquals(ItemState.CONFIRMED, store.find(id).orElseThrow().state());
    assertEquals(1, sink.putCount(), "uploaded once, by node a");
  }

  @Test
  void aStorageGroupDeclaredLostByANodeWhoseClockRunsAheadKeepsItsLiveLeases() throws Exception {
    Path root = Files.createDirectories(temp.resolve("root")).toRealPath();
    Path file = Files.writeString(root.resolve("0.ts"), "recorded bytes");
    String group = "host-" + Long.toString(System.nanoTime(), 36);
    ItemId id = ItemId.original("lost-" + Long.toString(System.nanoTime(), 36), "720p", 0);
    FakeObjectSink sink = new FakeObjectSink();
    ManualLedger a = Ledger.builder().stateStore(store).objectSink(sink).allowedRoot(root)
        .clock(SettableClock.at(Instant.now())).nodeId("node-a").leaseDuration(LEASE).storageGroup(group)
        .buildManual();
    ManualLedger b = node("node-b", SettableClock.at(Instant.now().plus(AHEAD)), sink, root);

    a.register(id, file); // leased to node a from its registration, for its queue

    assertEquals(0, b.markStorageLost(group), "node b, an hour ahead, rejected a row under node a's live lease");
    assertEquals(ItemState.PENDING, store.find(id).orElseThrow().state());
    a.drainQueue();
    assertEquals(ItemState.CONFIRMED, store.find(id).orElseThrow().state());
  }

  @Test
  void theStoreJudgesTheLeasesOfALostGroupByTheDatabasesClockNotByTheCallersInstant() {
    String group = "host-" + Long.toString(System.nanoTime(), 36);
    Instant databaseNow = store.currentTime().orElseThrow();
    LedgerItem leased = store.register(NewItem.pending(ItemId.original("lease-" + group, "720p", 0), "/rec/0.ts", 10,
        databaseNow).inStorageGroup(group).leasedTo("node-a", databaseNow.plus(LEASE))).item();
    LedgerItem idle = store.register(NewItem.pending(ItemId.original("idle-" + group, "720p", 0), "/rec/1.ts", 10,
        databaseNow).inStorageGroup(group)).item();

    assertEquals(1, store.markStorageLost(group, "gone", Instant.now().plus(AHEAD), 10),
        "a caller's instant an hour ahead took the live lease for one that has run out");
    assertEquals(ItemState.PENDING, store.findByRowId(leased.rowId()).orElseThrow().state());
    assertEquals(ItemState.REJECTED, store.findByRowId(idle.rowId()).orElseThrow().state());
  }
}
