package dev.segmentledger.benchmarks;

import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * Runs every measure and writes {@code latest.json} and {@code latest.md} (or
 * {@code latest-smoke.*} in smoke mode) into the output directory.
 *
 * <p>Arguments: {@code full} (default) or {@code smoke}/{@code --smoke}; {@code --out=DIR}
 * (default {@code results}, relative to the working directory); {@code --only=a,b} to run some
 * measures only; {@code --max-rows=N} to cap the bulk-loaded tables of the sweep-cost and backlog
 * measures (full size: 10M rows); {@code --name=BASE} to name the files {@code BASE.json} and
 * {@code BASE.md} instead of {@code latest}; {@code -Dkey=value} to set a system property of the
 * suite's JVM (the sizes of the broadcast measures, for example). The broadcast measures
 * ({@link #onDemand()}) run only when {@code --only} names them. A measure that throws is recorded as
 * not measured, with the error, never hidden.
 */
public final class BenchmarkSuite {
  private BenchmarkSuite() {}

  static List<Measure> measures() {
    return List.of(new ThroughputMeasure(), new RegisterOneMeasure(), new SweepCostMeasure(), UploadMeasure.medium(),
        UploadMeasure.small(), UploadMeasure.large(), UploadMeasure.single(), new CappedUploadMeasure(),
        new MemoryMeasure(), LatencyMeasure.at1000(),
        LatencyMeasure.at5000(), LatencyMeasure.at1000WithDiskWriter(), new RecoveryMeasure());
  }

  /**
   * Measures run only when {@code --only} names them: the cost of live playlists as a broadcast
   * grows long ({@code long_broadcast}) and as broadcasts grow many ({@code many_broadcasts}).
   */
  static List<Measure> onDemand() {
    return List.of(new LongBroadcastMeasure(), new ManyBroadcastsMeasure(), new UplinkLanesMeasure());
  }

  public static void main(String[] args) throws Exception {
    boolean smoke = false;
    String name = null;
    Path out = Path.of("results");
    Set<String> only = Set.of();
    int maxRows = Integer.MAX_VALUE;
    // Maven passes -Dbench.args as one argument: split it on whitespace.
    for (String arg : String.join(" ", args).trim().split("\\s+")) {
      if (arg.equals("smoke") || arg.equals("--smoke")) {
        smoke = true;
      } else if (arg.startsWith("--out=")) {
        out = Path.of(arg.substring(6));
      } else if (arg.startsWith("--max-rows=")) {
        maxRows = Integer.parseInt(arg.substring(11).replace("_", ""));
      } else if (arg.startsWith("--name=")) {
        name = arg.substring(7);
      } else if (arg.startsWith("-D") && arg.indexOf('=') > 2) {
        System.setProperty(arg.substring(2, arg.indexOf('=')), arg.substring(arg.indexOf('=') + 1));
      } else if (arg.startsWith("--only=")) {
        only = Set.of(arg.substring(7).split(","));
      } else if (!arg.isBlank() && !arg.equals("full")) {
        throw new IllegalArgumentException("unknown argument: " + arg);
      }
    }
    Set<String> known = new java.util.HashSet<>();
    measures().forEach(m -> known.add(m.name()));
    onDemand().forEach(m -> known.add(m.name()));
    if (!known.containsAll(only)) {
      throw new IllegalArgumentException("unknown measure in --only=" + String.join(",", only) + "; known: " + known);
    }
    run(smoke, out, only, maxRows, name);
    System.exit(0);
  }

  static List<BenchResult> run(boolean smoke, Path out, Set<String> only) throws Exception {
    return run(smoke, out, only, Integer.MAX_VALUE);
  }

  /**
   * Runs the suite; returns the results after writing them. The files are rewritten after every
   * measure (the header then says which measures are still to come), so that a run stopped part way
   * (a machine needed back, a timeout) keeps what it measured.
   */
  static List<BenchResult> run(boolean smoke, Path out, Set<String> only, int maxRows) throws Exception {
    return run(smoke, out, only, maxRows, null);
  }

  /** @param name the base name of the result files; {@code null}: {@code latest} ({@code latest-smoke}) */
  static List<BenchResult> run(boolean smoke, Path out, Set<String> only, int maxRows, String name)
      throws Exception {
    List<BenchResult> results = new ArrayList<>();
    Instant started = Instant.now();
    String loadStart = LoadAvg.now();
    String base = name != null ? name : smoke ? "latest-smoke" : "latest";
    List<Measure> all = new ArrayList<>(measures());
    onDemand().stream().filter(m -> only.contains(m.name())).forEach(all::add);
    List<String> toRun = new ArrayList<>();
    all.stream().map(Measure::name).filter(n -> only.isEmpty() || only.contains(n)).forEach(toRun::add);
    try (BenchEnv env = BenchEnv.start(smoke, maxRows)) {
      Map<String, Object> c = env.conditions();
      String durability = "PostgreSQL " + c.get("postgres") + " (" + c.get("postgres_source") + "): synchronous_commit="
          + c.get("pg_synchronous_commit") + ", fsync=" + c.get("pg_fsync") + " (read back with SHOW); disk flush at"
          + " start: " + c.get("disk_flush_at_start");
      System.out.println("[bench] " + durability + "; loadavg " + loadStart);
      for (Measure measure : all) {
        if (!toRun.contains(measure.name())) {
          continue;
        }
        long t0 = System.nanoTime();
        System.out.println("[bench] " + measure.name() + " ...");
        try {
          List<BenchResult> r = measure.run(env);
          results.addAll(r);
          r.forEach(x -> System.out.println("[bench]   " + x.name() + " = " + BenchResult.fmt(x.value()) + " "
              + x.unit() + " (goal " + x.goal() + ", met " + x.met() + ")"));
        } catch (Exception | Error e) {
          e.printStackTrace();
          results.add(BenchResult.notMeasured(measure.name() + ".error", "-", "completes",
              "measure failed: " + e, env.conditions()));
        }
        System.out.printf("[bench]   %s took %.1f s%n", measure.name(), (System.nanoTime() - t0) / 1e9);
        toRun.remove(measure.name());
        write(results, out, base, header(smoke, started, only, maxRows, durability, loadStart, toRun));
      }
    }
    System.out.println("[bench] wrote " + out.resolve(base + ".json").toAbsolutePath());
    return results;
  }

  private static String header(boolean smoke, Instant started, Set<String> only, int maxRows, String durability,
      String loadStart, List<String> notYetRun) {
    return "Segment Ledger benchmarks (" + (smoke ? "smoke" : "full") + " run, " + started + ", "
        + (notYetRun.isEmpty() ? "took " : "PARTIAL, not yet run: " + String.join(", ", notYetRun) + "; ")
        + Duration.between(started, Instant.now()).toSeconds() + " s"
        + (only.isEmpty() ? "" : ", only " + String.join(",", only))
        + (maxRows == Integer.MAX_VALUE ? "" : ", --max-rows=" + maxRows) + benchProperties() + ")\n\n"
        + durability + ". S3 server: " + S3ProxyProcess.description() + ". Load average (1/5/15 min) at start "
        + loadStart + ", at end " + LoadAvg.now() + " on " + Runtime.getRuntime().availableProcessors() + " cores.";
  }

  /** The {@code bench.*} system properties set for the run (the sizes of some measures), or nothing. */
  private static String benchProperties() {
    java.util.TreeMap<String, String> set = new java.util.TreeMap<>();
    System.getProperties().forEach((k, v) -> {
      if (k.toString().startsWith("bench.")) {
        set.put(k.toString(), v.toString());
      }
    });
    StringBuilder s = new StringBuilder();
    set.forEach((k, v) -> s.append(", -D").append(k).append('=').append(v));
    return s.toString();
  }

  private static void write(List<BenchResult> results, Path out, String base, String header)
      throws java.io.IOException {
    ResultsWriter.write(results, out.resolve(base + ".json"), out.resolve(base + ".md"), header);
  }
}
