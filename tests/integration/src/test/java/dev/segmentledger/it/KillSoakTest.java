package dev.segmentledger.it;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.segmentledger.core.ItemId;
import dev.segmentledger.core.ItemState;
import dev.segmentledger.core.Ledger;
import dev.segmentledger.core.LedgerItem;
import dev.segmentledger.core.ManualLedger;
import dev.segmentledger.core.Reason;
import dev.segmentledger.jdbi.JdbiStateStore;
import dev.segmentledger.rig.FaultProxy;
import dev.segmentledger.s3.S3ObjectSink;
import dev.segmentledger.s3.S3ProxyServer;
import dev.segmentledger.testkit.ConsistencyAssertions;
import dev.segmentledger.testkit.LedgerEvents;
import dev.segmentledger.testkit.PostgresExtension;
import dev.segmentledger.testkit.crash.ChildJvm;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import org.jdbi.v3.core.Jdbi;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;
import software.amazon.awssdk.services.s3.S3Client;

/**
 * No innocent victims: two recorder hosts ({@link UploadNode}, each in a JVM of its own, restarted
 * under its node id as a supervisor would) upload a mix of files to S3 while each is SIGKILLed at
 * random, 0.5 to 5 seconds after its ledger started uploading; about a sixth of the files are 16 to 40 MiB (multipart, resumed
 * after each kill). Files are registered all along, as a recorder closes them. Once the kills are
 * over, every row is confirmed: none was rejected as a poison though their uploads died again and
 * again (their deaths came beside other work, or after durable progress), no multipart upload is
 * left unfinished, and ledger and bucket agree.
 *
 * <p>Tagged long (with 4 kills it still took about 3 minutes): the long profile ({@code -Plong}) runs
 * {@value #DEFAULT_KILLS} kills; the
 * soak runs more: {@code -Dsegmentledger.killsoak.kills=200} (docs/long-work.md). The figures are printed
 * as {@code KILL-SOAK ...}.
 */
@Tag("long")
class KillSoakTest {
  @RegisterExtension static final PostgresExtension PG = PostgresExtension.create();
  private static final int DEFAULT_KILLS = 16;
  private static final Duration LEASE = Duration.ofSeconds(3);
  private static final int NODES = 2;
  private static final long MIB = 1024 * 1024;

  @TempDir Path temp;

  @Test
  void randomKillsOfTwoUploadingNodesRejectNoRowAndLeaveNoUnfinishedUpload() throws Exception {
    int kills = Integer.getInteger("segmentledger.killsoak.kills", DEFAULT_KILLS);
    JdbiStateStore store = JdbiStateStore.create(Jdbi.create(PG.dataSource())).migrate();
    Path root = Files.createDirectories(temp.resolve("root")).toRealPath();
    String broadcast = "soak-" + Long.toString(System.nanoTime(), 36);
    AtomicLong announced = new AtomicLong();
    try (S3ProxyServer server = S3ProxyServer.startOnFilesystem(temp.resolve("s3"));
        FaultProxy proxy = FaultProxy.start(server.endpoint());
        S3Client client = S3ProxyServer.client(server.endpoint(), Duration.ofSeconds(60));
        ManualLedger registrar = Ledger.builder().stateStore(store)
            .objectSink(S3ObjectSink.builder().client(client).bucket("unused").build()).allowedRoot(root)
            .nodeId("registrar").leaseDuration(LEASE).buildManual()) {
      String bucket = server.createBucket(client);
      proxy.onRequest(request -> {
        if (request.isUpload()) {
          announced.addAndGet(request.contentLength());
        }
      }, false);
      AtomicBoolean killing = new AtomicBoolean(true);
      AtomicInteger killed = new AtomicInteger();
      Recorder recorded = new Recorder(root, broadcast, registrar);
      ExecutorService supervisors = Executors.newFixedThreadPool(NODES);
      List<Future<?>> lives = new ArrayList<>();
      List<String> args = ChildDatabase.args(PG, root.toString(), proxy.uri().toString(), bucket);
      long started = System.nanoTime();
      for (int n = 1; n <= NODES; n++) {
        String node = "host-" + n;
        lives.add(supervisors.submit(() -> superviseWithKills(args, node, killing, killed, kills)));
      }
      while (killed.get() < kills) {
        recorded.closeOne(); // a recorder closes files all along
        TimeUnit.MILLISECONDS.sleep(150);
      }
      killing.set(false);
      for (Future<?> life : lives) {
        life.get(5, TimeUnit.MINUTES);
      }
      List<ChildJvm> survivors = new ArrayList<>();
      try {
        for (int n = 1; n <= NODES; n++) {
          survivors.add(ChildJvm.start(UploadNode.class, nodeArgs(args, "host-" + n)));
        }
        new LedgerEvents().awaitUntil("every row confirmed or terminal", () -> store.findByBroadcast(broadcast).stream()
            .allMatch(row -> row.state().isTerminal()), Duration.ofMinutes(5));
      } finally {
        survivors.forEach(ChildJvm::close);
      }
      Duration took = Duration.ofNanos(System.nanoTime() - started);

      List<LedgerItem> rows = store.findByBroadcast(broadcast);
      long rejected = rows.stream().filter(row -> row.reason() == Reason.REPEATEDLY_ABANDONED).count();
      long abandoned = rows.stream().mapToLong(LedgerItem::attempts).sum();
      long registered = rows.stream().mapToLong(LedgerItem::sizeBytes).sum();
      int unfinished = client.listMultipartUploads(b -> b.bucket(bucket)).uploads().size();
      System.out.printf("KILL-SOAK kills=%d files=%d large=%d rejected_for_abandonment=%d attempts_abandoned_or_failed=%d"
              + " unfinished_uploads=%d bytes_announced_per_byte_registered=%.3f took_s=%d%n", killed.get(), rows.size(),
          recorded.large(), rejected, abandoned, unfinished, (double) announced.get() / registered, took.toSeconds());
      assertTrue(killed.get() >= kills);
      assertTrue(recorded.large() * 100L >= 15L * rows.size(), "at least 15 % of the files are large");
      assertEquals(0, rejected, "no innocent row rejected as a poison");
      for (LedgerItem row : rows) {
        assertEquals(ItemState.CONFIRMED, row.state(), () -> row.id() + ": " + row.reason() + " " + row.lastError());
      }
      assertEquals(0, unfinished, "no multipart upload left unfinished");
      ConsistencyAssertions.assertConsistent(store, S3ObjectSink.builder().client(client).bucket(bucket).build(),
          broadcast);
    }
  }

  /** Starts {@code node} again and again, killing each life 0.5 to 5 s after its ledger started. */
  private static Void superviseWithKills(List<String> args, String node, AtomicBoolean killing, AtomicInteger killed,
      int kills) throws Exception {
    while (killing.get() && killed.get() < kills) {
      try (ChildJvm life = ChildJvm.start(UploadNode.class, nodeArgs(args, node))) {
        life.awaitLine(line -> line.startsWith("STARTED"), Duration.ofMinutes(1));
        TimeUnit.MILLISECONDS.sleep(ThreadLocalRandom.current().nextLong(500, 5_001)); // the kill schedule
        life.killHard();
        killed.incrementAndGet();
      }
    }
    return null;
  }

  private static List<String> nodeArgs(List<String> args, String node) {
    List<String> all = new ArrayList<>(args);
    all.addAll(List.of(node, String.valueOf(LEASE.toMillis()), "4"));
    return all;
  }

  /** The recorder's files: one in six of 16 to 40 MiB, the rest of 64 KiB to 2 MiB, random bytes. */
  private static final class Recorder {
    private final Path root;
    private final String broadcast;
    private final ManualLedger registrar;
    private final SplittableRandom random = new SplittableRandom(42);
    private int sequence;
    private int large;

    Recorder(Path root, String broadcast, ManualLedger registrar) {
      this.root = root;
      this.broadcast = broadcast;
      this.registrar = registrar;
    }

    void closeOne() throws IOException {
      boolean big = sequence % 6 == 0;
      long size = big ? random.nextLong(16 * MIB, 40 * MIB + 1) : random.nextLong(64 * 1024, 2 * MIB + 1);
      Path file = root.resolve(broadcast + "-" + sequence + ".ts");
      RandomFiles.write(file, size, random);
      registrar.register(ItemId.original(broadcast, "1080p", sequence), file);
      large += big ? 1 : 0;
      sequence++;
    }

    int large() {
      return large;
    }
  }
}
