package dev.segmentledger.it;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.segmentledger.core.ItemId;
import dev.segmentledger.core.ItemState;
import dev.segmentledger.core.Ledger;
import dev.segmentledger.core.LedgerItem;
import dev.segmentledger.core.ManualLedger;
import dev.segmentledger.jdbi.JdbiStateStore;
import dev.segmentledger.testkit.DirectoryObjectSink;
import dev.segmentledger.testkit.LedgerEvents;
import dev.segmentledger.testkit.PostgresExtension;
import dev.segmentledger.testkit.crash.ChildJvm;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Random;
import org.jdbi.v3.core.Jdbi;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

/**
 * An expired lease means a dead or frozen node: a node frozen with SIGSTOP in the middle of a long
 * PUT stops renewing its lease, and another node takes the row over once the lease expires,
 * uploads and confirms it. When the frozen node is continued (SIGCONT), its heartbeat finds the
 * lease gone and cancels its own attempt (it reports the lost claim and records nothing).
 */
class FrozenNodeTest {
  @RegisterExtension static final PostgresExtension PG = PostgresExtension.create();
  private static final Duration LEASE = Duration.ofSeconds(2);

  @TempDir Path temp;

  @Test
  void aFrozenNodeIsTakenOverOnceItsLeaseExpiresAndCancelsItsAttemptWhenItWakes() throws Exception {
    JdbiStateStore store = JdbiStateStore.create(Jdbi.create(PG.dataSource())).migrate();
    Path root = Files.createDirectories(temp.resolve("root")).toRealPath();
    Path bucket = Files.createDirectories(temp.resolve("bucket"));
    ItemId id = ItemId.original("frozen-" + Long.toString(System.nanoTime(), 36), "720p", 0);
    Path file = root.resolve("original.ts");
    byte[] bytes = new byte[2 << 20]; // 32 reads of 64 KiB: over 6 s at 200 ms a read
    new Random(7).nextBytes(bytes);
    Files.write(file, bytes);
    try (ManualLedger registrar = Ledger.builder().stateStore(store).objectSink(new DirectoryObjectSink(bucket))
        .allowedRoot(root).leaseDuration(LEASE).nodeId("registrar").buildManual()) {
      registrar.register(id, file);
    }
    Path frozenLog = temp.resolve("puts-frozen.log");
    Path rescuerLog = temp.resolve("puts-rescuer.log");
    try (ChildJvm frozen = ChildJvm.start(SlowNode.class, ChildDatabase.args(PG, root.toString(), bucket.toString(),
        frozenLog.toString(), "frozen", String.valueOf(LEASE.toMillis()), "200", "10"))) {
      frozen.awaitLine(line -> line.equals("PUT " + id.objectKey()), Duration.ofSeconds(60));
      signal("STOP", frozen.pid());
      long frozenAt = System.nanoTime();

      LedgerEvents events = new LedgerEvents();
      try (Ledger rescuer = Ledger.builder().stateStore(store)
          .objectSink(new PutLog(new DirectoryObjectSink(bucket), rescuerLog)).allowedRoot(root)
          .leaseDuration(LEASE).sweepInterval(Duration.ofMillis(50)).backoff(Wiring.SHORT_BACKOFF)
          .nodeId("rescuer").listener(events).build()) {
        rescuer.start();
        events.awaitUntil("the rescuer confirmed the frozen node's row",
            () -> store.find(id).orElseThrow().state() == ItemState.CONFIRMED, Duration.ofSeconds(30));
      }
      Duration takeover = Duration.ofNanos(System.nanoTime() - frozenAt);
      assertTrue(takeover.compareTo(LEASE.plusSeconds(5)) < 0, "taken over " + takeover + " after the freeze");

      signal("CONT", frozen.pid());
      frozen.awaitLine(line -> line.equals("CLAIM LOST " + id), Duration.ofSeconds(30));

      LedgerItem row = store.find(id).orElseThrow();
      assertEquals(ItemState.CONFIRMED, row.state());
      assertEquals(1, row.attempts(), "the frozen node's attempt is counted abandoned");
      Map<String, Integer> puts = PutLog.merge(List.of(frozenLog, rescuerLog));
      assertEquals(1, puts.getOrDefault(id.objectKey(), 0), "the frozen node never completed its PUT");
      assertTrue(frozen.output().stream().noneMatch(line -> line.startsWith("FAILED")),
          "the woken node recorded nothing over the rescuer's work: " + frozen.output());
    }
  }

  private static void signal(String signal, long pid) throws Exception {
    Process kill = new ProcessBuilder("kill", "-" + signal, Long.toString(pid)).inheritIO().start();
    assertEquals(0, kill.waitFor());
  }
}
