package dev.segmentledger.benchmarks;

import ch.qos.logback.classic.spi.ILoggingEvent;
import ch.qos.logback.core.AppenderBase;
import dev.segmentledger.core.CircuitState;
import dev.segmentledger.core.Ledger;
import dev.segmentledger.core.LedgerItem;
import dev.segmentledger.core.LedgerListener;
import dev.segmentledger.core.Reason;
import dev.segmentledger.rig.FaultProxy;
import dev.segmentledger.s3.ContentMd5Signing;
import java.lang.management.ManagementFactory;
import java.lang.management.MemoryPoolMXBean;
import java.lang.management.MemoryType;
import java.lang.management.ThreadInfo;
import java.lang.management.ThreadMXBean;
import java.net.URI;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import software.amazon.awssdk.auth.credentials.AwsBasicCredentials;
import software.amazon.awssdk.auth.credentials.StaticCredentialsProvider;
import software.amazon.awssdk.core.checksums.RequestChecksumCalculation;
import software.amazon.awssdk.core.checksums.ResponseChecksumValidation;
import software.amazon.awssdk.http.apache5.Apache5HttpClient;
import software.amazon.awssdk.regions.Region;
import software.amazon.awssdk.services.s3.S3Client;
import software.amazon.awssdk.services.s3.S3Configuration;
import software.amazon.awssdk.services.s3.model.ObjectIdentifier;

/**
 * The outage benchmark: S3 misbehaves ({@link OutageScenario}) while a live recorder keeps registering files,
 * and this measures how long the bucket and the ledger take to agree again, what it costs, and how
 * the ledger behaves meanwhile. Each scenario runs on a fresh schema (durable PostgreSQL), a fresh
 * bucket or key prefix, and a {@link FaultProxy} between the ledger's S3 client and the endpoint:
 * S3Proxy in its own JVM ({@link S3ProxyProcess}) or the user's own endpoint
 * ({@code SEGMENT_LEDGER_OUTAGE_S3_*}, see benchmarks/README.md).
 *
 * <p>Timeline of a scenario: warm-up (not counted), steady phase (the reference: confirm rate,
 * backlog level, register latency, heap, threads), fault, then the load goes on until the backlog is
 * back to its steady level and the breaker is closed (or a time limit), then the load stops and the
 * ledger drains. The outcome is checked without the ledger's counters: SQL counts, a listing of the
 * bucket taken directly (not through the proxy), the reconciler, the unfinished multipart uploads.
 *
 * <p>Run: {@code main} ({@code -Poutage}, see the README); a short version runs in
 * {@code OutageSmokeTest}.
 */
public final class OutageMeasure {
  static final String RENDITION = "720p";
  static final int WORKERS = 4;
  static final int REGISTER_THREADS = 8;
  static final Duration SAMPLE_EVERY = Duration.ofMillis(250);
  static final Duration ATTEMPT_TIMEOUT = Duration.ofSeconds(5);
  static final Duration CALL_TIMEOUT = Duration.ofSeconds(15);
  static final Duration CHECK_TIMEOUT = Duration.ofMinutes(5);

  /** Scale of a run. */
  record Settings(int filesPerSecond, int fileBytes, int distinctFiles, double faultScale, Duration warmUp,
      Duration steady, Duration maxRecovery, Duration maxDrain) {
    static Settings full() {
      return new Settings(50, 1024 * 1024, 200, 1.0, Duration.ofSeconds(10), Duration.ofSeconds(20),
          Duration.ofSeconds(180), Duration.ofSeconds(120));
    }

    /** CI: one scenario in well under a minute. */
    static Settings smoke() {
      return new Settings(5, 64 * 1024, 20, 5.0 / 60, Duration.ofSeconds(2), Duration.ofSeconds(3),
          Duration.ofSeconds(40), Duration.ofSeconds(30));
    }

    Duration faultOf(OutageScenario s) {
      return Duration.ofMillis(Math.round(s.duration().toMillis() * faultScale));
    }

    Duration flapOf(OutageScenario s) {
      return Duration.ofMillis(Math.max(1000, Math.round(s.flapPeriod().toMillis() * Math.min(1.0, faultScale * 4))));
    }
  }

  /** Where the objects go: S3Proxy started by the suite, or the user's endpoint. */
  record Endpoint(URI uri, String bucket, String accessKey, String secretKey, String region, boolean own) {
    static Endpoint fromEnvironment() {
      String uri = System.getenv("SEGMENT_LEDGER_OUTAGE_S3_ENDPOINT");
      if (uri == null || uri.isBlank()) {
        return null;
      }
      return new Endpoint(URI.create(uri), require("SEGMENT_LEDGER_OUTAGE_S3_BUCKET"),
          require("SEGMENT_LEDGER_OUTAGE_S3_ACCESS_KEY"), require("SEGMENT_LEDGER_OUTAGE_S3_SECRET_KEY"),
          System.getenv().getOrDefault("SEGMENT_LEDGER_OUTAGE_S3_REGION", "us-east-1"), true);
    }

    private static String require(String name) {
      String v = System.getenv(name);
      if (v == null || v.isBlank()) {
        throw new IllegalArgumentException(name + " must be set with SEGMENT_LEDGER_OUTAGE_S3_ENDPOINT");
      }
      return v;
    }

    String describe() {
      return own ? "own endpoint " + uri + ", bucket " + bucket : S3ProxyProcess.description();
    }
  }

  private OutageMeasure() {}

  public static void main(String[] args) throws Exception {
    boolean smoke = false;
    Path out = Path.of("results");
    Set<String> only = Set.of();
    Settings custom = null;
    Integer rate = null;
    Integer kib = null;
    Double scale = null;
    for (String arg : String.join(" ", args).trim().split("\\s+")) {
      if (arg.equals("smoke") || arg.equals("--smoke")) {
        smoke = true;
      } else if (arg.startsWith("--out=")) {
        out = Path.of(arg.substring(6));
      } else if (arg.startsWith("--scenarios=")) {
        only = Set.of(arg.substring(12).split(","));
      } else if (arg.startsWith("--rate=")) {
        rate = Integer.parseInt(arg.substring(7));
      } else if (arg.startsWith("--file-kib=")) {
        kib = Integer.parseInt(arg.substring(11));
      } else if (arg.startsWith("--fault-scale=")) {
        scale = Double.parseDouble(arg.substring(14));
      } else if (!arg.isBlank() && !arg.equals("full")) {
        throw new IllegalArgumentException("unknown argument: " + arg);
      }
    }
    Settings s = smoke ? Settings.smoke() : Settings.full();
    s = new Settings(rate != null ? rate : s.filesPerSecond(), kib != null ? kib * 1024 : s.fileBytes(),
        s.distinctFiles(), scale != null ? scale : s.faultScale(), s.warmUp(), s.steady(), s.maxRecovery(),
        s.maxDrain());
    Set<String> known = new HashSet<>();
    OutageScenario.selectable().forEach(x -> known.add(x.name()));
    if (!known.containsAll(only)) {
      throw new IllegalArgumentException("unknown scenario in --scenarios=" + only + "; known: " + known);
    }
    Set<String> chosen = only;
    // By default the control and the six; the control runs first: its register p99 is their reference.
    List<OutageScenario> scenarios = OutageScenario.selectable().stream()
        .filter(x -> chosen.isEmpty() || chosen.contains(x.name()))
        .sorted(java.util.Comparator.comparing(x -> !x.name().equals(OutageScenario.control().name())))
        .toList();
    run(smoke, out, s, scenarios, Endpoint.fromEnvironment());
    System.exit(0);
  }

  /** Runs the scenarios and writes {@code outage.*} (smoke: {@code outage-smoke.*}) after each. */
  static List<BenchResult> run(boolean smoke, Path out, Settings s, List<OutageScenario> scenarios, Endpoint own)
      throws Exception {
    List<BenchResult> results = new ArrayList<>();
    Instant started = Instant.now();
    String loadStart = LoadAvg.now();
    String base = smoke ? "outage-smoke" : "outage";
    List<String> toRun = new ArrayList<>(scenarios.stream().map(OutageScenario::name).toList());
    try (BenchEnv env = BenchEnv.start(smoke)) {
      Endpoint endpoint = own;
      if (endpoint == null) {
        S3ProxyProcess server = env.s3Server();
        endpoint = new Endpoint(server.endpoint(), null, UploadMeasure.ACCESS_KEY, UploadMeasure.SECRET_KEY,
            "us-east-1", false);
      }
      Map<String, Object> c = env.conditions();
      String header0 = "PostgreSQL " + c.get("postgres") + " (" + c.get("postgres_source") + "): synchronous_commit="
          + c.get("pg_synchronous_commit") + ", fsync=" + c.get("pg_fsync") + "; disk flush at start: "
          + c.get("disk_flush_at_start") + ". S3: " + endpoint.describe() + ", behind FaultProxy (test-rig). Load: "
          + s.filesPerSecond() + " files/s of " + s.fileBytes() / 1024 + " KiB (the goal names 500 files/s of 1 MiB;"
          + " scaled to what the machine running it can carry), fault durations x " + s.faultScale() + ".";
      System.out.println("[outage] " + header0 + " loadavg " + loadStart);
      Double controlP99Ms = null; // register p99 over the control's window, once the control has run
      for (OutageScenario scenario : scenarios) {
        long t0 = System.nanoTime();
        System.out.println("[outage] " + scenario.name() + " ...");
        try {
          List<BenchResult> r = scenario(env, s, scenario, endpoint, controlP99Ms);
          results.addAll(r);
          if (scenario.name().equals(OutageScenario.control().name()) && !r.isEmpty()) {
            controlP99Ms = ((Number) r.get(0).conditions().get("register_p99_ms_fault")).doubleValue();
          }
          r.forEach(x -> System.out.println("[outage]   " + x.name() + " = " + BenchResult.fmt(x.value()) + " "
              + x.unit() + " (goal " + x.goal() + ", met " + x.met() + ")"));
        } catch (Exception | Error e) {
          e.printStackTrace();
          results.add(BenchResult.notMeasured("outage." + scenario.name() + ".error", "-", "completes",
              "scenario failed: " + e, env.conditions()));
        }
        System.out.printf("[outage]   %s took %.1f s%n", scenario.name(), (System.nanoTime() - t0) / 1e9);
        toRun.remove(scenario.name());
        String header = "Segment Ledger outage scenarios (" + (smoke ? "smoke" : "full") + " run, " + started
            + ", " + (toRun.isEmpty() ? "took " : "PARTIAL, not yet run: " + String.join(", ", toRun) + "; ")
            + Duration.between(started, Instant.now()).toSeconds() + " s)\n\n" + header0
            + " Load average (1/5/15 min) at start " + loadStart + ", now " + LoadAvg.now() + " on "
            + Runtime.getRuntime().availableProcessors() + " cores.";
        ResultsWriter.write(results, out.resolve(base + ".json"), out.resolve(base + ".md"), header);
      }
    }
    System.out.println("[outage] wrote " + out.resolve(base + ".json").toAbsolutePath());
    return results;
  }

  /** One sample of the run, taken every {@link #SAMPLE_EVERY}. */
  record Sample(long nanos, long unconfirmed, int queued, int threads, long heapAfterGc, long confirmed,
      CircuitState circuit) {}

  /** What the ledger reports, counted for the figures (the outcome is checked without it). */
  static final class Probe implements LedgerListener {
    final AtomicLong confirmed = new AtomicLong();
    final AtomicLong failed = new AtomicLong();
    final AtomicLong saturated = new AtomicLong();
    final List<long[]> circuit = new ArrayList<>(); // {nanos, state ordinal}
    volatile CircuitState state = CircuitState.CLOSED;

    @Override
    public void onConfirmed(LedgerItem item) {
      confirmed.incrementAndGet();
    }

    @Override
    public void onSaturated(LedgerItem item) {
      saturated.incrementAndGet();
    }

    @Override
    public void onFailed(LedgerItem item, Reason reason, String detail, boolean terminal) {
      failed.incrementAndGet();
    }

    @Override
    public void onCircuitStateChanged(CircuitState s) {
      synchronized (circuit) {
        circuit.add(new long[] {System.nanoTime(), s.ordinal()});
        state = s;
      }
    }

    List<long[]> circuitEvents() {
      synchronized (circuit) {
        return new ArrayList<>(circuit);
      }
    }
  }

  /** Counts the ledger's log lines (logger {@code dev.segmentledger}, INFO and above). */
  static final class LogCounter extends AppenderBase<ILoggingEvent> {
    final List<Long> at = new ArrayList<>();
    final List<String> samples = new ArrayList<>();

    @Override
    protected synchronized void append(ILoggingEvent event) {
      at.add(System.nanoTime());
      if (samples.size() < 5) {
        samples.add(event.getLevel() + " " + event.getLoggerName().replaceAll(".*\\.", "") + ": "
            + event.getFormattedMessage());
      }
    }

    synchronized long between(long from, long to) {
      return at.stream().filter(t -> t >= from && t < to).count();
    }
  }

  /** Runs one scenario ({@link OutageScenarioRun}). */
  static List<BenchResult> scenario(BenchEnv env, Settings s, OutageScenario scenario, Endpoint endpoint,
      Double controlP99Ms) throws Exception {
    return OutageScenarioRun.run(env, s, scenario, endpoint, controlP99Ms);
  }

  static void cleanUp(S3Client s3, String bucket, String prefix, Set<String> keys, Path blobs) throws Exception {
    if (blobs != null) {
      Path dir = blobs.resolve(bucket);
      try (var walk = java.nio.file.Files.walk(dir)) {
        for (Path p : walk.sorted(java.util.Comparator.reverseOrder()).toList()) {
          java.nio.file.Files.delete(p);
        }
      }
      return;
    }
    List<String> all = new ArrayList<>(keys);
    for (int i = 0; i < all.size(); i += 1000) {
      List<ObjectIdentifier> batch = all.subList(i, Math.min(all.size(), i + 1000)).stream()
          .map(k -> ObjectIdentifier.builder().key(k).build()).toList();
      s3.deleteObjects(b -> b.bucket(bucket).delete(d -> d.objects(batch).quiet(true)));
    }
  }

  static void sleepUntil(long nanos) throws InterruptedException {
    long wait;
    while ((wait = nanos - System.nanoTime()) > 0) {
      TimeUnit.NANOSECONDS.sleep(wait);
    }
  }

  static Sample last(List<Sample> samples) {
    synchronized (samples) {
      return samples.isEmpty() ? null : samples.get(samples.size() - 1);
    }
  }

  static List<Sample> between(List<Sample> samples, long from, long to) {
    synchronized (samples) {
      return samples.stream().filter(x -> x.nanos() >= from && x.nanos() < to).toList();
    }
  }

  static Sample firstAfter(List<Sample> samples, long at) {
    return samples.stream().filter(x -> x.nanos() >= at).findFirst().orElse(null);
  }

  /** The backlog the steady phase never exceeded, and at least one second of load. */
  static long steadyLevel(List<Sample> samples, long from, long to, int perSecond) {
    return Math.max(perSecond, between(samples, from, to).stream().mapToLong(Sample::unconfirmed).max().orElse(0));
  }

  static double rate(List<Sample> samples) {
    if (samples.size() < 2) {
      return Double.NaN;
    }
    Sample a = samples.get(0);
    Sample b = samples.get(samples.size() - 1);
    return (b.confirmed() - a.confirmed()) * 1e9 / (b.nanos() - a.nanos());
  }

  /** Seconds from {@code faultEnd} until the breaker was last seen closing (0 if it was closed then). */
  static double breakerClosedAfter(List<long[]> events, long faultEnd, long end) {
    int state = CircuitState.CLOSED.ordinal();
    long closedAt = faultEnd;
    for (long[] e : events) {
      if (e[0] <= faultEnd) {
        state = (int) e[1];
      } else if (e[0] <= end) {
        state = (int) e[1];
        if (state == CircuitState.CLOSED.ordinal()) {
          closedAt = e[0];
        }
      }
    }
    return state == CircuitState.CLOSED.ordinal() ? (closedAt - faultEnd) / 1e9 : Double.NaN;
  }

  static String describe(List<long[]> events, long faultStart) {
    StringBuilder b = new StringBuilder();
    for (long[] e : events) {
      if (b.length() > 400) {
        b.append(" ...");
        break;
      }
      b.append(b.length() == 0 ? "" : ", ").append(CircuitState.values()[(int) e[1]]).append(" at ")
          .append(String.format(java.util.Locale.ROOT, "%+.1f s", (e[0] - faultStart) / 1e9));
    }
    return b.length() == 0 ? "none" : b + " (from fault start)";
  }

  static long countScheduled(long[] scheduled, long from, long to) {
    return Arrays.stream(scheduled).filter(t -> t >= from && t < to).count();
  }

  static double p99(long[] latency, long[] scheduled, long from, long to) {
    long[] in = new long[latency.length];
    int n = 0;
    for (int i = 0; i < latency.length; i++) {
      if (scheduled[i] >= from && scheduled[i] < to && latency[i] >= 0) {
        in[n++] = latency[i];
      }
    }
    if (n == 0) {
      return Double.NaN;
    }
    Arrays.sort(in, 0, n);
    return in[Math.min(n - 1, (int) Math.ceil(n * 0.99) - 1)];
  }

  static long heapAfterGc() {
    long used = 0;
    for (MemoryPoolMXBean pool : ManagementFactory.getMemoryPoolMXBeans()) {
      if (pool.getType() == MemoryType.HEAP && pool.getCollectionUsage() != null) {
        used += pool.getCollectionUsage().getUsed();
      }
    }
    return used;
  }

  static int ledgerThreads(ThreadMXBean threads) {
    int n = 0;
    for (ThreadInfo info : threads.getThreadInfo(threads.getAllThreadIds(), 0)) {
      if (info != null && !info.getThreadName().startsWith("fault-proxy")) {
        n++;
      }
    }
    return n;
  }

  static double round(double v) {
    return Math.round(v * 100) / 100.0;
  }

  static S3Client client(URI uri, Endpoint endpoint) {
    return client(uri, endpoint, ATTEMPT_TIMEOUT, CALL_TIMEOUT);
  }

  /**
   * The checks' own client, straight to the endpoint: a LIST of tens of thousands of keys on
   * S3Proxy's filesystem store can take longer than the ledger's call timeout on a busy machine,
   * and a check that times out would lose the scenario's figures.
   */
  static S3Client checkingClient(URI uri, Endpoint endpoint) {
    return client(uri, endpoint, CHECK_TIMEOUT, CHECK_TIMEOUT);
  }

  private static S3Client client(URI uri, Endpoint endpoint, Duration attemptTimeout, Duration callTimeout) {
    return S3Client.builder()
        .endpointOverride(uri)
        .region(Region.of(endpoint.region()))
        .forcePathStyle(true)
        .credentialsProvider(StaticCredentialsProvider.create(
            AwsBasicCredentials.create(endpoint.accessKey(), endpoint.secretKey())))
        .requestChecksumCalculation(RequestChecksumCalculation.WHEN_REQUIRED)
        .responseChecksumValidation(ResponseChecksumValidation.WHEN_REQUIRED)
        .putAuthScheme(ContentMd5Signing.authScheme())
        .serviceConfiguration(S3Configuration.builder().expectContinueEnabled(false).build())
        .overrideConfiguration(o -> o.apiCallAttemptTimeout(attemptTimeout).apiCallTimeout(callTimeout))
        .httpClientBuilder(Apache5HttpClient.builder().expectContinueEnabled(false))
        .build();
  }
}
