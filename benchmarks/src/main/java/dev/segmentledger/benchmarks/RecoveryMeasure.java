package dev.segmentledger.benchmarks;

import dev.segmentledger.core.ItemId;
import dev.segmentledger.core.Ledger;
import dev.segmentledger.core.LedgerBuilder;
import dev.segmentledger.core.spi.NewItem;
import dev.segmentledger.core.spi.ObjectSink;
import dev.segmentledger.core.spi.StateStore;
import dev.segmentledger.testkit.DirectoryObjectSink;
import dev.segmentledger.testkit.crash.ChildJvm;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/**
 * Measure 6: a child JVM runs a ledger over N seeded unconfirmed rows and is killed with SIGKILL
 * before it has confirmed a tenth of them; a new ledger (same settings, same schema and sink
 * directory) is started and timed until every row left unconfirmed is confirmed. The recovery rate
 * is compared with the steady rate of the same ledger settings on the same files registered live
 * (register to confirmed), measured in the same run.
 */
final class RecoveryMeasure implements Measure {
  static final int POOL = 8;

  @Override
  public String name() {
    return "recovery";
  }

  static LedgerBuilder ledger(StateStore store, ObjectSink sink, Path root, int queueCapacity) {
    // One node id for the killed process and its restart: the restart takes back its leases at once.
    return Ledger.builder().stateStore(store).objectSink(sink).allowedRoot(root).workers(4)
        .queueCapacity(queueCapacity).nodeId("recovery-bench");
  }

  @Override
  public List<BenchResult> run(BenchEnv env) throws Exception {
    int rows = env.size(300, 10_000);
    Path root = env.newDir("recovery");
    List<Path> files = MediaFiles.write(root.resolve("rec"), rows, 1024);

    LiveRun.Outcome steady;
    try (BenchEnv.Database db = env.newDatabase("recovery_steady", POOL)) {
      steady = LiveRun.run(ledger(db.store(), new DirectoryObjectSink(Files.createDirectories(root.resolve("s1"))),
          root, rows), files, "steady", 2, Duration.ofMinutes(10));
    }

    long unconfirmedAtKill;
    long recoveryNanos;
    try (BenchEnv.Database db = env.newDatabase("recovery_crash", POOL)) {
      seed(db.store(), files);
      Path sinkDir = Files.createDirectories(root.resolve("s2"));
      try (ChildJvm child = ChildJvm.start(RecoveryChild.class, List.of(db.url(), nullToEmpty(env.user()),
          nullToEmpty(env.password()), root.toString(), sinkDir.toString(), String.valueOf(rows)))) {
        child.awaitLine("STARTED"::equals, Duration.ofMinutes(2));
        while (db.count("state = 'CONFIRMED'") < Math.max(1, rows / 20)) {
          Thread.sleep(5);
        }
        child.killHard();
      }
      unconfirmedAtKill = db.count("state = 'PENDING'");
      ConfirmTracker tracker = new ConfirmTracker((int) unconfirmedAtKill);
      try (Ledger ledger = ledger(db.store(), new DirectoryObjectSink(sinkDir), root, rows).listener(tracker).build()) {
        long start = System.nanoTime();
        ledger.start();
        tracker.await(Duration.ofMinutes(30));
        recoveryNanos = tracker.lastConfirmNanos() - start;
      }
    }
    double recoveryRate = unconfirmedAtKill * 1e9 / recoveryNanos;
    Map<String, Object> c = env.conditions();
    c.put("rows_seeded", rows);
    c.put("unconfirmed_at_kill", unconfirmedAtKill);
    c.put("recovery_s", recoveryNanos / 1e9);
    c.put("recovery_items_per_s", recoveryRate);
    c.put("steady_items_per_s", steady.itemsPerSecond());
    c.put("ledger", "workers 4, queue " + rows + ", sweep batch 128, sweep interval 1 s (default), DirectoryObjectSink,"
        + " restart under the same node id");
    return List.of(
        BenchResult.info("recovery.items_per_s", recoveryRate, "items/s",
            "rows left unconfirmed by SIGKILL / time from restart to last confirm", c),
        BenchResult.atLeast("recovery.ratio_to_steady", recoveryRate / steady.itemsPerSecond(), "x", 0.9,
            "recovery rate / steady register-to-confirmed rate, same settings, same run", c));
  }

  private static void seed(StateStore store, List<Path> files) throws Exception {
    List<NewItem> items = new ArrayList<>();
    Instant now = Instant.now();
    for (int i = 0; i < files.size(); i++) {
      items.add(NewItem.pending(ItemId.original("crash", "720p", i), files.get(i).toString(), Files.size(files.get(i)),
          now));
      if (items.size() == 1_000 || i == files.size() - 1) {
        store.registerAll(items);
        items.clear();
      }
    }
  }

  private static String nullToEmpty(String s) {
    return s == null ? "" : s;
  }
}
