package dev.segmentledger.it;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.segmentledger.core.ItemState;
import dev.segmentledger.core.LedgerItem;
import dev.segmentledger.core.ObjectKeys;
import dev.segmentledger.core.Reason;
import dev.segmentledger.testkit.ConsistencyAssertions;
import dev.segmentledger.testkit.DirectoryObjectSink;
import dev.segmentledger.testkit.PostgresExtension;
import dev.segmentledger.testkit.crash.ChildJvm;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

/**
 * Hosts with local disks: two recorder hosts on one PostgreSQL ledger and one durable
 * bucket (a {@link DirectoryObjectSink} directory), each host a child JVM with its own "local disk"
 * (an allowed root the other host's ledger may not read: root can read every file here, so "cannot
 * read" is the allowed root) and its own storage group. Files keep arriving on both hosts while each
 * is killed with SIGKILL in turn and restarted under a new node id: host a is killed early, with its
 * uploads held (so it dies holding leases and with rows to upload), and stays down while host b keeps
 * recording (host b must leave a's rows alone: they wait, never rejected),
 * then a comes back (its new node takes over the dead node's rows when their leases expire), then b
 * is killed and comes back.
 *
 * <p>Checked: every row CONFIRMED and in its host's group, no row ever failed for
 * {@link Reason#MISSING_FILE} or {@link Reason#OUTSIDE_ROOT}; every PUT (each process logs the keys
 * it PUTs, before the PUT) was issued by a node of the key's own host; the bucket and the ledger
 * agree. With {@code -Dhosts.withoutGroups=true} the same scenario runs without storage groups (the
 * behaviour before storage groups), and fails: each host's sweeper takes the other's rows and rejects them
 * as outside its root.
 */
@Tag("long") // an end-to-end scenario of 20 s or more: the long profile runs it (tests/README.md)
class HostsWithLocalDisksTest {
  @RegisterExtension static final PostgresExtension PG = PostgresExtension.create();
  private static final Duration LEASE = Duration.ofSeconds(2);
  private static final int FILES_PER_LIFE = 150;
  private static final long INTERVAL_MILLIS = 20;
  private static final long PUT_MILLIS = 10;
  private static final boolean WITHOUT_GROUPS = Boolean.getBoolean("hosts.withoutGroups");
  private static PooledStore db;

  @TempDir Path temp;

  @BeforeAll
  static void migrate() {
    db = PooledStore.migrated(PG, 4);
  }

  @AfterAll
  static void closePool() {
    db.close();
  }

  /** One host: its broadcast (so its keys are told apart), group, local disk and PUT logs. */
  private record Host(String name, String group, Path root, List<Path> putLogs) {
    String broadcast() {
      return "rec-" + name;
    }
  }

  @Test
  void twoHostsKilledInTurnEveryRowConfirmedByItsOwnHostNoneRejected() throws Exception {
    long started = System.nanoTime();
    Path bucket = temp.resolve("bucket");
    DirectoryObjectSink sink = new DirectoryObjectSink(bucket);
    Host a = host("a");
    Host b = host("b");
    List<ChildJvm> children = new ArrayList<>();
    try {
      Files.createFile(hold(a)); // host a's first life registers but its uploads hang: it dies with them
      ChildJvm a1 = start(a, 1, bucket, 0, children);
      ChildJvm b1 = start(b, 1, bucket, 0, children);
      a1.awaitLine(line -> line.equals("REGISTERED 50"), Duration.ofSeconds(60));
      a1.killHard(); // host a goes down while it holds leases and has rows to upload
      long aOpenAtKill = count(a, "state IN ('PENDING', 'WAITING')");

      b1.awaitLine(line -> line.equals("REGISTERED ALL"), Duration.ofSeconds(60));
      Thread.sleep(2 * LEASE.toMillis()); // every lease of the dead node has expired; b's sweeper sees a's rows due
      long aOpenWhileDown = count(a, "state IN ('PENDING', 'WAITING')");
      long aRejectedWhileDown = count(a, "state = 'REJECTED'");

      Files.delete(hold(a));
      ChildJvm a2 = start(a, 2, bucket, 100_000, children);
      a2.awaitLine(line -> line.equals("REGISTERED 50"), Duration.ofSeconds(60));
      b1.killHard();
      ChildJvm b2 = start(b, 2, bucket, 100_000, children);
      a2.awaitLine(line -> line.equals("REGISTERED ALL"), Duration.ofSeconds(60));
      b2.awaitLine(line -> line.equals("REGISTERED ALL"), Duration.ofSeconds(60));

      long deadline = System.nanoTime() + Duration.ofSeconds(60).toNanos();
      while (count(a, "state IN ('PENDING', 'WAITING')") + count(b, "state IN ('PENDING', 'WAITING')") > 0
          && System.nanoTime() < deadline) {
        Thread.sleep(100); // polls the database; no event reaches this JVM from the children
      }
      System.out.printf("hosts: 2 hosts x 2 lives (SIGKILL each once), lease %s: rows a=%d b=%d;"
              + " host a killed with %d rows open; while it was down (b recording): %d rows of a open, %d rejected;"
              + " at the end: a %d confirmed %d rejected, b %d confirmed %d rejected; %.1f s%n",
          LEASE, count(a, "true"), count(b, "true"), aOpenAtKill, aOpenWhileDown, aRejectedWhileDown,
          count(a, "state = 'CONFIRMED'"), count(a, "state = 'REJECTED'"), count(b, "state = 'CONFIRMED'"),
          count(b, "state = 'REJECTED'"), (System.nanoTime() - started) / 1e9);
      assertEquals(0, aRejectedWhileDown, "no row of the host that was down was rejected meanwhile");
      assertTrue(aOpenWhileDown > 0, "host a was killed with rows to upload, which waited for it: " + aOpenWhileDown);
      assertEquals(aOpenAtKill, aOpenWhileDown, "no other host uploaded a row of the host that was down");
    } finally {
      for (ChildJvm child : children) {
        child.close();
      }
    }

    for (Host host : List.of(a, b)) {
      List<LedgerItem> rows = db.store().findByBroadcast(host.broadcast());
      assertTrue(rows.size() >= 50 + FILES_PER_LIFE, host.name() + ": rows of both lives, " + rows.size());
      for (LedgerItem row : rows) {
        assertEquals(ItemState.CONFIRMED, row.state(), row.toString());
        assertNotEquals(Reason.MISSING_FILE, row.reason(), row.toString());
        assertNotEquals(Reason.OUTSIDE_ROOT, row.reason(), row.toString());
        if (!WITHOUT_GROUPS) {
          assertEquals(host.group(), row.storageGroup(), row.toString());
        }
      }
      Map<String, Integer> puts = PutLog.merge(host.putLogs());
      String prefix = ObjectKeys.broadcastPrefix(host.broadcast());
      for (String key : puts.keySet()) {
        assertTrue(key.startsWith(prefix), "host " + host.name() + " PUT another host's key " + key);
      }
      Set<String> keys = puts.keySet();
      for (LedgerItem row : rows) {
        assertTrue(keys.contains(row.objectKey()), "confirmed without a PUT by its own host: " + row);
      }
      ConsistencyAssertions.assertConsistent(db.store(), sink, host.broadcast());
    }
  }

  private Host host(String name) throws Exception {
    Path root = Files.createDirectories(temp.resolve("disk-" + name)).toRealPath();
    return new Host(name, "host-" + name, root, new ArrayList<>());
  }

  /** Starts life {@code life} of {@code host}: a new node id, sequences from {@code first}. */
  private ChildJvm start(Host host, int life, Path bucket, long first, List<ChildJvm> children) throws Exception {
    Path putLog = temp.resolve("puts-" + host.name() + life + ".log");
    host.putLogs().add(putLog);
    ChildJvm child = ChildJvm.start(HostNode.class, ChildDatabase.args(PG, host.root().toString(), bucket.toString(),
        putLog.toString(), "node-" + host.name() + life, WITHOUT_GROUPS ? "-" : host.group(),
        Long.toString(LEASE.toMillis()), host.broadcast(), Long.toString(first), Integer.toString(FILES_PER_LIFE),
        Long.toString(INTERVAL_MILLIS), Long.toString(PUT_MILLIS), hold(host).toString()));
    children.add(child);
    child.awaitLine(line -> line.startsWith("STARTED "), Duration.ofSeconds(60));
    return child;
  }

  /** While this file exists, the host's PUTs wait. */
  private Path hold(Host host) {
    return temp.resolve("hold-" + host.name());
  }

  private static long count(Host host, String condition) {
    return db.jdbi().withHandle(h -> h.createQuery("SELECT count(*) FROM segment_ledger_item"
        + " WHERE broadcast_id = :b AND " + condition).bind("b", host.broadcast()).mapTo(Long.class).one());
  }
}
