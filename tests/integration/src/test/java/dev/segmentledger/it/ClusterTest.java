package dev.segmentledger.it;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.segmentledger.core.Axis;
import dev.segmentledger.core.ItemState;
import dev.segmentledger.core.Ledger;
import dev.segmentledger.core.LedgerItem;
import dev.segmentledger.core.LedgerListener;
import dev.segmentledger.core.ReconciliationReport;
import dev.segmentledger.jdbi.JdbiStateStore;
import dev.segmentledger.testkit.ConsistencyAssertions;
import dev.segmentledger.testkit.DirectoryObjectSink;
import dev.segmentledger.testkit.LedgerEvents;
import dev.segmentledger.testkit.PostgresExtension;
import dev.segmentledger.testkit.crash.ChildJvm;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.atomic.LongAdder;
import java.util.function.BooleanSupplier;
import java.util.stream.Collectors;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

/**
 * Many nodes, one ledger: three ledger instances share 10,000 unconfirmed rows on one PostgreSQL
 * database and one durable bucket (a {@link DirectoryObjectSink} directory). Two run in this JVM;
 * the third runs in a child JVM, starts first (100 items of head start) and is killed with SIGKILL
 * once it has confirmed 300 items, while
 * it holds leases on the items its workers are uploading. With 2-second leases the survivors'
 * sweepers find those rows due again when the leases expire and upload them.
 *
 * <p>Checked: every row confirmed, none lost or terminal; the database and the bucket agree
 * (consistency check); PUTs per key counted across processes (every process logs each PUT it
 * issues): a key is PUT more than once only if the killed node had issued a PUT for it and still
 * held the row's lease at the kill (its upload, or its confirm in a batch, was in progress): no
 * duplicate while a lease is valid. There can be more such keys than the node had workers: a worker
 * hands its stored item to the batch confirm and goes on to its next upload.
 */
class ClusterTest {
  @RegisterExtension static final PostgresExtension PG = PostgresExtension.create();
  private static final int ITEMS = 10_000;
  private static final int WORKERS = 4;
  private static final int HEAD_START = 100;
  private static final int KILL_AFTER_CONFIRMED = 300;
  private static final Duration LEASE = Duration.ofSeconds(2);
  private static final String BROADCAST = "cluster";
  private static final String CONTENT = "segment %010d\n";
  private static PooledStore db;

  @TempDir Path temp;

  @BeforeAll
  static void migrate() {
    db = PooledStore.migrated(PG, 2 * ClusterNode.POOL);
  }

  @AfterAll
  static void closePool() {
    db.close();
  }

  @Test
  void threeNodesOneKilledEveryItemConfirmedOnceDuplicatesOnlyFromExpiredLeases() throws Exception {
    long started = System.nanoTime();
    Path root = Files.createDirectories(temp.resolve("root")).toRealPath();
    Path bucket = temp.resolve("bucket");
    DirectoryObjectSink sink = new DirectoryObjectSink(bucket);
    seed(root);
    Path childLog = temp.resolve("puts-child.log");
    List<Path> parentLogs = List.of(temp.resolve("puts-a.log"), temp.resolve("puts-b.log"));
    String childId = "node-child";
    Counts counts = new Counts();
    LedgerEvents events = new LedgerEvents();

    try (ChildJvm child = ChildJvm.start(ClusterNode.class, ChildDatabase.args(PG, root.toString(), bucket.toString(),
        childLog.toString(), childId, Long.toString(LEASE.toMillis()), Integer.toString(WORKERS),
        Integer.toString(HEAD_START), Integer.toString(KILL_AFTER_CONFIRMED)))) {
      // The child gets going first, so that it is busy (holding leases) when it is killed.
      child.awaitLine(line -> line.equals("CONFIRMED " + HEAD_START), Duration.ofSeconds(60));
      try (Ledger a = parentNode("node-a", parentLogs.get(0), bucket, root, counts, events);
          Ledger b = parentNode("node-b", parentLogs.get(1), bucket, root, counts, events)) {
        a.start();
        b.start();

        child.awaitLine(line -> line.equals("CONFIRMED " + KILL_AFTER_CONFIRMED), Duration.ofSeconds(60));
        child.killHard();
        long confirmedAtKill = db.store().count(Axis.ORIGINAL, ItemState.CONFIRMED);
        Set<String> leasedByDeadNode = db.jdbi().withHandle(h -> h.createQuery("SELECT id FROM segment_ledger_item"
                + " WHERE lease_owner = :owner AND state = 'PENDING'")
            .bind("owner", childId).mapTo(Long.class).list()).stream()
            .map(id -> db.store().findByRowId(id).orElseThrow().objectKey())
            .collect(Collectors.toSet());
        assertTrue(confirmedAtKill < ITEMS, "killed midway: " + confirmedAtKill + " confirmed at the kill");

        events.awaitUntil("all " + ITEMS + " rows confirmed", throttled(
            () -> db.store().count(Axis.ORIGINAL, ItemState.CONFIRMED) == ITEMS), Duration.ofSeconds(75));

        Map<String, Integer> puts = PutLog.merge(List.of(childLog, parentLogs.get(0), parentLogs.get(1)));
        Set<String> childKeys = PutLog.merge(List.of(childLog)).keySet();
        Map<String, Integer> duplicated = puts.entrySet().stream().filter(e -> e.getValue() > 1)
            .collect(Collectors.toMap(Map.Entry::getKey, Map.Entry::getValue));
        int extraPuts = duplicated.values().stream().mapToInt(n -> n - 1).sum();
        int totalPuts = puts.values().stream().mapToInt(Integer::intValue).sum();
        System.out.printf("cluster: %d items, 3 nodes (1 child JVM SIGKILLed after %d confirms), lease %s:"
                + " %d confirmed at the kill, %d rows leased by the dead node at the kill;"
                + " %d PUTs issued (%d by the dead node), %d keys PUT twice or more, %d duplicate PUTs %s;"
                + " survivors: %d confirmed, %d confirms lost, %d claims lost; %.1f s%n",
            ITEMS, KILL_AFTER_CONFIRMED, LEASE, confirmedAtKill, leasedByDeadNode.size(), totalPuts,
            PutLog.merge(List.of(childLog)).values().stream().mapToInt(Integer::intValue).sum(),
            duplicated.size(), extraPuts, duplicated, counts.confirmed.sum(), counts.confirmLost.sum(),
            counts.claimLost.sum(), (System.nanoTime() - started) / 1e9);

        assertEquals(ITEMS, puts.size(), "every key was PUT");
        assertTrue(childKeys.containsAll(duplicated.keySet()),
            "a key is PUT twice only if the killed node had PUT it: " + duplicated);
        assertTrue(leasedByDeadNode.containsAll(duplicated.keySet()),
            "a key is PUT twice only if the killed node still held its lease at the kill: " + duplicated
                + " PUT twice, leased by the dead node: " + leasedByDeadNode);
      }
    }
    assertEquals(ITEMS, db.store().count(Axis.ORIGINAL, ItemState.CONFIRMED));
    for (ItemState state : List.of(ItemState.PENDING, ItemState.WAITING, ItemState.REJECTED, ItemState.EXCLUDED)) {
      assertEquals(0, db.store().count(Axis.ORIGINAL, state), "no row " + state);
    }
    long leased = db.jdbi().withHandle(h -> h.createQuery("SELECT count(*) FROM segment_ledger_item"
        + " WHERE lease_owner IS NOT NULL").mapTo(Long.class).one());
    assertEquals(0, leased, "every lease ended with its confirm");
    ReconciliationReport report = ConsistencyAssertions.assertConsistent(db.store(), sink, BROADCAST);
    System.out.println("cluster consistency: " + report);
  }

  /** 10,000 tiny recorded files and their PENDING rows, as registration left them. */
  private static void seed(Path root) throws IOException {
    Path dir = Files.createDirectories(root.resolve("rec"));
    for (int i = 0; i < ITEMS; i++) {
      Files.writeString(dir.resolve(i + ".ts"), String.format(CONTENT, i));
    }
    int size = String.format(CONTENT, 0).length();
    db.jdbi().useHandle(h -> h.createUpdate("INSERT INTO segment_ledger_item (broadcast_id, axis, rendition, sequence,"
            + " source_path, size_bytes, state, registered_at, next_attempt_at)"
            + " SELECT :broadcast, 'ORIGINAL', '720p', s, :dir || '/' || s || '.ts', :size, 'PENDING', now(), now()"
            + " FROM generate_series(0, :last) s")
        .bind("broadcast", BROADCAST)
        .bind("dir", dir.toString())
        .bind("size", size)
        .bind("last", ITEMS - 1)
        .execute());
  }

  private static Ledger parentNode(String nodeId, Path putLog, Path bucket, Path root, Counts counts,
      LedgerEvents events) {
    Ledger ledger = ClusterNode.node(JdbiStateStore.create(db.jdbi()),
        new PutLog(new DirectoryObjectSink(bucket), putLog), root, nodeId, LEASE, WORKERS, new LedgerListener() {
          @Override
          public void onConfirmed(LedgerItem item) {
            counts.confirmed.increment();
            events.onConfirmed(item);
          }

          @Override
          public void onConfirmLost(LedgerItem item) {
            counts.confirmLost.increment();
          }

          @Override
          public void onClaimLost(LedgerItem item) {
            counts.claimLost.increment();
          }
        });
    return ledger;
  }

  /** Re-evaluates {@code condition} (a database query) at most every 100 ms. */
  private static BooleanSupplier throttled(BooleanSupplier condition) {
    long[] last = {0};
    return () -> {
      long now = System.nanoTime();
      if (now - last[0] < 100_000_000L) {
        return false;
      }
      last[0] = now;
      return condition.getAsBoolean();
    };
  }

  private static final class Counts {
    final LongAdder confirmed = new LongAdder();
    final LongAdder confirmLost = new LongAdder();
    final LongAdder claimLost = new LongAdder();
  }
}
