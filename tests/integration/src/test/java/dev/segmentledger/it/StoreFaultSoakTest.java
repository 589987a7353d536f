package dev.segmentledger.it;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.segmentledger.core.ItemId;
import dev.segmentledger.core.ItemState;
import dev.segmentledger.core.Ledger;
import dev.segmentledger.core.LedgerItem;
import dev.segmentledger.core.ManualLedger;
import dev.segmentledger.core.StoreException;
import dev.segmentledger.jdbi.JdbiStateStore;
import dev.segmentledger.s3.S3ObjectSink;
import dev.segmentledger.s3.S3ProxyServer;
import dev.segmentledger.testkit.ConsistencyAssertions;
import dev.segmentledger.testkit.FaultyStateStore;
import dev.segmentledger.testkit.LedgerEvents;
import dev.segmentledger.testkit.PostgresExtension;
import dev.segmentledger.testkit.crash.ChildJvm;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.SplittableRandom;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Function;
import java.util.stream.Collectors;
import org.jdbi.v3.core.Jdbi;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;
import software.amazon.awssdk.services.s3.S3Client;
import software.amazon.awssdk.services.s3.model.S3Object;

/**
 * Database blips never reject healthy work: two recorder hosts ({@link UploadNode}, a JVM each,
 * restarted under their node id) upload what a recorder registers, on one PostgreSQL and one S3
 * server, while every call of every store (the hosts' and the recorder's) fails at random, 1 % by
 * default, half before the call ({@code NOT_WRITTEN}) and half after it committed ({@code UNKNOWN},
 * {@link FaultyStateStore}), and each host is SIGKILLed 1 to 8 s after each start. The recorder
 * registers a file every 250 ms (one in ten 16 to 20 MiB, multipart) and registers it again when
 * its registration fails, as a recorder must. After the run, with the faults still on, the hosts
 * run without kills until every row is terminal. Required: no row rejected (every file is
 * healthy), none lost (every registered file confirmed with its object in the bucket), no
 * unfinished multipart upload, ledger and bucket consistent.
 *
 * <p>The summary is written to {@code target/store-fault-soak/<seconds>s.md} in the form of
 * {@code benchmarks/results} and printed as {@code STORE-FAULT-SOAK ...}. {@code ./mvnw verify} runs 15 s,
 * the long profile ({@code -Plong}) 60 s; the soak runs 10 minutes (docs/long-work.md): {@code
 * -Dsegmentledger.storefaultsoak.seconds=600}. {@code -Dsegmentledger.storefaultsoak.rate=0.01} sets the
 * failure rate.
 *
 * <p>What it saw when it was written, before the fixes of the ledger's store-failure handling: it
 * passed, at 1 % for 60 s and 10 minutes and at 5 % for 60 s, but its summary shows the paths those
 * fixes close. A claim that failed in the store ({@code NOT_WRITTEN} before, or {@code UNKNOWN}
 * after {@code claimRow}) was recorded on the row as an {@code INTERNAL_ERROR} attempt, which counts
 * toward the cap of {@code maxErrorAttempts} (19 in the 10 minutes; no row came near the cap, so
 * none was rejected), and attempts were cancelled for a lease seen lost (2). A run exposes a
 * rejection only when a row meets a store failure after about nine earlier attempts.
 */
@Tag("soak")
class StoreFaultSoakTest {
  @RegisterExtension static final PostgresExtension PG = PostgresExtension.create();
  private static final Duration LEASE = Duration.ofSeconds(3);
  private static final int NODES = 2;
  private static final long MIB = 1024 * 1024;
  private static final int REGISTER_TRIES = 100;

  @TempDir Path temp;

  @Test
  void twoNodesUnderRandomStoreFailuresAndKillsRejectNothingLoseNothingAndLeaveNoUpload() throws Exception {
    long seconds = Long.getLong("segmentledger.storefaultsoak.seconds", 15);
    double rate = Double.parseDouble(System.getProperty("segmentledger.storefaultsoak.rate", "0.01"));
    JdbiStateStore store = JdbiStateStore.create(Jdbi.create(PG.dataSource())).migrate();
    FaultyStateStore registrarFaults = FaultyStateStore.wrap(store, 0);
    Path root = Files.createDirectories(temp.resolve("root")).toRealPath();
    String broadcast = "storefaults-" + Long.toString(System.nanoTime(), 36);
    Instant startedAt = Instant.now();
    long started = System.nanoTime();
    try (S3ProxyServer server = S3ProxyServer.startOnFilesystem(temp.resolve("s3"));
        S3Client client = S3ProxyServer.client(server.endpoint(), Duration.ofSeconds(60));
        ManualLedger registrar = Ledger.builder().stateStore(registrarFaults.store())
            .objectSink(S3ObjectSink.builder().client(client).bucket("unused").build()).allowedRoot(root)
            .nodeId("registrar").leaseDuration(LEASE).buildManual()) {
      String bucket = server.createBucket(client);
      List<String> args = ChildDatabase.args(PG, root.toString(), server.endpoint().toString(), bucket);
      Recorder recorder = new Recorder(root, broadcast, registrar);
      registrarFaults.failureRate(rate);
      AtomicBoolean killing = new AtomicBoolean(true);
      AtomicBoolean running = new AtomicBoolean(true);
      List<NodeLives> nodes = new ArrayList<>();
      ExecutorService supervisors = Executors.newFixedThreadPool(NODES);
      List<Future<?>> lives = new ArrayList<>();
      for (int n = 1; n <= NODES; n++) {
        NodeLives node = new NodeLives(nodeArgs(args, "host-" + n, rate));
        nodes.add(node);
        lives.add(supervisors.submit(() -> node.supervise(killing, running)));
      }
      long end = System.nanoTime() + TimeUnit.SECONDS.toNanos(seconds);
      while (System.nanoTime() < end) {
        recorder.closeOne(); // a recorder closes files all along
        TimeUnit.MILLISECONDS.sleep(250);
      }
      killing.set(false); // the hosts run on, faults and all, without kills
      long drainStarted = System.nanoTime();
      boolean drained = true;
      try {
        new LedgerEvents().awaitUntil("every row terminal", () -> store.findByBroadcast(broadcast).stream()
            .allMatch(row -> row.state().isTerminal()), Duration.ofMinutes(5));
      } catch (AssertionError notDrained) {
        drained = false;
      } finally {
        running.set(false);
        for (Future<?> life : lives) {
          life.get(1, TimeUnit.MINUTES);
        }
        supervisors.shutdown();
      }
      long drainSeconds = TimeUnit.NANOSECONDS.toSeconds(System.nanoTime() - drainStarted);
      registrarFaults.failureRate(0);

      List<LedgerItem> rows = store.findByBroadcast(broadcast);
      int unfinished = client.listMultipartUploads(b -> b.bucket(bucket)).uploads().size();
      Set<String> objects = client.listObjectsV2Paginator(b -> b.bucket(bucket)).contents().stream()
          .map(S3Object::key).collect(Collectors.toCollection(HashSet::new));
      StoreFaultSoakSummary summary = summarize(seconds, rate, nodes, registrarFaults, recorder, rows, objects,
          unfinished, drainSeconds);
      String page = summary.write(Path.of("target", "store-fault-soak", seconds + "s.md"), startedAt,
          TimeUnit.NANOSECONDS.toSeconds(System.nanoTime() - started));
      page.lines().forEach(line -> System.out.println("STORE-FAULT-SOAK " + line));

      assertTrue(drained, () -> "rows still open after the drain: " + summary.wrongRowsByReason());
      assertEquals(0, rows.stream().filter(row -> row.state() == ItemState.REJECTED).count(),
          () -> "healthy rows rejected: " + summary.wrongRowsByReason());
      assertTrue(summary.met(), () -> "see the summary:\n" + page);
      assertEquals(0, unfinished, "no multipart upload left unfinished");
      ConsistencyAssertions.assertConsistent(store, S3ObjectSink.builder().client(client).bucket(bucket).build(),
          broadcast);
    }
  }

  private static StoreFaultSoakSummary summarize(long seconds, double rate, List<NodeLives> nodes,
      FaultyStateStore registrarFaults, Recorder recorder, List<LedgerItem> rows, Set<String> objects, int unfinished,
      long drainSeconds) {
    StoreFaultSoakSummary summary = new StoreFaultSoakSummary(String.format(
        "%d s of load, %d recorder hosts (UploadNode, a JVM each, 4 workers, lease %d s, parts of 5 MiB) on one"
            + " PostgreSQL (%s) and one S3Proxy (filesystem store); every store call failing with probability %.3f,"
            + " half NOT_WRITTEN before the call, half UNKNOWN after it committed; each host SIGKILLed 1-8 s after each"
            + " start; a file registered every 250 ms (one in ten 16-20 MiB), registered again on failure; then"
            + " the hosts without kills, faults still on, until every row is terminal. %d cores, load average %s.",
        seconds, nodes.size(), LEASE.toSeconds(), PG.jdbcUrl().replaceAll("\\?.*", ""), rate,
        Runtime.getRuntime().availableProcessors(), loadAverage()));
    Map<ItemId, LedgerItem> byId = rows.stream().collect(Collectors.toMap(LedgerItem::id, Function.identity()));
    long lost = 0;
    for (ItemId id : recorder.registered) {
      LedgerItem row = byId.get(id);
      if (row == null) {
        lost++;
        summary.lost(id + ": registered, no row");
      } else if (row.state() == ItemState.CONFIRMED && !objects.contains(row.objectKey())) {
        lost++;
        summary.lost(id + ": CONFIRMED, no object at " + row.objectKey());
      }
    }
    long rejected = rows.stream().filter(row -> row.state() == ItemState.REJECTED).count();
    long open = rows.stream().filter(row -> !row.state().isTerminal()).count();
    long attempts = rows.stream().mapToLong(LedgerItem::attempts).sum();
    long kills = nodes.stream().mapToLong(node -> node.kills.get()).sum();
    long lifeFaults = nodes.stream().mapToLong(node -> node.notWritten.get() + node.unknown.get()).sum();
    return summary.rows(rows)
        .add("store_faults.kills", kills, "kills", "SIGKILLs of the hosts")
        .add("store_faults.failed_starts", nodes.stream().mapToLong(node -> node.failedStarts.get()).sum(), "lives",
            "host lives that ended before STARTED (a store fault in start-up; restarted)")
        .add("store_faults.host_faults", lifeFaults, "faults", String.format("faults injected into the hosts' stores"
                + " (%d NOT_WRITTEN, %d UNKNOWN) over %d calls, as last printed by each life",
            nodes.stream().mapToLong(node -> node.notWritten.get()).sum(),
            nodes.stream().mapToLong(node -> node.unknown.get()).sum(),
            nodes.stream().mapToLong(node -> node.calls.get()).sum()))
        .add("store_faults.store_failures_recorded_on_rows",
            nodes.stream().mapToLong(node -> node.storeFailuresRecorded.get()).sum(), "attempts",
            "hosts' log lines 'failed on INTERNAL_ERROR' for a StoreException: a store failure counted as an attempt")
        .add("store_faults.attempts_cancelled_for_lost_lease",
            nodes.stream().mapToLong(node -> node.attemptsCancelled.get()).sum(), "attempts",
            "hosts' log lines 'the lease of ... was taken over or the row finished elsewhere; its attempt here is"
                + " cancelled' (a taken-over lease after a kill, or a renewal whose reply was lost)")
        .add("store_faults.recorder_faults", registrarFaults.notWritten() + registrarFaults.unknown(), "faults",
            String.format("faults injected into the recorder's store (%d NOT_WRITTEN, %d UNKNOWN) over %d calls;"
                    + " %d register calls failed and were retried", registrarFaults.notWritten(),
                registrarFaults.unknown(), registrarFaults.calls(), recorder.failedCalls.get()))
        .addAtMost("store_faults.recorder_gave_up", recorder.gaveUp.get(), 0, "files",
            "files whose registration failed " + REGISTER_TRIES + " times in a row")
        .add("store_faults.files", recorder.registered.size(), "files",
            recorder.large + " of them 16-20 MiB; " + rows.size() + " rows")
        .addAtMost("store_faults.rows_rejected", rejected, 0, "rows", "every file is healthy: any rejection is wrong")
        .addAtMost("store_faults.rows_lost", lost, 0, "rows",
            "registered files with no row, or CONFIRMED without their object in the bucket")
        .addAtMost("store_faults.rows_open_after_drain", open, 0, "rows",
            "rows not terminal " + drainSeconds + " s after the load and the kills ended (at most 300 s)")
        .addAtMost("store_faults.unfinished_uploads", unfinished, 0, "uploads", "multipart uploads left in the bucket")
        .add("store_faults.attempts", attempts, "attempts", "attempts recorded on the rows (failed or abandoned)");
  }

  private static String loadAverage() {
    try {
      return Files.readString(Path.of("/proc/loadavg")).trim().replaceAll("^(\\S+ \\S+ \\S+).*", "$1");
    } catch (IOException e) {
      return "unknown";
    }
  }

  private static List<String> nodeArgs(List<String> args, String node, double rate) {
    List<String> all = new ArrayList<>(args);
    all.addAll(List.of(node, String.valueOf(LEASE.toMillis()), "4", String.valueOf(rate)));
    return all;
  }

  /** One host's lives: started again and again, killed at random while killing, then run until told. */
  private static final class NodeLives {
    private final List<String> args;
    final AtomicLong kills = new AtomicLong();
    final AtomicLong failedStarts = new AtomicLong();
    final AtomicLong calls = new AtomicLong();
    final AtomicLong notWritten = new AtomicLong();
    final AtomicLong unknown = new AtomicLong();
    final AtomicLong storeFailuresRecorded = new AtomicLong();
    final AtomicLong attemptsCancelled = new AtomicLong();

    NodeLives(List<String> args) {
      this.args = args;
    }

    Void supervise(AtomicBoolean killing, AtomicBoolean running) throws Exception {
      while (running.get()) {
        try (ChildJvm life = ChildJvm.start(UploadNode.class, args)) {
          try {
            life.awaitLine(line -> line.startsWith("STARTED"), Duration.ofMinutes(1));
          } catch (AssertionError diedBeforeStarting) {
            failedStarts.incrementAndGet();
            continue;
          }
          if (killing.get()) {
            TimeUnit.MILLISECONDS.sleep(ThreadLocalRandom.current().nextLong(1_000, 8_001)); // the kill schedule
            life.killHard();
            kills.incrementAndGet();
          } else {
            while (running.get() && life.isAlive()) {
              TimeUnit.MILLISECONDS.sleep(200);
            }
          }
          countFaults(life.output());
        }
      }
      return null;
    }

    private void countFaults(List<String> output) {
      for (String line : output) {
        if (line.contains("failed on INTERNAL_ERROR") && line.contains("StoreException")) {
          storeFailuresRecorded.incrementAndGet();
        } else if (line.contains("its attempt here is cancelled")) {
          attemptsCancelled.incrementAndGet();
        }
      }
      for (int i = output.size() - 1; i >= 0; i--) {
        if (output.get(i).startsWith("FAULTS ")) {
          Map<String, Long> counts = Arrays.stream(output.get(i).substring(7).split(" "))
              .map(pair -> pair.split("=")).collect(Collectors.toMap(p -> p[0], p -> Long.parseLong(p[1])));
          calls.addAndGet(counts.get("calls"));
          notWritten.addAndGet(counts.get("not_written"));
          unknown.addAndGet(counts.get("unknown"));
          return;
        }
      }
    }
  }

  /** The recorder: closes a file, registers it, and registers it again while that fails. */
  private static final class Recorder {
    private final Path root;
    private final String broadcast;
    private final ManualLedger registrar;
    private final SplittableRandom random = new SplittableRandom(37);
    final List<ItemId> registered = new ArrayList<>();
    final AtomicLong failedCalls = new AtomicLong();
    final AtomicLong gaveUp = new AtomicLong();
    private int sequence;
    int large;

    Recorder(Path root, String broadcast, ManualLedger registrar) {
      this.root = root;
      this.broadcast = broadcast;
      this.registrar = registrar;
    }

    void closeOne() throws Exception {
      boolean big = sequence % 10 == 0;
      long size = big ? random.nextLong(16 * MIB, 20 * MIB + 1) : random.nextLong(64 * 1024, 2 * MIB + 1);
      Path file = root.resolve(broadcast + "-" + sequence + ".ts");
      RandomFiles.write(file, size, random);
      ItemId id = ItemId.original(broadcast, "1080p", sequence);
      sequence++;
      large += big ? 1 : 0;
      for (int tries = 1; tries <= REGISTER_TRIES; tries++) {
        try {
          registrar.register(id, file);
          registered.add(id);
          return;
        } catch (StoreException e) {
          failedCalls.incrementAndGet(); // registration is idempotent: register again
        }
      }
      gaveUp.incrementAndGet();
    }
  }
}
