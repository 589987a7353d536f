package dev.segmentledger.benchmarks;

import dev.segmentledger.core.Ledger;
import dev.segmentledger.core.LedgerBuilder;
import dev.segmentledger.core.spi.ObjectSink;
import dev.segmentledger.core.spi.StateStore;
import dev.segmentledger.testkit.crash.ChildJvm;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.TreeMap;

/**
 * Restart after a crash, against the steady rate, in pairs. A pair is a steady run then a crash
 * run, each on a fresh schema, {@link #PAIRS} times (A-B-A-B).
 *
 * <p>Steady: the same ledger settings with files registered live ({@value #STEADY_THREADS} threads,
 * one {@code register} per file), in this JVM. Crash: {@value #UNCONFIRMED} + a margin of rows are
 * bulk-loaded PENDING and due (SQL {@code generate_series}, pointing round-robin at real 1 KiB
 * files); a child JVM ({@link RecoveryChild}) runs a ledger on them and is killed with SIGKILL once
 * it has confirmed the margin, leaving about {@value #UNCONFIRMED} rows unconfirmed. A NEW child JVM
 * is then launched on the same schema and timed: from its launch (before {@code java} is exec'd) to
 * its first {@code onConfirmed} (goal 2 s, JVM start-up included), and its recovery rate, the rows
 * left unconfirmed over the time from {@code Ledger.start()} to the last confirm. The ratio is the
 * median of the pairs' recovery / steady; every pair's figures, with the restarted JVM's CPU and JIT
 * time, are in the conditions.
 */
final class RecoveryMeasure implements Measure {
  static final int POOL = 8;
  static final int UNCONFIRMED = 100_000;
  static final int STEADY_THREADS = 16;
  static final int DISTINCT_FILES = 10_000;
  static final int PAIRS = 3;

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

  /** One crash and restart: the instants of the restarted process, in wall-clock milliseconds. */
  private record Restart(long unconfirmedAtKill, long launch, long jvmStart, long ledgerStarted, long firstConfirm,
      long allConfirmed, long cpuMillis, long jitMillis) {
    double firstConfirmSeconds() {
      return (firstConfirm - launch) / 1e3;
    }

    double rowsPerSecond() {
      return unconfirmedAtKill / ((allConfirmed - ledgerStarted) / 1e3);
    }
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
    List<Path> steadyFiles = new ArrayList<>();
    for (int i = 0; i < steadyItems; i++) {
      steadyFiles.add(files.get(i % files.size()));
    }
    String loadStart = LoadAvg.now();
    Pairs pairs = new Pairs("steady");
    List<Double> firstConfirms = new ArrayList<>();
    for (int pair = 1; pair <= PAIRS; pair++) {
      String load = LoadAvg.now();
      LiveRun.Outcome steady;
      try (BenchEnv.Database db = env.newDatabase("recovery_steady", POOL + STEADY_THREADS)) {
        steady = LiveRun.run(ledger(db.store(), new DiscardingSink(), root), steadyFiles, "steady", STEADY_THREADS, 1,
            Duration.ofMinutes(10));
      }
      Restart r = crashAndRestart(env, root, rec, files.size(), rows, margin);
      firstConfirms.add(r.firstConfirmSeconds());
      Map<String, Object> d = new LinkedHashMap<>();
      d.put("loadavg_before", load);
      d.put("steady_jvm_thread_cpu_us_per_item", cpuPerItem(steady, steadyItems));
      d.put("unconfirmed_at_kill", r.unconfirmedAtKill());
      d.put("first_confirm_s", r.firstConfirmSeconds());
      d.put("launch_to_jvm_start_ms", r.jvmStart() - r.launch());
      d.put("launch_to_ledger_started_ms", r.ledgerStarted() - r.launch());
      d.put("ledger_started_to_first_confirm_ms", r.firstConfirm() - r.ledgerStarted());
      d.put("recovery_s", (r.allConfirmed() - r.ledgerStarted()) / 1e3);
      d.put("restarted_jvm_cpu_ms", r.cpuMillis());
      d.put("restarted_jvm_cpu_us_per_row", r.cpuMillis() * 1e3 / r.unconfirmedAtKill());
      d.put("restarted_jvm_jit_ms", r.jitMillis());
      pairs.add(r.rowsPerSecond(), steady.itemsPerSecond(), "steady, recovery", d);
      System.out.printf(Locale.ROOT, "[bench]   recovery pair %d: steady %.0f, recovery %.0f items/s, first confirm %.2f s%n",
          pair, steady.itemsPerSecond(), r.rowsPerSecond(), r.firstConfirmSeconds());
    }
    Map<String, Object> c = env.conditions();
    c.put("loadavg_start", loadStart);
    c.put("rows_seeded", rows);
    c.put("seeding", "INSERT ... SELECT generate_series, rows pointing round-robin at " + files.size() + " files of 1 KiB");
    c.put("killed", "SIGKILL of the first child JVM after " + margin + " confirms");
    c.put("steady_items", steadyItems);
    c.put("steady", STEADY_THREADS + " threads, one register(id, path) per file, in the suite's JVM (warm)");
    c.put("child_jvm", "-Xmx512m, JIT defaults, wall clock of the same machine for the cross-process instants;"
        + " started cold, as after a crash");
    c.put("ledger", "workers 4, queue 256, sweep batch 128, sweep interval 1 s (defaults), DiscardingSink (reads"
        + " every byte), restart under the same node id");
    c.put("order", PAIRS + " pairs of a steady run then a crash and restart, each on a fresh schema");
    c.put("pairs", pairs.figures());
    c.put("loadavg_end", LoadAvg.now());
    return List.of(
        BenchResult.atMost("recovery.first_confirm_s", Pairs.median(firstConfirms), "s", 2,
            "new process launched -> its first onConfirmed, about " + unconfirmed + " rows left by SIGKILL; median of "
                + PAIRS + " restarts", c),
        BenchResult.info("recovery.items_per_s", pairs.medianLedger(), "items/s",
            "rows left unconfirmed by SIGKILL / time from Ledger.start() in the new process to its last confirm;"
                + " median of " + PAIRS + " restarts", c),
        BenchResult.info("recovery.steady_items_per_s", pairs.medianReference(), "items/s",
            "same settings, files registered live, first register to last confirm; median of " + PAIRS + " runs", c),
        BenchResult.atLeast("recovery.ratio_to_steady", pairs.medianRatio(), "x", 1.0,
            "median of the pairs' recovery rate / steady rate " + pairs.ratios() + ", same settings", c));
  }

  private static Restart crashAndRestart(BenchEnv env, Path root, Path rec, int distinctFiles, int rows, int margin)
      throws Exception {
    try (BenchEnv.Database db = env.newDatabase("recovery_crash", POOL)) {
      db.jdbi().useHandle(h -> {
        h.execute("INSERT INTO segment_ledger_item (broadcast_id, axis, rendition, sequence, source_path,"
            + " size_bytes, state, registered_at, next_attempt_at) SELECT 'crash', 'ORIGINAL', '720p', g,"
            + " ? || '/' || format('seg-%s.ts', lpad((g % ?)::text, 6, '0')), 1024, 'PENDING',"
            + " now() - interval '1 minute', now() - interval '1 minute' FROM generate_series(0, ? - 1) g",
            rec.toString(), distinctFiles, rows);
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
      long unconfirmedAtKill = db.count("state <> 'CONFIRMED'");
      long launch = System.currentTimeMillis();
      try (ChildJvm second = ChildJvm.start(RecoveryChild.class, concat(args, String.valueOf(unconfirmedAtKill)),
          List.of("-Xmx512m"))) {
        long jvmStart = millisOf(second.awaitLine(l -> l.startsWith("JVM_START "), Duration.ofMinutes(2)));
        long started = millisOf(second.awaitLine(l -> l.startsWith("STARTED "), Duration.ofMinutes(2)));
        long firstConfirm = millisOf(second.awaitLine(l -> l.startsWith("FIRST_CONFIRM "), Duration.ofMinutes(2)));
        long allConfirmed = millisOf(second.awaitLine(l -> l.startsWith("ALL_CONFIRMED "), Duration.ofMinutes(30)));
        long jit = millisOf(second.awaitLine(l -> l.startsWith("JIT_MS "), Duration.ofMinutes(1)));
        // Where the CPU went: the restarted process's CPU (start-up and recovery) per row it confirmed.
        long cpu = ProcessHandle.of(second.pid()).flatMap(p -> p.info().totalCpuDuration())
            .map(Duration::toMillis).orElse(-1L);
        second.killHard();
        return new Restart(unconfirmedAtKill, launch, jvmStart, started, firstConfirm, allConfirmed, cpu, jit);
      }
    }
  }

  private static Map<String, Double> cpuPerItem(LiveRun.Outcome steady, int items) {
    Map<String, Double> perItem = new TreeMap<>();
    steady.threadCpuMicros().forEach((group, micros) -> perItem.put(group, (double) micros / items));
    return perItem;
  }

  private static long millisOf(String line) {
    return Long.parseLong(line.substring(line.indexOf(' ') + 1).trim());
  }

  private static List<String> concat(List<String> args, String last) {
    List<String> all = new ArrayList<>(args);
    all.add(last);
    return all;
  }

  private static String nullToEmpty(String s) {
    return s == null ? "" : s;
  }
}
