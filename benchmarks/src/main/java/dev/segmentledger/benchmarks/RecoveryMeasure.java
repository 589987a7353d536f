package dev.segmentledger.benchmarks;

import dev.segmentledger.core.Ledger;
import dev.segmentledger.core.LedgerBuilder;
import dev.segmentledger.core.spi.ObjectSink;
import dev.segmentledger.core.spi.StateStore;
import dev.segmentledger.testkit.crash.ChildJvm;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;

/**
 * Restart after a crash: {@value #UNCONFIRMED} + a margin of rows are bulk-loaded
 * PENDING and due (SQL {@code generate_series}, pointing round-robin at real 1 KiB files); a child
 * JVM ({@link RecoveryChild}) runs a ledger on them and is killed with SIGKILL once it has
 * confirmed the margin, leaving about {@value #UNCONFIRMED} rows unconfirmed. A NEW child JVM is
 * then launched on the same schema and timed: from its launch (before {@code java} is exec'd) to
 * its first {@code onConfirmed} (goal 2 s, JVM start-up included), and its recovery rate, the rows
 * left unconfirmed over the time from {@code Ledger.start()} to the last confirm. The steady rate
 * is that of the same ledger settings with files registered live ({@value #STEADY_THREADS}
 * threads, one {@code register} per file), in this JVM, same run.
 */
final class RecoveryMeasure implements Measure {
  static final int POOL = 8;
  static final int UNCONFIRMED = 100_000;
  static final int STEADY_THREADS = 16;
  static final int DISTINCT_FILES = 10_000;

  @Override
  public String name() {
    return "recovery";
  }

  /** Ledger defaults (4 workers, queue 256, sweep batch 128, interval 1 s) under one node id. */
  static LedgerBuilder ledger(StateStore store, ObjectSink sink, Path root) {
    // One node id for the killed process and its restart: the restart takes back its leases at once.
    return Ledger.builder().stateStore(store).objectSink(sink).allowedRoot(root).workers(4)
        .nodeId("recovery-bench");
  }

  @Override
  public List<BenchResult> run(BenchEnv env) throws Exception {
    int unconfirmed = env.size(2_000, UNCONFIRMED);
    int margin = env.size(100, 2_000);
    int rows = unconfirmed + margin;
    int steadyItems = env.size(500, 20_000);
    Path root = env.newDir("recovery");
    Path rec = root.resolve("rec");
    List<Path> files = MediaFiles.write(rec, Math.min(DISTINCT_FILES, Math.max(rows, steadyItems)), 1024);
    String loadStart = LoadAvg.now();

    LiveRun.Outcome steady;
    try (BenchEnv.Database db = env.newDatabase("recovery_steady", POOL + STEADY_THREADS)) {
      List<Path> steadyFiles = new java.util.ArrayList<>();
      for (int i = 0; i < steadyItems; i++) {
        steadyFiles.add(files.get(i % files.size()));
      }
      steady = LiveRun.run(ledger(db.store(), new DiscardingSink(), root), steadyFiles, "steady", STEADY_THREADS, 1,
          Duration.ofMinutes(10));
    }

    long unconfirmedAtKill;
    long launchMillis;
    long jvmStart;
    long ledgerStarted;
    long firstConfirm;
    long allConfirmed;
    long childCpuMillis;
    try (BenchEnv.Database db = env.newDatabase("recovery_crash", POOL)) {
      db.jdbi().useHandle(h -> {
        h.execute("INSERT INTO segment_ledger_item (broadcast_id, axis, rendition, sequence, source_path,"
            + " size_bytes, state, registered_at, next_attempt_at) SELECT 'crash', 'ORIGINAL', '720p', g,"
            + " ? || '/' || format('seg-%s.ts', lpad((g % ?)::text, 6, '0')), 1024, 'PENDING',"
            + " now() - interval '1 minute', now() - interval '1 minute' FROM generate_series(0, ? - 1) g",
            rec.toString(), files.size(), rows);
        h.execute("VACUUM ANALYZE segment_ledger_item");
      });
      List<String> args = List.of(db.url(), nullToEmpty(env.user()), nullToEmpty(env.password()), root.toString());
      try (ChildJvm first = ChildJvm.start(RecoveryChild.class, concat(args, "0"), List.of("-Xmx512m"))) {
        first.awaitLine(l -> l.startsWith("STARTED"), Duration.ofMinutes(2));
        while (db.count("state = 'CONFIRMED'") < margin) {
          Thread.sleep(2);
        }
        first.killHard();
      }
      unconfirmedAtKill = db.count("state <> 'CONFIRMED'");
      launchMillis = System.currentTimeMillis();
      try (ChildJvm second = ChildJvm.start(RecoveryChild.class, concat(args, String.valueOf(unconfirmedAtKill)),
          List.of("-Xmx512m"))) {
        jvmStart = millisOf(second.awaitLine(l -> l.startsWith("JVM_START "), Duration.ofMinutes(2)));
        ledgerStarted = millisOf(second.awaitLine(l -> l.startsWith("STARTED "), Duration.ofMinutes(2)));
        firstConfirm = millisOf(second.awaitLine(l -> l.startsWith("FIRST_CONFIRM "), Duration.ofMinutes(2)));
        allConfirmed = millisOf(second.awaitLine(l -> l.startsWith("ALL_CONFIRMED "), Duration.ofMinutes(30)));
        // Where the CPU went: the restarted process's CPU (start-up and recovery) per row it confirmed.
        childCpuMillis = ProcessHandle.of(second.pid()).flatMap(p -> p.info().totalCpuDuration())
            .map(Duration::toMillis).orElse(-1L);
        second.killHard();
      }
    }
    double firstConfirmSeconds = (firstConfirm - launchMillis) / 1e3;
    double recoverySeconds = (allConfirmed - ledgerStarted) / 1e3;
    double recoveryRate = unconfirmedAtKill / recoverySeconds;
    Map<String, Object> c = env.conditions();
    c.put("loadavg_start", loadStart);
    c.put("rows_seeded", rows);
    c.put("seeding", "INSERT ... SELECT generate_series, rows pointing round-robin at " + files.size() + " files of 1 KiB");
    c.put("unconfirmed_at_kill", unconfirmedAtKill);
    c.put("killed", "SIGKILL of the first child JVM after " + margin + " confirms");
    c.put("launch_to_jvm_start_ms", jvmStart - launchMillis);
    c.put("launch_to_ledger_started_ms", ledgerStarted - launchMillis);
    c.put("ledger_started_to_first_confirm_ms", firstConfirm - ledgerStarted);
    c.put("recovery_s", recoverySeconds);
    c.put("restarted_jvm_cpu_ms", childCpuMillis);
    c.put("restarted_jvm_cpu_us_per_row", childCpuMillis * 1e3 / unconfirmedAtKill);
    c.put("steady_jvm_thread_cpu_us_per_item", steadyCpuPerItem(steady, steadyItems));
    c.put("steady_items", steadyItems);
    c.put("steady_items_per_s", steady.itemsPerSecond());
    c.put("steady", STEADY_THREADS + " threads, one register(id, path) per file, in the suite's JVM");
    c.put("child_jvm", "-Xmx512m, JIT defaults, wall clock of the same machine for the cross-process instants");
    c.put("ledger", "workers 4, queue 256, sweep batch 128, sweep interval 1 s (defaults), DiscardingSink (reads"
        + " every byte), restart under the same node id");
    c.put("loadavg_end", LoadAvg.now());
    return List.of(
        BenchResult.atMost("recovery.first_confirm_s", firstConfirmSeconds, "s", 2,
            "new process launched -> its first onConfirmed, " + unconfirmedAtKill + " rows left by SIGKILL", c),
        BenchResult.info("recovery.items_per_s", recoveryRate, "items/s",
            "rows left unconfirmed by SIGKILL / time from Ledger.start() in the new process to its last confirm", c),
        BenchResult.atLeast("recovery.ratio_to_steady", recoveryRate / steady.itemsPerSecond(), "x", 1.0,
            "recovery rate / steady register-to-confirmed rate, same settings, same run", c));
  }

  private static Map<String, Double> steadyCpuPerItem(LiveRun.Outcome steady, int items) {
    Map<String, Double> perItem = new java.util.TreeMap<>();
    steady.threadCpuMicros().forEach((group, micros) -> perItem.put(group, (double) micros / items));
    return perItem;
  }

  private static long millisOf(String line) {
    return Long.parseLong(line.substring(line.indexOf(' ') + 1).trim());
  }

  private static List<String> concat(List<String> args, String last) {
    List<String> all = new java.util.ArrayList<>(args);
    all.add(last);
    return all;
  }

  private static String nullToEmpty(String s) {
    return s == null ? "" : s;
  }
}
