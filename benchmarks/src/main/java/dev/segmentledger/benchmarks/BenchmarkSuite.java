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
 * measures (full size: 10M rows). A measure that throws is recorded as not measured, with the error, never hidden.
 */
public final class BenchmarkSuite {
  private BenchmarkSuite() {}

  static List<Measure> measures() {
    return List.of(new ThroughputMeasure(), new RegisterOneMeasure(), new SweepCostMeasure(), UploadMeasure.medium(),
        UploadMeasure.small(), UploadMeasure.large(), UploadMeasure.single(), new CappedUploadMeasure(),
        new MemoryMeasure(), LatencyMeasure.at1000(),
        LatencyMeasure.at5000(), LatencyMeasure.at1000WithDiskWriter(), new RecoveryMeasure());
  }

  public static void main(String[] args) throws Exception {
    boolean smoke = false;
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
      } else if (arg.startsWith("--only=")) {
        only = Set.of(arg.substring(7).split(","));
      } else if (!arg.isBlank() && !arg.equals("full")) {
        throw new IllegalArgumentException("unknown argument: " + arg);
      }
    }
    Set<String> known = new java.util.HashSet<>();
    measures().forEach(m -> known.add(m.name()));
    if (!known.containsAll(only)) {
      throw new IllegalArgumentException("unknown measure in --only=" + String.join(",", only) + "; known: " + known);
    }
    run(smoke, out, only, maxRows);
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
    List<BenchResult> results = new ArrayList<>();
    Instant started = Instant.now();
    String loadStart = LoadAvg.now();
    String base = smoke ? "latest-smoke" : "latest";
    List<String> toRun = new ArrayList<>();
    measures().stream().map(Measure::name).filter(n -> only.isEmpty() || only.contains(n)).forEach(toRun::add);
    try (BenchEnv env = BenchEnv.start(smoke, maxRows)) {
      Map<String, Object> c = env.conditions();
      String durability = "PostgreSQL " + c.get("postgres") + " (" + c.get("postgres_source") + "): synchronous_commit="
          + c.get("pg_synchronous_commit") + ", fsync=" + c.get("pg_fsync") + " (read back with SHOW); disk flush at"
          + " start: " + c.get("disk_flush_at_start");
      System.out.println("[bench] " + durability + "; loadavg " + loadStart);
      for (Measure measure : measures()) {
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
        + (maxRows == Integer.MAX_VALUE ? "" : ", --max-rows=" + maxRows) + ")\n\n"
        + durability + ". S3 server: " + S3ProxyProcess.description() + ". Load average (1/5/15 min) at start "
        + loadStart + ", at end " + LoadAvg.now() + " on " + Runtime.getRuntime().availableProcessors() + " cores.";
  }

  private static void write(List<BenchResult> results, Path out, String base, String header)
      throws java.io.IOException {
    ResultsWriter.write(results, out.resolve(base + ".json"), out.resolve(base + ".md"), header);
  }
}
