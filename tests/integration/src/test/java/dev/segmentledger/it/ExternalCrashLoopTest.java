package dev.segmentledger.it;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.segmentledger.core.ItemId;
import dev.segmentledger.core.ItemState;
import dev.segmentledger.core.Ledger;
import dev.segmentledger.core.LedgerBuilder;
import dev.segmentledger.core.LedgerItem;
import dev.segmentledger.core.ManualLedger;
import dev.segmentledger.core.Reason;
import dev.segmentledger.jdbi.JdbiStateStore;
import dev.segmentledger.s3.S3ObjectSink;
import dev.segmentledger.s3.S3ProxyServer;
import dev.segmentledger.testkit.PostgresExtension;
import dev.segmentledger.testkit.crash.ChildJvm;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;
import java.util.concurrent.ThreadLocalRandom;
import org.jdbi.v3.core.Jdbi;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;
import software.amazon.awssdk.services.s3.S3Client;

/**
 * A crash loop from outside is not a poison: a recorder ({@link PoisonedUploadNode}, a JVM of its
 * own restarted under its node id) is SIGKILLed at random 0.2 to 5 s after each start of its JVM
 * (most kills land in start-up, or while it reads and digests files before a byte is stored), with
 * the CPU saturated by other processes. Among its files is one true poison, an item whose upload
 * kills its process every time. Once the kills stop: no healthy row was rejected for abandonment,
 * the poison was rejected {@code REPEATEDLY_ABANDONED} with at most the limit of deaths blamed on
 * it, and no multipart upload is left unfinished. The rule (docs/design.md, "Long work"): a suspect
 * runs alone only once its process has been up for a lease duration (6 s here, longer than any life
 * of the loop), so only a death of an otherwise healthy process is blamed.
 *
 * <p>Tagged long: the long profile ({@code -Plong}, tests/README.md) runs {@value #DEFAULT_KILLS} kills
 * (most of its time is the poison's deaths after them, so fewer kills would not make it short); the
 * full run ({@code -Dsegmentledger.crashloop.kills=60}, docs/long-work.md) prints its figures as {@code
 * EXTERNAL-CRASH-LOOP ...}.
 */
@Tag("long")
class ExternalCrashLoopTest {
  @RegisterExtension static final PostgresExtension PG = PostgresExtension.create();
  private static final int DEFAULT_KILLS = 4;
  private static final Duration LEASE = Duration.ofSeconds(6);
  private static final long MIB = 1024 * 1024;
  private static final int FILES = 24;
  /** Deaths without progress beside other work that make a row a suspect (AbandonedAttempts). */
  private static final int SUSPECT_AFTER = 2;

  @TempDir Path temp;

  @Test
  void externalKillsSoonAfterEachStartRejectNoHealthyRowAndATruePoisonIsStillRejected() throws Exception {
    int kills = Integer.getInteger("segmentledger.crashloop.kills", DEFAULT_KILLS);
    JdbiStateStore store = JdbiStateStore.create(Jdbi.create(PG.dataSource())).migrate();
    Path root = Files.createDirectories(temp.resolve("root")).toRealPath();
    String broadcast = "loop-" + Long.toString(System.nanoTime(), 36);
    ItemId poison = ItemId.original(broadcast, "1080p", 3);
    List<Process> burners = new ArrayList<>();
    try (S3ProxyServer server = S3ProxyServer.startOnFilesystem(temp.resolve("s3"));
        S3Client client = S3ProxyServer.client(server.endpoint(), Duration.ofSeconds(60));
        ManualLedger registrar = Ledger.builder().stateStore(store)
            .objectSink(S3ObjectSink.builder().client(client).bucket("unused").build()).allowedRoot(root)
            .nodeId("registrar").leaseDuration(LEASE).buildManual()) {
      String bucket = server.createBucket(client);
      SplittableRandom random = new SplittableRandom(7);
      for (int i = 0; i < FILES; i++) { // the first rows of a broadcast: one in four multipart
        long size = i % 4 == 1 ? random.nextLong(16 * MIB, 24 * MIB + 1) : random.nextLong(64 * 1024, 2 * MIB + 1);
        Path file = root.resolve(broadcast + "-" + i + ".ts");
        RandomFiles.write(file, size, random);
        registrar.register(ItemId.original(broadcast, "1080p", i), file);
      }
      List<String> args = new ArrayList<>(ChildDatabase.args(PG, root.toString(), server.endpoint().toString(), bucket));
      args.addAll(List.of("recorder", String.valueOf(LEASE.toMillis()), "4", poison.objectKey()));

      for (int i = 0; i < Runtime.getRuntime().availableProcessors(); i++) { // another process saturates the CPU
        burners.add(new ProcessBuilder("sh", "-c", "while :; do :; done").start());
      }
      long started = System.nanoTime();
      int killed = 0;
      int poisonDeaths = 0;
      while (killed < kills) {
        try (ChildJvm life = ChildJvm.start(PoisonedUploadNode.class, args)) {
          Duration killAfter = Duration.ofMillis(ThreadLocalRandom.current().nextLong(200, 5_001));
          if (life.exitsWithin(killAfter)) {
            poisonDeaths++; // the poison killed it first
          } else {
            life.killHard();
            killed++;
          }
        }
      }
      burners.forEach(Process::destroyForcibly);
      long loopSeconds = Duration.ofNanos(System.nanoTime() - started).toSeconds();

      // The kills are over: the supervisor restarts the recorder whenever the poison kills it.
      int afterLoop = 0;
      long deadline = System.nanoTime() + Duration.ofMinutes(5).toNanos();
      while (!allTerminal(store, broadcast)) {
        assertTrue(System.nanoTime() < deadline, "every row terminal within 5 minutes");
        try (ChildJvm life = ChildJvm.start(PoisonedUploadNode.class, args)) {
          while (!life.exitsWithin(Duration.ofMillis(500))) {
            if (allTerminal(store, broadcast) || System.nanoTime() > deadline) {
              break;
            }
          }
          if (!allTerminal(store, broadcast)) {
            afterLoop++;
          }
        }
      }
      List<LedgerItem> rows = store.findByBroadcast(broadcast);
      LedgerItem poisoned = store.find(poison).orElseThrow();
      long healthyRejected = rows.stream()
          .filter(row -> !row.id().equals(poison) && row.reason() == Reason.REPEATEDLY_ABANDONED).count();
      int unfinished = client.listMultipartUploads(b -> b.bucket(bucket)).uploads().size();
      System.out.printf("EXTERNAL-CRASH-LOOP kills=%d loop_s=%d poison_deaths_in_loop=%d poison_deaths_after=%d"
              + " files=%d healthy_rejected_for_abandonment=%d poison=%s/%s poison_attempts=%d unfinished_uploads=%d"
              + " max_healthy_attempts=%d%n", killed, loopSeconds, poisonDeaths, afterLoop, rows.size(), healthyRejected,
          poisoned.state(), poisoned.reason(), poisoned.attempts(), unfinished,
          rows.stream().filter(row -> !row.id().equals(poison)).mapToInt(LedgerItem::attempts).max().orElse(0));
      assertEquals(0, healthyRejected, "no healthy row rejected for abandonment");
      for (LedgerItem row : rows) {
        if (!row.id().equals(poison)) {
          assertEquals(ItemState.CONFIRMED, row.state(), () -> row.id() + ": " + row.reason() + " " + row.lastError());
        }
      }
      assertEquals(ItemState.REJECTED, poisoned.state(), poisoned.lastError());
      assertEquals(Reason.REPEATEDLY_ABANDONED, poisoned.reason(), poisoned.lastError());
      // Within the limit: two deaths beside other work make it a suspect, then the limit of lone deaths.
      int limit = SUSPECT_AFTER + LedgerBuilder.DEFAULT_MAX_ABANDONED_ATTEMPTS;
      assertTrue(poisonDeaths + afterLoop <= limit, poisonDeaths + afterLoop + " deaths of the poison, at most " + limit);
      assertEquals(0, unfinished, "no multipart upload left unfinished");
    } finally {
      burners.forEach(Process::destroyForcibly);
    }
  }

  private static boolean allTerminal(JdbiStateStore store, String broadcast) {
    return store.findByBroadcast(broadcast).stream().allMatch(row -> row.state().isTerminal());
  }
}
