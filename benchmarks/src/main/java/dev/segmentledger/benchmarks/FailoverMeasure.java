package dev.segmentledger.benchmarks;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * The ledger through a PostgreSQL failover, measured on a real HA engine: for each
 * {@link FailoverScenario} a fresh pg_auto_failover cluster ({@link AutoFailoverCluster}: monitor,
 * primary, synchronous secondary), a recorder registering live at least 200 files/s with the
 * README's retry pattern, uploads to S3Proxy in its own JVM, the fault at the end of the steady
 * phase ({@link FailoverRun}), and the figures ({@link FailoverFigures}), written to
 * {@code results/failover.{json,md}} ({@code failover-smoke.*} in smoke mode) after every scenario.
 *
 * <p>Run: {@code ./mvnw -pl benchmarks -am -Pfailover -DskipTests verify} (see benchmarks/README.md);
 * as root (the cluster then runs as {@code postgres}) or as a user who may run PostgreSQL, with
 * pg_auto_failover installed (.ci/run installs it).
 */
public final class FailoverMeasure {
  /**
   * Scale of a run.
   *
   * @param thawAfter for the freeze: how long the other node is primary before the frozen one is thawed
   * @param after how long the load goes on once registrations are back (and the new primary is up)
   * @param maxOutage how long the run waits for registrations to come back
   */
  record Settings(int filesPerSecond, int fileBytes, int distinctFiles, int recorderThreads, Duration warmUp,
      Duration firstWarmUp, Duration steady, Duration thawAfter, Duration after, Duration maxOutage,
      Duration maxDrain) {
    /**
     * The first scenario warms up for 40 s: in a fresh JVM, against a fresh S3 server, a 10 s
     * warm-up left the uploads at half the recording rate when the fault came (a backlog of 3,800
     * rows by the end of the load, 22 s of drain), which the later scenarios did not have.
     */
    static Settings full() {
      return new Settings(200, 64 * 1024, 200, 8, Duration.ofSeconds(10), Duration.ofSeconds(40),
          Duration.ofSeconds(10), Duration.ofSeconds(10), Duration.ofSeconds(20), Duration.ofSeconds(180),
          Duration.ofSeconds(240));
    }

    /** CI: the same rate, short phases. */
    static Settings smoke() {
      return new Settings(200, 16 * 1024, 50, 8, Duration.ofSeconds(3), Duration.ofSeconds(3), Duration.ofSeconds(3),
          Duration.ofSeconds(3), Duration.ofSeconds(5), Duration.ofSeconds(120), Duration.ofSeconds(180));
    }

    /** These settings with the first scenario's warm-up. */
    Settings first() {
      return new Settings(filesPerSecond, fileBytes, distinctFiles, recorderThreads, firstWarmUp, firstWarmUp, steady,
          thawAfter, after, maxOutage, maxDrain);
    }

    String describe() {
      return filesPerSecond + " files/s of " + fileBytes / 1024 + " KiB (" + distinctFiles + " distinct files"
          + " registered round-robin under new ids), one register call per file from " + recorderThreads
          + " threads, retried until it returns; warm-up " + warmUp.toSeconds() + " s (the first scenario "
          + firstWarmUp.toSeconds() + " s), steady " + steady.toSeconds()
          + " s, fault, load until registrations are back and " + after.toSeconds() + " s more (freeze: thawed "
          + thawAfter.toSeconds() + " s after the new primary), drain at most " + maxDrain.toSeconds() + " s";
    }
  }

  private FailoverMeasure() {}

  public static void main(String[] args) throws Exception {
    boolean smoke = false;
    Path out = Path.of("results");
    Set<String> only = new HashSet<>();
    Integer rate = null;
    for (String arg : String.join(" ", args).trim().split("\\s+")) {
      if (arg.equals("smoke")) {
        smoke = true;
      } else if (arg.startsWith("--out=")) {
        out = Path.of(arg.substring(6));
      } else if (arg.startsWith("--scenarios=")) {
        only.addAll(List.of(arg.substring(12).split(",")));
      } else if (arg.startsWith("--rate=")) {
        rate = Integer.parseInt(arg.substring(7));
      } else if (!arg.isBlank() && !arg.equals("full")) {
        throw new IllegalArgumentException("unknown argument: " + arg);
      }
    }
    Settings s = smoke ? Settings.smoke() : Settings.full();
    if (rate != null) {
      s = new Settings(rate, s.fileBytes(), s.distinctFiles(), s.recorderThreads(), s.warmUp(), s.firstWarmUp(),
          s.steady(), s.thawAfter(), s.after(), s.maxOutage(), s.maxDrain());
    }
    Set<String> known = new HashSet<>();
    FailoverScenario.all().forEach(x -> known.add(x.name()));
    if (!known.containsAll(only)) {
      throw new IllegalArgumentException("unknown scenario in --scenarios=" + only + "; known: " + known);
    }
    List<FailoverScenario> scenarios = FailoverScenario.all().stream()
        .filter(x -> only.isEmpty() || only.contains(x.name())).toList();
    List<BenchResult> results = run(smoke, out, s, scenarios);
    boolean failed = results.stream().anyMatch(r -> r.name().endsWith(".error") || !r.met());
    System.exit(failed ? 1 : 0);
  }

  /** Runs the scenarios; writes {@code failover.*} (smoke: {@code failover-smoke.*}) after each. */
  static List<BenchResult> run(boolean smoke, Path out, Settings s, List<FailoverScenario> scenarios)
      throws Exception {
    List<BenchResult> results = new ArrayList<>();
    Instant started = Instant.now();
    String loadStart = LoadAvg.now();
    String base = smoke ? "failover-smoke" : "failover";
    List<String> toRun = new ArrayList<>(scenarios.stream().map(FailoverScenario::name).toList());
    Path work = Files.createTempDirectory("segment-ledger-failover-");
    try (S3ProxyProcess s3 = S3ProxyProcess.start(Files.createDirectories(work.resolve("s3-blobs")),
        UploadMeasure.ACCESS_KEY, UploadMeasure.SECRET_KEY)) {
      for (FailoverScenario scenario : scenarios) {
        long t0 = System.nanoTime();
        System.out.println("[failover] " + scenario.name() + " ...");
        Map<String, Object> c = conditions(smoke, s, scenario);
        try {
          Settings settings = scenario == scenarios.get(0) ? s.first() : s;
          List<BenchResult> r = FailoverFigures.of(FailoverRun.run(settings, scenario,
              Files.createDirectories(work.resolve(scenario.name())), s3, c));
          results.addAll(r);
          r.forEach(x -> System.out.println("[failover]   " + x.name() + " = " + BenchResult.fmt(x.value()) + " "
              + x.unit() + " (goal " + x.goal() + ", met " + x.met() + ")"));
        } catch (Exception | Error e) {
          e.printStackTrace();
          results.add(BenchResult.notMeasured("failover." + scenario.name() + ".error", "-", "completes",
              "scenario failed: " + e, c));
        }
        System.out.printf("[failover]   %s took %.1f s%n", scenario.name(), (System.nanoTime() - t0) / 1e9);
        toRun.remove(scenario.name());
        String header = "Segment Ledger through a PostgreSQL failover (" + (smoke ? "smoke" : "full") + " run, "
            + started + ", " + (toRun.isEmpty() ? "took " : "PARTIAL, not yet run: " + String.join(", ", toRun) + "; ")
            + java.time.Duration.between(started, Instant.now()).toSeconds() + " s)\n\nHA engine: pg_auto_failover"
            + " (monitor, primary, synchronous secondary) on the machine running the benchmark; connections: "
            + FailoverSettings.JDBC_PARAMETERS + ", HikariCP connectionTimeout "
            + FailoverSettings.CONNECTION_TIMEOUT.toSeconds() + " s. Load: " + s.describe() + ". S3: "
            + S3ProxyProcess.description() + ". Load average (1/5/15 min) at start " + loadStart + ", now "
            + LoadAvg.now() + " on " + Runtime.getRuntime().availableProcessors() + " cores. Every result's"
            + " conditions hold the PostgreSQL settings read back from the primary, the monitor's timeouts and the"
            + " timeline of the nodes' states.";
        ResultsWriter.write(results, out.resolve(base + ".json"), out.resolve(base + ".md"), header);
      }
    } finally {
      try (var walk = Files.walk(work)) {
        walk.sorted(java.util.Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
      }
    }
    System.out.println("[failover] wrote " + out.resolve(base + ".json").toAbsolutePath());
    return results;
  }

  private static Map<String, Object> conditions(boolean smoke, Settings s, FailoverScenario scenario) {
    Map<String, Object> c = new java.util.LinkedHashMap<>();
    c.put("mode", smoke ? "smoke" : "full");
    c.put("scenario", scenario.description());
    c.put("load", s.describe());
    c.put("ledger", FailoverRun.WORKERS + " workers, otherwise the defaults (queue 256, lease 2 min, registration"
        + " lease 10 s, sweep 1 s, Backoff.DEFAULT)");
    c.putAll(FailoverSettings.describe(FailoverRun.WORKERS + s.recorderThreads() + 2));
    c.put("s3", S3ProxyProcess.description() + ", behind FaultProxy (test-rig) to count requests, no fault");
    c.put("loadavg_start", LoadAvg.now());
    c.put("jdk", System.getProperty("java.vm.name") + " " + Runtime.version());
    c.put("cores", Runtime.getRuntime().availableProcessors());
    return c;
  }
}
