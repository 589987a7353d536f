package dev.segmentledger.it;

import static org.junit.jupiter.api.Assertions.assertEquals;

import dev.segmentledger.core.ItemId;
import dev.segmentledger.core.ItemState;
import dev.segmentledger.core.Ledger;
import dev.segmentledger.core.LedgerItem;
import dev.segmentledger.core.ManualLedger;
import dev.segmentledger.jdbi.JdbiStateStore;
import dev.segmentledger.testkit.DirectoryObjectSink;
import dev.segmentledger.testkit.FakeRepackager;
import dev.segmentledger.testkit.LedgerEvents;
import dev.segmentledger.testkit.PostgresExtension;
import dev.segmentledger.testkit.crash.ChildJvm;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.stream.Collectors;
import org.jdbi.v3.core.Jdbi;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

/**
 * Healthy nodes do not take over healthy work: three live nodes, each in a JVM of its own
 * ({@link SlowNode}), share one PostgreSQL ledger with a 2-second lease, and every PUT (a slow
 * uplink: about 7 s) and every repackage (6 s) lasts several leases. Each node's heartbeat keeps
 * the leases of its attempts, so every item is PUT exactly once (started once, completed once) and
 * no attempt is counted abandoned. (A node may still find a row it swept claimed by another node
 * before it: that is a refused claim, not a takeover.)
 */
@Tag("long")
class LongWorkClusterTest {
  @RegisterExtension static final PostgresExtension PG = PostgresExtension.create();
  private static final int ORIGINALS = 6;
  private static final Duration LEASE = Duration.ofSeconds(2);

  @TempDir Path temp;

  @Test
  void threeLiveNodesPutEachItemExactlyOnceThoughEveryPutAndRepackageLastsSeveralLeases() throws Exception {
    JdbiStateStore store = JdbiStateStore.create(Jdbi.create(PG.dataSource())).migrate();
    Path root = Files.createDirectories(temp.resolve("root")).toRealPath();
    Path bucket = Files.createDirectories(temp.resolve("bucket"));
    String broadcast = "long-" + Long.toString(System.nanoTime(), 36);
    try (ManualLedger registrar = Ledger.builder().stateStore(store).objectSink(new DirectoryObjectSink(bucket))
        .allowedRoot(root).repackager(new FakeRepackager(), root.resolve("playback")).leaseDuration(LEASE)
        .nodeId("registrar").buildManual()) {
      for (int i = 0; i < ORIGINALS; i++) {
        ItemId id = ItemId.original(broadcast, "720p", i);
        Path file = root.resolve(broadcast + "-" + i + ".ts");
        byte[] bytes = new byte[1 << 20]; // 16 reads of 64 KiB: about 7 s at 450 ms a read
        new Random(i).nextBytes(bytes);
        Files.write(file, bytes);
        registrar.register(id, file);
      }
    }
    List<ChildJvm> nodes = new ArrayList<>();
    List<Path> logs = new ArrayList<>();
    try {
      for (int n = 1; n <= 3; n++) {
        Path log = temp.resolve("puts-" + n + ".log");
        logs.add(log);
        nodes.add(ChildJvm.start(SlowNode.class, ChildDatabase.args(PG, root.toString(), bucket.toString(),
            log.toString(), "node-" + n, String.valueOf(LEASE.toMillis()), "450", "6000")));
      }
      int rows = 2 * ORIGINALS + 1;
      new LedgerEvents().awaitUntil("every row confirmed", () -> store.findByBroadcast(broadcast).stream()
          .filter(r -> r.state() == ItemState.CONFIRMED).count() == rows, Duration.ofMinutes(3));

      Map<String, Integer> completed = PutLog.merge(logs);
      Map<String, Long> started = nodes.stream().flatMap(node -> node.output().stream())
          .filter(line -> line.startsWith("PUT ")).collect(Collectors.groupingBy(line -> line.substring(4),
              Collectors.counting()));
      for (LedgerItem row : store.findByBroadcast(broadcast)) {
        assertEquals(0, row.attempts(), () -> row.id() + " had an attempt abandoned: " + row.lastError());
        assertEquals(1L, started.getOrDefault(row.id().objectKey(), 0L), () -> row.id() + " PUT started twice");
        assertEquals(1, completed.getOrDefault(row.id().objectKey(), 0), () -> row.id() + " PUT twice");
      }
      assertEquals(rows, started.size());
    } finally {
      nodes.forEach(ChildJvm::close);
    }
  }
}
