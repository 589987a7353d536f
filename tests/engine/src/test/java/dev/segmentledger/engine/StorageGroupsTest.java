package dev.segmentledger.engine;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import dev.segmentledger.core.Axis;
import dev.segmentledger.core.ItemId;
import dev.segmentledger.core.ItemState;
import dev.segmentledger.core.Ledger;
import dev.segmentledger.core.LedgerBuilder;
import dev.segmentledger.core.LedgerItem;
import dev.segmentledger.core.ManualLedger;
import dev.segmentledger.core.Reason;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Hosts with local disks on one store (the in-memory one): each host's ledger has its own allowed
 * root (its disk, which no other host reads) and its own storage group. A row is uploaded only by a
 * node of the group that registered it; another host leaves it alone, never rejects it; a host gone
 * for good is handed over or declared lost explicitly.
 */
class StorageGroupsTest {
  private static final String BROADCAST = "b1";
  private static final Duration LEASE = Duration.ofSeconds(30);

  @TempDir Path temp;
  private LedgerFixture f;
  private Path diskA;
  private Path diskB;

  @BeforeEach
  void disks() throws IOException {
    f = new LedgerFixture(temp);
    diskA = Files.createDirectories(temp.resolve("disk-a"));
    diskB = Files.createDirectories(temp.resolve("disk-b"));
  }

  private LedgerBuilder host(Path disk, String nodeId, String group) {
    LedgerBuilder builder = Ledger.builder().stateStore(f.store).objectSink(f.sink).allowedRoot(disk).clock(f.clock)
        .backoff(LedgerFixture.ONE_SECOND).nodeId(nodeId).leaseDuration(LEASE);
    return group == null ? builder : builder.storageGroup(group);
  }

  /** Records files 0..n-1 on {@code disk} and registers them with {@code ledger}, which never uploads them. */
  private static void recordOn(Path disk, ManualLedger ledger, int n) throws IOException {
    for (int i = 0; i < n; i++) {
      ItemId id = ItemId.original(BROADCAST, "720p", i);
      Path file = Files.writeString(Files.createDirectories(disk.resolve("rec")).resolve(i + ".ts"), "bytes " + i);
      ledger.register(id, file);
    }
  }

  private List<LedgerItem> rows() {
    return f.store.findByBroadcast(BROADCAST);
  }

  /** Host a registered 3 files and died before uploading them; its leases have expired. */
  private void hostADiedWithThreeRowsToUpload() throws IOException {
    ManualLedger a = host(diskA, "node-a", "host-a").buildManual();
    recordOn(diskA, a, 3);
    a.close(); // never drained: as if killed after the registrations committed
    f.clock.advance(LEASE.plusSeconds(1));
  }

  @Test
  void anotherHostLeavesTheRowsOfADeadHostAloneAndANodeOfItsGroupUploadsThem() throws IOException {
    hostADiedWithThreeRowsToUpload();

    try (ManualLedger b = host(diskB, "node-b", "host-b").buildManual()) {
      LedgerFixture.settle(b);
      assertEquals(0, b.sweepRound().read(), "host b's sweep page holds no row of host a");
    }
    assertEquals(0, f.sink.putCount());
    for (LedgerItem row : rows()) {
      assertEquals(ItemState.PENDING, row.state(), "waits for its group, never rejected: " + row);
      assertEquals("host-a", row.storageGroup());
    }

    try (ManualLedger a2 = host(diskA, "node-a-restarted", "host-a").buildManual()) {
      LedgerFixture.settle(a2);
    }
    assertEquals(3, f.sink.putCount());
    rows().forEach(row -> assertEquals(ItemState.CONFIRMED, row.state(), row.toString()));
  }

  @Test
  void anIdentityRegisteredAgainOnAnotherHostStaysWithTheHostThatRegisteredItFirst() throws IOException {
    hostADiedWithThreeRowsToUpload();

    try (ManualLedger b = host(diskB, "node-b", "host-b").buildManual()) {
      recordOn(diskB, b, 1); // the same identity as host a's first file, recorded on host b's disk
      assertEquals(0, b.queued(), "not offered: the row is host a's");
      LedgerFixture.settle(b);
    }
    assertEquals(0, f.sink.putCount());
    LedgerItem first = f.store.find(ItemId.original(BROADCAST, "720p", 0)).orElseThrow();
    assertEquals(ItemState.PENDING, first.state());
    assertEquals("host-a", first.storageGroup());
  }

  @Test
  void withoutGroupsAnotherHostTakesTheRowsAndRejectsThemAsOutsideItsRoot() throws IOException {
    // The behaviour before storage groups, and of any deployment of local disks that sets none.
    ManualLedger a = host(diskA, "node-a", null).buildManual();
    recordOn(diskA, a, 3);
    a.close();
    f.clock.advance(LEASE.plusSeconds(1));

    try (ManualLedger b = host(diskB, "node-b", null).buildManual()) {
      LedgerFixture.settle(b);
    }
    rows().forEach(row -> assertEquals(Reason.OUTSIDE_ROOT, row.reason(), row.toString()));
    rows().forEach(row -> assertEquals(ItemState.REJECTED, row.state(), row.toString()));
  }

  @Test
  void derivedRowsCarryTheGroupOfTheirOriginal() throws IOException {
    try (ManualLedger a = host(diskA, "node-a", "host-a").repackager(f.repackager, diskA.resolve("playback"))
        .publishPlaylists(false).buildManual()) {
      recordOn(diskA, a, 1);
      assertEquals(List.of(Axis.ORIGINAL, Axis.PLAYBACK, Axis.INIT), rows().stream().map(r -> r.id().axis())
          .sorted().toList());
      rows().forEach(row -> assertEquals("host-a", row.storageGroup(), row.toString()));
      LedgerFixture.settle(a);
    }
    rows().forEach(row -> assertEquals(ItemState.CONFIRMED, row.state(), row.toString()));
  }

  @Test
  void aDiskMovedToAnotherHostIsHandedOverExplicitly() throws IOException {
    hostADiedWithThreeRowsToUpload();

    // Host c has host a's disk mounted now (same paths); any node may hand the rows over.
    try (ManualLedger b = host(diskB, "node-b", "host-b").buildManual();
        ManualLedger c = host(diskA, "node-c", "host-c").buildManual()) {
      assertEquals(3, b.handOver("host-a", "host-c"));
      assertEquals(0, b.handOver("host-a", "host-c"), "nothing left to hand over");
      LedgerFixture.settle(b);
      assertEquals(0, f.sink.putCount(), "host b still cannot read them");
      LedgerFixture.settle(c);
    }
    assertEquals(3, f.sink.putCount());
    rows().forEach(row -> assertEquals(ItemState.CONFIRMED, row.state(), row.toString()));
    rows().forEach(row -> assertEquals("host-c", row.storageGroup(), row.toString()));
  }

  @Test
  void aLostHostsRowsAreRejectedAsStorageLostOnlyWhenDeclaredAndCanBeReopened() throws IOException {
    hostADiedWithThreeRowsToUpload();

    try (ManualLedger b = host(diskB, "node-b", "host-b").buildManual()) {
      assertEquals(3, b.markStorageLost("host-a"));
      rows().forEach(row -> assertEquals(Reason.STORAGE_LOST, row.reason(), row.toString()));
      rows().forEach(row -> assertEquals(ItemState.REJECTED, row.state(), row.toString()));
      assertEquals(3L, b.broadcastStatus(BROADCAST).counts().get(Axis.ORIGINAL).get(ItemState.REJECTED),
          "counted, kept");

      // The disk turned up after all: re-open, then the group's node uploads them.
      assertEquals(3, b.reopen(BROADCAST, Reason.STORAGE_LOST));
    }
    try (ManualLedger a2 = host(diskA, "node-a2", "host-a").buildManual()) {
      LedgerFixture.settle(a2);
    }
    rows().forEach(row -> assertEquals(ItemState.CONFIRMED, row.state(), row.toString()));
  }

  @Test
  void groupNamesAreValidated() {
    assertThrows(IllegalArgumentException.class, () -> Ledger.builder().storageGroup("a/b"));
    assertThrows(IllegalArgumentException.class, () -> Ledger.builder().storageGroup(""));
    try (ManualLedger b = host(diskB, "node-b", "host-b").buildManual()) {
      assertThrows(IllegalArgumentException.class, () -> b.handOver("host-a", "host-a"));
      assertThrows(IllegalArgumentException.class, () -> b.handOver("host a", "host-b"));
      assertThrows(IllegalArgumentException.class, () -> b.markStorageLost(null));
      assertEquals(0, b.handOver(null, "host-b"), "no rows of no group");
    }
  }
}
