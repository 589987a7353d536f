package dev.segmentledger.it;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.segmentledger.core.Axis;
import dev.segmentledger.core.ItemId;
import dev.segmentledger.core.ItemState;
import dev.segmentledger.core.Ledger;
import dev.segmentledger.core.LedgerItem;
import dev.segmentledger.core.ManualLedger;
import dev.segmentledger.core.ObjectKeys;
import dev.segmentledger.core.Reason;
import dev.segmentledger.core.spi.Repackager;
import dev.segmentledger.jdbi.JdbiStateStore;
import dev.segmentledger.s3.S3ObjectSink;
import dev.segmentledger.s3.S3ProxyServer;
import dev.segmentledger.testkit.ConsistencyAssertions;
import dev.segmentledger.testkit.FakeRepackager;
import dev.segmentledger.testkit.LedgerEvents;
import dev.segmentledger.testkit.PostgresExtension;
import dev.segmentledger.testkit.crash.ChildJvm;
import java.io.IOException;
import java.nio.file.FileVisitResult;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.SimpleFileVisitor;
import java.nio.file.attribute.BasicFileAttributes;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.SplittableRandom;
import java.util.concurrent.CopyOnWriteArrayList;
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
 * The recorder's disk under random kills: two recorder hosts ({@link UploadNode}, a JVM each,
 * restarted under their node id as a supervisor would), each with a local disk of its own (its
 * allowed root) and its own storage group, upload to one S3Proxy what a recorder on each host
 * registers (originals of one rendition per host, repackaged by the testkit's {@link FakeRepackager}
 * into PLAYBACK and INIT files below the host's {@code playback} directory) on one PostgreSQL
 * ledger, with a local retention of originals of {@value #RETENTION_MILLIS} ms. Every 0.3 to 1.5 s
 * a random host is SIGKILLed if its ledger has started (a host still starting is left alone at that
 * tick), and its supervisor starts it again.
 *
 * <p>A watcher in this JVM lists both disks every {@value #WATCH_MILLIS} ms; for every file it sees
 * disappear it looks its row up by source path at once and requires it CONFIRMED (an original: its
 * PLAYBACK row and the INIT row made from it confirmed too, and the local retention past since the
 * latest of those confirms). A disappeared file that is no row's is allowed only if it is a
 * repackager's temporary; a deleted file must not reappear. Once the kills are over: both hosts are
 * stopped and every unconfirmed row's original must still be on its disk; the hosts are started
 * again, the broadcast ended, every row must end CONFIRMED (rows rejected as
 * {@code REPEATEDLY_ABANDONED}, if any, are re-opened as an operator would, and counted); once the
 * retention has passed since the last confirm the hosts are started once more (a node's first sweep
 * does the upkeep that finds originals past their retention; later it runs about once a minute) and
 * every confirmed row's local file, produced or original, must be gone; ledger and bucket agree; a
 * sentinel file outside both roots, and a symbolic link to it inside each host's playback
 * directory, are untouched.
 *
 * <p>{@code ./mvnw verify} runs {@value #DEFAULT_KILLS} kills, the long profile ({@code -Plong}) 8; the
 * proof runs at least 100: {@code -Dsegmentledger.diskretention.kills=100}. One line of figures is printed
 * as {@code DISK-RETENTION-KILL-SOAK ...}.
 */
@Tag("soak")
class DiskRetentionKillSoakTest {
  @RegisterExtension static final PostgresExtension PG = PostgresExtension.create();
  private static final int DEFAULT_KILLS = 2;
  private static final Duration LEASE = Duration.ofSeconds(3);
  private static final long RETENTION_MILLIS = 1_500;
  private static final Duration RETENTION = Duration.ofMillis(RETENTION_MILLIS);
  private static final long WATCH_MILLIS = 50;
  private static final long RECORD_EVERY_MILLIS = 400;
  private static final String SENTINEL = "outside every root: never to be deleted\n";

  @TempDir Path temp;

  /** One recorder host: its storage group, rendition, disk, recorder and supervised lives. */
  private static final class Host {
    final String name;
    final String rendition;
    final Path root;
    final Path link;
    final ManualLedger recorder;
    final SplittableRandom random;
    final List<String> args;
    final AtomicInteger lives = new AtomicInteger();
    final AtomicLong refusals = new AtomicLong();
    /** The life running now, from its start; {@code started} once it printed STARTED. */
    volatile ChildJvm current;
    volatile boolean started;
    /** Whether the supervisor is paused, no life running. */
    volatile boolean idle;
    long sequence;

    Host(String name, String rendition, Path root, Path link, ManualLedger recorder, List<String> args, long seed) {
      this.name = name;
      this.rendition = rendition;
      this.root = root;
      this.link = link;
      this.recorder = recorder;
      this.args = args;
      this.random = new SplittableRandom(seed);
    }

    String group() {
      return "host-" + name;
    }

    /** The recorder closes a file of 16 to 256 KiB on this host's disk and registers it. */
    void closeOne(String broadcast) throws IOException {
      Path file = root.resolve("rec").resolve(rendition + "-" + sequence + ".ts");
      RandomFiles.write(file, random.nextLong(16 * 1024, 256 * 1024 + 1), random);
      recorder.register(ItemId.original(broadcast, rendition, sequence), file);
      sequence++;
    }

    /** Starts this host again and again while {@code running}; each life runs until it is killed. */
    Void supervise(AtomicBoolean running, AtomicBoolean paused) throws Exception {
      while (running.get()) {
        if (paused.get()) {
          idle = true;
          TimeUnit.MILLISECONDS.sleep(20);
          continue;
        }
        idle = false;
        try (ChildJvm life = ChildJvm.start(UploadNode.class, args, ChildJvm.SHORT_LIVED)) {
          current = life;
          lives.incrementAndGet();
          try {
            life.awaitLine(line -> line.startsWith("STARTED"), Duration.ofMinutes(1));
            started = true;
            while (life.isAlive() && running.get()) {
              life.exitsWithin(Duration.ofMillis(100));
            }
          } catch (AssertionError diedBeforeStarting) {
            // killed or failed in start-up: started again
          } finally {
            started = false;
            current = null;
            refusals.addAndGet(life.output().stream().filter(line -> line.contains("did not delete")).count());
          }
        }
      }
      return null;
    }

    /** SIGKILLs the life running now if it has started its ledger; returns whether it killed one. */
    boolean kill() throws InterruptedException {
      ChildJvm life = current;
      if (!started || life == null || !life.isAlive()) {
        return false;
      }
      life.killHard();
      return true;
    }

    /** SIGKILLs the life running now, started or still starting, if any. */
    void killAny() throws InterruptedException {
      ChildJvm life = current;
      if (life != null) {
        life.killHard();
      }
    }

    /** With the supervisor paused: kills whatever life runs until the supervisor is idle. */
    void awaitStopped() throws InterruptedException {
      long deadline = System.nanoTime() + TimeUnit.MINUTES.toNanos(2);
      while (!idle) {
        killAny();
        assertTrue(System.nanoTime() < deadline, "host " + name + " stopped");
        TimeUnit.MILLISECONDS.sleep(20);
      }
    }
  }

  @Test
  void randomKillsOfTwoHostsDeleteNoFileBeforeItsConfirmAndLeaveNoConfirmedFileBehind() throws Exception {
    int kills = Integer.getInteger("segmentledger.diskretention.kills", DEFAULT_KILLS);
    long started = System.nanoTime();
    JdbiStateStore store = JdbiStateStore.create(Jdbi.create(PG.dataSource())).migrate();
    String broadcast = "disk-" + Long.toString(System.nanoTime(), 36);
    Path sentinel = Files.writeString(Files.createDirectories(temp.resolve("outside")).resolve("sentinel.m4s"),
        SENTINEL);
    List<Host> hosts = new ArrayList<>();
    List<Thread> supervisors = new ArrayList<>();
    AtomicBoolean running = new AtomicBoolean(true);
    AtomicBoolean paused = new AtomicBoolean(false);
    Watcher watcher = null;
    try (S3ProxyServer server = S3ProxyServer.startOnFilesystem(temp.resolve("s3"));
        S3Client client = S3ProxyServer.client(server.endpoint(), Duration.ofSeconds(60))) {
      String bucket = server.createBucket(client);
      String[][] names = {{"a", "1080p"}, {"b", "720p"}};
      for (String[] name : names) {
        Path root = Files.createDirectories(temp.resolve("disk-" + name[0])).toRealPath();
        Files.createDirectories(root.resolve("rec"));
        // A link to the sentinel where this host's playback files are written: never followed, never deleted.
        Path playbackDir = root.resolve(UploadNode.PLAYBACK_DIRECTORY)
            .resolve(ObjectKeys.keyOf(ItemId.playback(broadcast, name[1], 0))).getParent();
        Path link = Files.createSymbolicLink(Files.createDirectories(playbackDir).resolve("sentinel.m4s"), sentinel);
        ManualLedger recorder = Ledger.builder().stateStore(store)
            .objectSink(S3ObjectSink.builder().client(client).bucket(bucket).build()).allowedRoot(root)
            .storageGroup("host-" + name[0]).repackager(new FakeRepackager(), root.resolve(UploadNode.PLAYBACK_DIRECTORY))
            .nodeId("recorder-" + name[0]).leaseDuration(Duration.ofSeconds(1)).buildManual();
        List<String> args = new ArrayList<>(ChildDatabase.args(PG, root.toString(), server.endpoint().toString(),
            bucket));
        args.addAll(List.of("host-" + name[0], String.valueOf(LEASE.toMillis()), "4", "0", "host-" + name[0],
            String.valueOf(RETENTION_MILLIS)));
        hosts.add(new Host(name[0], name[1], root, link, recorder, args, name[0].hashCode()));
      }
      watcher = new Watcher(store, broadcast, hosts.stream().map(host -> host.root).toList());
      watcher.start();
      for (Host host : hosts) {
        Thread supervisor = new Thread(() -> {
          try {
            host.supervise(running, paused);
          } catch (Exception e) {
            throw new IllegalStateException(e);
          }
        }, "supervisor-" + host.name);
        supervisor.start();
        supervisors.add(supervisor);
      }

      // The run: files closed on both hosts all along, a random started host killed every 0.3 to 1.5 s.
      int killed = 0;
      long nextKill = System.nanoTime() + randomKillDelay();
      long nextRecord = System.nanoTime();
      while (killed < kills) {
        long now = System.nanoTime();
        if (now >= nextRecord) {
          for (Host host : hosts) {
            host.closeOne(broadcast);
          }
          nextRecord = now + TimeUnit.MILLISECONDS.toNanos(RECORD_EVERY_MILLIS);
        }
        if (now >= nextKill) { // a host still starting is not killed at this tick: it gets its life
          Host victim = hosts.get(ThreadLocalRandom.current().nextInt(hosts.size()));
          killed += victim.kill() ? 1 : 0;
          nextKill = now + randomKillDelay();
        }
        TimeUnit.MILLISECONDS.sleep(10);
      }
      long killSeconds = TimeUnit.NANOSECONDS.toSeconds(System.nanoTime() - started);
      long deletedUnderKills = watcher.deleted();

      // Kills over: both hosts stopped, nothing runs. Every row not confirmed still has its original.
      paused.set(true);
      for (Host host : hosts) {
        host.awaitStopped();
      }
      List<LedgerItem> open = store.findByBroadcast(broadcast).stream()
          .filter(row -> row.state() != ItemState.CONFIRMED).toList();
      List<String> lostAtStop = new ArrayList<>();
      for (LedgerItem row : open) {
        Path original = Path.of(row.id().axis() == Axis.ORIGINAL ? row.sourcePath() : row.originPath());
        if (!Files.isRegularFile(original)) {
          lostAtStop.add("unconfirmed " + row + " lost its original " + original);
        }
      }

      // The hosts again, the broadcast ended: every row confirmed.
      paused.set(false);
      hosts.get(0).recorder.endBroadcast(broadcast);
      assertEquals(List.of(), lostAtStop, "every row open at the stop still has its original; the watcher saw: "
          + watcher.violations);
      LedgerEvents events = new LedgerEvents();
      events.awaitUntil("every row terminal", () -> allTerminal(store, broadcast), Duration.ofMinutes(5));
      int reopened = hosts.get(0).recorder.reopen(broadcast, Reason.REPEATEDLY_ABANDONED);
      if (reopened > 0) { // an INIT rejected leaves its PLAYBACK rows INIT_FAILED
        reopened += hosts.get(0).recorder.reopen(broadcast, Reason.INIT_FAILED);
        events.awaitUntil("every re-opened row terminal", () -> allTerminal(store, broadcast), Duration.ofMinutes(5));
      }
      List<LedgerItem> rows = store.findByBroadcast(broadcast);
      for (LedgerItem row : rows) {
        assertEquals(ItemState.CONFIRMED, row.state(), () -> row.id() + ": " + row.reason() + " " + row.lastError());
      }
      Set<ItemId> openIds = new HashSet<>();
      open.forEach(row -> openIds.add(row.id()));

      // Once the retention has passed since the last confirm, a new life's first upkeep deletes the rest.
      Instant lastConfirm = rows.stream().map(LedgerItem::confirmedAt).max(Instant::compareTo).orElseThrow();
      events.awaitUntil("the retention passed since the last confirm",
          () -> !Instant.now().isBefore(lastConfirm.plus(RETENTION).plusMillis(100)), Duration.ofMinutes(1));
      for (Host host : hosts) {
        host.killAny(); // its supervisor starts it again
      }
      try {
        events.awaitUntil("every confirmed row's local file deleted",
            () -> rows.stream().noneMatch(row -> Files.exists(Path.of(row.sourcePath()))), Duration.ofMinutes(2));
      } catch (AssertionError left) {
        // the summary first; the files left are named below
      }
      running.set(false);
      for (Thread supervisor : supervisors) {
        supervisor.join(TimeUnit.MINUTES.toMillis(1));
      }
      watcher.stop();
      long seconds = TimeUnit.NANOSECONDS.toSeconds(System.nanoTime() - started);

      long refused = hosts.stream().mapToLong(host -> host.refusals.get()).sum();
      int lives = hosts.stream().mapToInt(host -> host.lives.get()).sum();
      long filesGone = rows.stream().filter(row -> !Files.exists(Path.of(row.sourcePath()))).count();
      System.out.printf("DISK-RETENTION-KILL-SOAK kills=%d lives=%d files=%d (originals=%d) deleted=%d"
              + " seen_deleted=%d (originals=%d playback=%d init=%d; %d during the kills) deleted_before_confirm=%d"
              + " refused=%d temporaries_gone=%d open_at_stop=%d reopened=%d polls=%d kill_phase_s=%d seconds=%d%n",
          killed, lives, rows.size(), rows.stream().filter(row -> row.id().axis() == Axis.ORIGINAL).count(),
          filesGone, watcher.deleted(), watcher.deletedBy(Axis.ORIGINAL), watcher.deletedBy(Axis.PLAYBACK),
          watcher.deletedBy(Axis.INIT), deletedUnderKills, watcher.violations.size(), refused, watcher.temporaries.get(), open.size(),
          reopened, watcher.polls.get(), killSeconds, seconds);

      assertTrue(killed >= kills);
      assertEquals(List.of(), watcher.violations, "files deleted that were not to be deleted yet");
      for (LedgerItem row : rows) {
        assertFalse(Files.exists(Path.of(row.sourcePath())), () -> "the file of confirmed " + row + " is still there");
      }
      assertTrue(rows.stream().filter(row -> openIds.contains(row.id())).allMatch(r -> r.state() == ItemState.CONFIRMED),
          "every row open at the stop uploaded after the restart");
      assertTrue(watcher.deletedBy(Axis.ORIGINAL) > 0, "the watcher saw originals go");
      assertEquals(0, refused, "no deletion refused");
      for (Host host : hosts) {
        assertTrue(Files.isSymbolicLink(host.link), "the link inside " + host.name + "'s playback directory");
      }
      assertEquals(SENTINEL, Files.readString(sentinel), "the sentinel outside the roots is untouched");
      ConsistencyAssertions.assertConsistent(store, S3ObjectSink.builder().client(client).bucket(bucket).build(),
          broadcast);
    } finally {
      running.set(false);
      for (Host host : hosts) {
        host.killAny();
        host.recorder.close();
      }
      if (watcher != null) {
        watcher.stop();
      }
    }
  }

  private static long randomKillDelay() {
    return TimeUnit.MILLISECONDS.toNanos(ThreadLocalRandom.current().nextLong(300, 1_501));
  }

  private static boolean allTerminal(JdbiStateStore store, String broadcast) {
    return store.findByBroadcast(broadcast).stream().allMatch(row -> row.state().isTerminal());
  }

  /**
   * Lists the disks every {@value #WATCH_MILLIS} ms and checks each file that disappeared against
   * its row, read at once: a violation is any deletion the ledger must not have done yet.
   */
  private static final class Watcher {
    private final JdbiStateStore store;
    private final String broadcast;
    private final List<Path> roots;
    private final Thread thread;
    private final AtomicBoolean watching = new AtomicBoolean(true);
    final List<String> violations = new CopyOnWriteArrayList<>();
    final AtomicLong temporaries = new AtomicLong();
    final AtomicLong polls = new AtomicLong();
    private final Map<Axis, AtomicLong> deleted = new HashMap<>();
    private final Set<Path> gone = new HashSet<>();
    private Set<Path> seen = Set.of();

    Watcher(JdbiStateStore store, String broadcast, List<Path> roots) {
      this.store = store;
      this.broadcast = broadcast;
      this.roots = roots;
      for (Axis axis : Axis.values()) {
        deleted.put(axis, new AtomicLong());
      }
      this.thread = new Thread(this::run, "disk-watcher");
    }

    void start() {
      thread.start();
    }

    void stop() throws InterruptedException {
      watching.set(false);
      thread.join();
    }

    long deleted() {
      return deleted.values().stream().mapToLong(AtomicLong::get).sum();
    }

    long deletedBy(Axis axis) {
      return deleted.get(axis).get();
    }

    private void run() {
      try {
        while (watching.get()) {
          poll();
          TimeUnit.MILLISECONDS.sleep(WATCH_MILLIS);
        }
        poll(); // the last look
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
      } catch (RuntimeException e) {
        violations.add("the watcher failed: " + e);
      }
    }

    private void poll() {
      Optional<Set<Path>> listed = list();
      if (listed.isEmpty()) {
        return; // a directory could not be read whole this time: nothing concluded from it
      }
      polls.incrementAndGet();
      Set<Path> now = listed.get();
      for (Path path : now) {
        if (gone.contains(path)) {
          violations.add(path + " reappeared after its deletion");
          gone.remove(path);
        }
      }
      List<Path> disappeared = seen.stream().filter(path -> !now.contains(path)).toList();
      seen = now;
      if (disappeared.isEmpty()) {
        return;
      }
      Instant at = Instant.now();
      Map<String, LedgerItem> bySource = new HashMap<>();
      Map<ItemId, LedgerItem> byId = new HashMap<>();
      for (LedgerItem row : store.findByBroadcast(broadcast)) {
        bySource.put(row.sourcePath(), row);
        byId.put(row.id(), row);
      }
      for (Path path : disappeared) {
        if (Repackager.isTemporary(path)) {
          temporaries.incrementAndGet();
          continue;
        }
        LedgerItem row = bySource.get(path.toString());
        if (row == null) {
          violations.add(path + " deleted, and it is no row's file");
          continue;
        }
        gone.add(path);
        deleted.get(row.id().axis()).incrementAndGet();
        if (row.state() != ItemState.CONFIRMED) {
          violations.add(path + " deleted before its row was confirmed: " + row);
        } else if (row.id().axis() == Axis.ORIGINAL) {
          checkRetention(row, byId, at);
        }
      }
    }

    /** An original's file goes only once it and the rows made from it were confirmed a retention ago. */
    private void checkRetention(LedgerItem original, Map<ItemId, LedgerItem> byId, Instant at) {
      ItemId id = original.id();
      Instant latest = original.confirmedAt();
      for (ItemId derived : List.of(ItemId.playback(id.broadcastId(), id.rendition(), id.sequence()),
          ItemId.init(id.broadcastId(), id.rendition()))) {
        LedgerItem row = byId.get(derived);
        if (row == null || !original.sourcePath().equals(row.originPath())) {
          continue; // not made from this file
        }
        if (row.state() != ItemState.CONFIRMED) {
          violations.add(original.sourcePath() + " deleted while " + row + " made from it is not confirmed");
          return;
        }
        latest = latest.isAfter(row.confirmedAt()) ? latest : row.confirmedAt();
      }
      if (at.isBefore(latest.plus(RETENTION))) {
        violations.add(original.sourcePath() + " deleted at " + at + ", before its retention from " + latest);
      }
    }

    /** Every regular file below the roots (links not followed), or empty if a directory failed to list. */
    private Optional<Set<Path>> list() {
      Set<Path> files = new HashSet<>();
      AtomicBoolean failed = new AtomicBoolean();
      for (Path root : roots) {
        try {
          Files.walkFileTree(root, new SimpleFileVisitor<>() {
            @Override
            public FileVisitResult visitFile(Path file, BasicFileAttributes attributes) {
              if (attributes.isRegularFile()) {
                files.add(file);
              }
              return FileVisitResult.CONTINUE;
            }

            @Override
            public FileVisitResult visitFileFailed(Path file, IOException e) {
              if (!(e instanceof NoSuchFileException)) {
                failed.set(true); // a file deleted while listed is gone: not listed; any other failure voids the poll
              }
              return FileVisitResult.CONTINUE;
            }
          });
        } catch (IOException e) {
          return Optional.empty();
        }
      }
      return failed.get() ? Optional.empty() : Optional.of(files);
    }
  }
}
