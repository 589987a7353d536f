package dev.segmentledger.benchmarks;

import ch.qos.logback.classic.Level;
import ch.qos.logback.classic.Logger;
import ch.qos.logback.classic.spi.ILoggingEvent;
import ch.qos.logback.core.AppenderBase;
import dev.segmentledger.core.CircuitState;
import dev.segmentledger.core.ItemId;
import dev.segmentledger.core.Ledger;
import dev.segmentledger.core.LedgerItem;
import dev.segmentledger.core.LedgerListener;
import dev.segmentledger.core.ObjectKeys;
import dev.segmentledger.core.Reason;
import dev.segmentledger.core.Reconciler;
import dev.segmentledger.core.ReconciliationReport;
import dev.segmentledger.rig.FaultProxy;
import dev.segmentledger.s3.ContentMd5Signing;
import dev.segmentledger.s3.S3ObjectSink;
import java.lang.management.ManagementFactory;
import java.lang.management.MemoryPoolMXBean;
import java.lang.management.MemoryType;
import java.lang.management.ThreadInfo;
import java.lang.management.ThreadMXBean;
import java.net.URI;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;
import java.util.concurrent.locks.LockSupport;
import org.slf4j.LoggerFactory;
import software.amazon.awssdk.auth.credentials.AwsBasicCredentials;
import software.amazon.awssdk.auth.credentials.StaticCredentialsProvider;
import software.amazon.awssdk.core.checksums.RequestChecksumCalculation;
import software.amazon.awssdk.core.checksums.ResponseChecksumValidation;
import software.amazon.awssdk.http.apache5.Apache5HttpClient;
import software.amazon.awssdk.regions.Region;
import software.amazon.awssdk.services.s3.S3Client;
import software.amazon.awssdk.services.s3.S3Configuration;
import software.amazon.awssdk.services.s3.model.ObjectIdentifier;
import software.amazon.awssdk.services.s3.model.S3Object;

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
  private record Sample(long nanos, long unconfirmed, int queued, int threads, long heapAfterGc, long confirmed,
      CircuitState circuit) {}

  /** What the ledger reports, counted for the figures (the outcome is checked without it). */
  private static final class Probe implements LedgerListener {
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
  private static final class LogCounter extends AppenderBase<ILoggingEvent> {
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

  /**
   * Runs one scenario. {@code controlP99Ms}: the register p99 of the no-fault control over its
   * fault-long window, the reference of {@code register_p99_ratio}; {@code null}: the steady phase is.
   */
  static List<BenchResult> scenario(BenchEnv env, Settings s, OutageScenario scenario, Endpoint endpoint,
      Double controlP99Ms) throws Exception {
    String name = "outage." + scenario.name();
    String broadcast = ("o-" + scenario.name() + "-" + Long.toString(System.currentTimeMillis(), 36)).replace('_', '-');
    String bucket = endpoint.own() ? endpoint.bucket() : "outage-" + scenario.name().replace('_', '-');
    Path dir = env.newDir("outage-" + scenario.name());
    List<Path> files = MediaFiles.write(dir, s.distinctFiles(), s.fileBytes());
    Duration fault = s.faultOf(scenario);
    long period = TimeUnit.SECONDS.toNanos(1) / s.filesPerSecond();
    int maxItems = (int) ((s.warmUp().plus(s.steady()).plus(fault).plus(s.maxRecovery()).toNanos()) / period) + 1;
    long[] latency = new long[maxItems];
    long[] scheduled = new long[maxItems];
    Arrays.fill(latency, -1);
    AtomicLong registerFailures = new AtomicLong();
    AtomicReference<String> firstRegisterFailure = new AtomicReference<>();
    AtomicLong puts = new AtomicLong();
    AtomicLong heads = new AtomicLong();
    AtomicLong otherRequests = new AtomicLong();
    Probe probe = new Probe();
    List<Sample> samples = new ArrayList<>();

    Map<String, Object> c = env.conditions();
    c.put("scenario", scenario.description());
    c.put("fault_s", fault.toMillis() / 1e3);
    c.put("load", s.filesPerSecond() + " files/s of " + s.fileBytes() / 1024 + " KiB, one register call per file from "
        + REGISTER_THREADS + " threads, scheduled (latency from the scheduled instant); the goal names 500 files/s of"
        + " 1 MiB = 500 MiB/s, beyond this 2-core machine's disk");
    c.put("ledger", WORKERS + " workers, queue 256, sweep interval 1 s, breaker 5 failures / 10 s, Backoff.DEFAULT"
        + " (the defaults but the workers)");
    c.put("s3_client", "Apache5, attempt timeout " + ATTEMPT_TIMEOUT.toSeconds() + " s, call timeout "
        + CALL_TIMEOUT.toSeconds() + " s, SDK default retries, ContentMd5Signing, no Expect: 100-continue");
    c.put("s3", endpoint.describe());
    c.put("loadavg_start", LoadAvg.now());

    Logger ledgerLog = (Logger) LoggerFactory.getLogger("dev.segmentledger");
    Level oldLevel = ledgerLog.getLevel();
    boolean oldAdditive = ledgerLog.isAdditive();
    LogCounter logs = new LogCounter();
    logs.start();
    ledgerLog.addAppender(logs);
    ledgerLog.setLevel(Level.INFO);
    ledgerLog.setAdditive(false);

    try (S3Client direct = checkingClient(endpoint.uri(), endpoint);
        FaultProxy proxy = FaultProxy.start(endpoint.uri());
        S3Client viaProxy = client(proxy.uri(), endpoint);
        BenchEnv.Database db = env.newDatabase("outage", WORKERS + 6)) {
      if (!endpoint.own()) {
        direct.createBucket(b -> b.bucket(bucket));
      }
      proxy.onRequest(r -> {
        switch (r.method()) {
          case "PUT" -> puts.incrementAndGet();
          case "HEAD" -> heads.incrementAndGet();
          default -> otherRequests.incrementAndGet();
        }
      }, false);
      S3ObjectSink sink = S3ObjectSink.builder().client(viaProxy).bucket(bucket).build();
      Ledger ledger = Ledger.builder().stateStore(db.store()).objectSink(sink).allowedRoot(dir).workers(WORKERS)
          .listener(probe).build();
      ThreadMXBean threads = ManagementFactory.getThreadMXBean();
      ScheduledExecutorService sampler = Executors.newSingleThreadScheduledExecutor(r -> new Thread(r, "outage-sampler"));
      AtomicInteger names = new AtomicInteger();
      ExecutorService recorders = Executors.newFixedThreadPool(REGISTER_THREADS,
          r -> new Thread(r, "outage-recorder-" + names.incrementAndGet()));
      AtomicInteger registeredUpTo = new AtomicInteger();
      java.util.concurrent.atomic.AtomicBoolean loadOn = new java.util.concurrent.atomic.AtomicBoolean(true);
      long t0;
      long faultStart;
      long faultEnd;
      long loadEnd;
      try {
        ledger.start();
        t0 = System.nanoTime();
        sampler.scheduleAtFixedRate(() -> {
          try {
            Sample sample = new Sample(System.nanoTime(), db.count("state <> 'CONFIRMED'"), ledger.stats().queued(),
                ledgerThreads(threads), heapAfterGc(), probe.confirmed.get(), probe.state);
            synchronized (samples) {
              samples.add(sample);
            }
          } catch (RuntimeException e) {
            System.out.println("[outage] sample failed: " + e);
          }
        }, 0, SAMPLE_EVERY.toMillis(), TimeUnit.MILLISECONDS);
        Thread scheduler = new Thread(() -> {
          for (int i = 0; i < maxItems && loadOn.get(); i++) {
            long at = t0 + i * period;
            long wait;
            while ((wait = at - System.nanoTime()) > 0) {
              LockSupport.parkNanos(wait);
            }
            int item = i;
            scheduled[item] = at;
            recorders.execute(() -> {
              try {
                ledger.register(ItemId.original(broadcast, RENDITION, item), files.get(item % files.size()));
                latency[item] = System.nanoTime() - at;
              } catch (RuntimeException e) {
                registerFailures.incrementAndGet();
                firstRegisterFailure.compareAndSet(null, e.toString());
              }
            });
            registeredUpTo.set(item + 1);
          }
        }, "outage-load");
        scheduler.start();

        faultStart = t0 + s.warmUp().plus(s.steady()).toNanos();
        sleepUntil(faultStart);
        scenario.set(proxy, true);
        long plannedEnd = faultStart + fault.toNanos();
        if (scenario.flapPeriod() != null) {
          long flap = s.flapOf(scenario).toNanos();
          boolean down = true;
          for (long next = faultStart + flap; next < plannedEnd; next += flap) {
            sleepUntil(next);
            down = !down;
            scenario.set(proxy, down);
          }
        }
        sleepUntil(plannedEnd);
        scenario.set(proxy, false);
        proxy.clearConditions();
        faultEnd = System.nanoTime();
        long level = steadyLevel(samples, t0 + s.warmUp().toNanos(), faultStart, s.filesPerSecond());
        long recoveryDeadline = faultEnd + s.maxRecovery().toNanos();
        while (System.nanoTime() < recoveryDeadline) {
          Sample last = last(samples);
          if (last != null && last.nanos() > faultEnd && last.unconfirmed() <= level
              && last.circuit() == CircuitState.CLOSED) {
            break;
          }
          Thread.sleep(SAMPLE_EVERY.toMillis());
        }
        loadOn.set(false);
        scheduler.join();
        recorders.shutdown();
        recorders.awaitTermination(1, TimeUnit.MINUTES);
        loadEnd = System.nanoTime();
        long drainDeadline = loadEnd + s.maxDrain().toNanos();
        while (System.nanoTime() < drainDeadline && db.count("state <> 'CONFIRMED'") > 0) {
          Thread.sleep(SAMPLE_EVERY.toMillis());
        }
        sampler.shutdown();
        sampler.awaitTermination(10, TimeUnit.SECONDS);
      } catch (Exception | Error e) {
        loadOn.set(false);
        recorders.shutdownNow();
        sampler.shutdownNow();
        ledger.close();
        throw e;
      }
      long drained = System.nanoTime();
      ledger.close();
      // Reconciled over the checks' own client, not through the proxy and its short timeouts.
      ReconciliationReport report = Reconciler.create(db.store(),
          S3ObjectSink.builder().client(direct).bucket(bucket).build(), Clock.systemUTC()).reconcile(broadcast);

      // ---- figures -------------------------------------------------------------------------------
      List<Sample> all;
      synchronized (samples) {
        all = new ArrayList<>(samples);
      }
      long steadyFrom = t0 + s.warmUp().toNanos();
      long level = steadyLevel(all, steadyFrom, faultStart, s.filesPerSecond());
      List<Sample> steady = between(all, steadyFrom, faultStart);
      List<Sample> during = between(all, faultStart, faultEnd);
      Sample atFaultEnd = firstAfter(all, faultEnd);
      Sample recovered = all.stream().filter(x -> x.nanos() >= faultEnd && x.unconfirmed() <= level).findFirst()
          .orElse(null);
      double recoverySeconds = recovered == null ? Double.NaN : Math.max(0, (recovered.nanos() - faultEnd) / 1e9);
      double breakerSeconds = breakerClosedAfter(probe.circuitEvents(), faultEnd, drained);
      int transitions = probe.circuitEvents().size();
      double steadyRate = rate(steady);
      double catchUpRate = Double.NaN;
      if (recovered != null && atFaultEnd != null && recovered.nanos() - atFaultEnd.nanos() >= 1e9) {
        catchUpRate = (recovered.confirmed() - atFaultEnd.confirmed()) * 1e9 / (recovered.nanos() - atFaultEnd.nanos());
      }
      long peak = all.stream().filter(x -> x.nanos() >= faultStart).mapToLong(Sample::unconfirmed).max().orElse(0);
      double p99Steady = p99(latency, scheduled, steadyFrom, faultStart);
      double p99Fault = p99(latency, scheduled, faultStart, faultEnd);
      int maxQueue = during.stream().mapToInt(Sample::queued).max().orElse(0);
      int threadsSteady = steady.stream().mapToInt(Sample::threads).max().orElse(0);
      int threadsFault = during.stream().mapToInt(Sample::threads).max().orElse(0);
      double heapSteady = steady.stream().mapToLong(Sample::heapAfterGc).max().orElse(0) / 1048576.0;
      double heapFault = all.stream().filter(x -> x.nanos() >= faultStart).mapToLong(Sample::heapAfterGc).max()
          .orElse(0) / 1048576.0;
      double faultSeconds = (faultEnd - faultStart) / 1e9;
      double logsPerSecond = logs.between(faultStart, faultEnd) / faultSeconds;
      long registeredDuringFault = countScheduled(scheduled, faultStart, faultEnd);

      // ---- outcome, checked without the ledger's counters ---------------------------------------
      int registered = registeredUpTo.get();
      long registeredOk = registered - registerFailures.get();
      long rows = db.count("broadcast_id = '" + broadcast + "'");
      long confirmedRows = db.count("broadcast_id = '" + broadcast + "' AND state = 'CONFIRMED'");
      long unconfirmedRows = rows - confirmedRows;
      List<Long> confirmedSequences = db.jdbi().withHandle(h -> h.createQuery(
          "SELECT sequence FROM segment_ledger_item WHERE broadcast_id = :b AND state = 'CONFIRMED'")
          .bind("b", broadcast).mapTo(Long.class).list());
      Set<String> objects = new HashSet<>();
      String prefix = ObjectKeys.broadcastPrefix(broadcast);
      direct.listObjectsV2Paginator(b -> b.bucket(bucket).prefix(prefix)).contents().forEach(o -> objects.add(o.key()));
      long confirmedWithoutObject = confirmedSequences.stream()
          .map(q -> ObjectKeys.keyOf(ItemId.original(broadcast, RENDITION, q))).filter(k -> !objects.contains(k)).count();
      long objectsWithoutConfirmedRow = objects.size() - (confirmedSequences.size() - confirmedWithoutObject);
      int unfinishedUploads = direct.listMultipartUploads(b -> b.bucket(bucket).prefix(prefix)).uploads().size();
      int differences = report.differences().size();
      long extraPuts = puts.get() - confirmedRows;

      c.put("steady_confirms_per_s", round(steadyRate));
      c.put("steady_backlog_level", level);
      c.put("backlog_at_fault_end", atFaultEnd == null ? -1 : atFaultEnd.unconfirmed());
      c.put("backlog_peak", peak);
      c.put("register_p99_ms_steady", round(p99Steady / 1e6));
      c.put("register_p99_ms_fault", round(p99Fault / 1e6));
      c.put("threads_steady_max", threadsSteady);
      c.put("heap_after_gc_steady_max_mib", round(heapSteady));
      c.put("registered", registered);
      c.put("registered_during_fault", registeredDuringFault);
      c.put("puts_seen_by_proxy", puts.get());
      c.put("heads_seen_by_proxy", heads.get());
      c.put("other_requests_seen_by_proxy", otherRequests.get());
      c.put("ledger_failed_attempts", probe.failed.get());
      c.put("ledger_saturated", probe.saturated.get());
      c.put("circuit_events", describe(probe.circuitEvents(), faultStart));
      c.put("log_samples", logs.samples);
      c.put("objects_without_confirmed_row", objectsWithoutConfirmedRow);
      Set<String> confirmedKeys = new HashSet<>();
      confirmedSequences.forEach(q -> confirmedKeys.add(ObjectKeys.keyOf(ItemId.original(broadcast, RENDITION, q))));
      c.put("objects_without_confirmed_row_sample", objects.stream().filter(k -> !confirmedKeys.contains(k)).limit(3)
          .toList());
      c.put("reconcile_differences_sample", report.differences().stream().limit(3)
          .map(ReconciliationReport.Difference::describe).toList());
      c.put("drain_after_load_s", round((drained - loadEnd) / 1e9));
      c.put("first_register_failure", firstRegisterFailure.get());
      c.put("loadavg_end", LoadAvg.now());

      List<BenchResult> r = new ArrayList<>();
      boolean underLoad = recovered != null && recovered.nanos() <= loadEnd;
      c.put("recovered_under_load", underLoad);
      r.add(BenchResult.info(name + ".backlog_recovered_s", recoverySeconds, "s",
          "fault end to the first sample with the unconfirmed rows (SQL) back at the steady level (" + level + "); peak "
              + peak + (underLoad ? "" : "; NOT under load: the load stopped after " + s.maxRecovery().toSeconds()
              + " s without recovery, this is the drain without it"), c));
      r.add(BenchResult.info(name + ".breaker_closed_s", breakerSeconds, "s",
          transitions == 0 ? "the breaker never opened" : "fault end until the breaker was closed for good (" + transitions
              + " transitions)", c));
      if (Double.isNaN(catchUpRate)) {
        r.add(new BenchResult(name + ".catch_up_ratio", Double.NaN, "x", ">= 0.900", recovered != null,
            recovered != null ? "no catch-up: the backlog was at its steady level within 1 s of the fault end"
                : "the backlog did not come back to its steady level within " + s.maxRecovery().toSeconds() + " s", c));
      } else {
        r.add(BenchResult.atLeast(name + ".catch_up_ratio", catchUpRate / steadyRate, "x", 0.9,
            "confirms/s from fault end to backlog recovered (" + round(catchUpRate) + ") / steady confirms/s ("
                + round(steadyRate) + ")", c));
      }
      String toSteady = "register p99 during the fault / steady (" + round(p99Fault / 1e6) + " / "
          + round(p99Steady / 1e6) + " ms, from the scheduled instant)";
      if (scenario.name().equals(OutageScenario.control().name())) {
        r.add(BenchResult.info(name + ".register_p99_ratio", p99Fault / p99Steady, "x", toSteady
            + "; no fault: what a " + fault.toSeconds() + " s window holds against the 20 s steady phase", c));
      } else if (controlP99Ms != null) {
        r.add(BenchResult.atMost(name + ".register_p99_ratio", p99Fault / 1e6 / controlP99Ms, "x", 2.0,
            "register p99 during the fault / during the no-fault control's fault window, same run ("
                + round(p99Fault / 1e6) + " / " + round(controlP99Ms) + " ms, from the scheduled instant)", c));
        r.add(BenchResult.info(name + ".register_p99_to_steady", p99Fault / p99Steady, "x", toSteady
            + "; the 20 s steady phase rarely holds the periodic stalls a longer window does", c));
      } else {
        r.add(BenchResult.atMost(name + ".register_p99_ratio", p99Fault / p99Steady, "x", 2.0, toSteady, c));
      }
      r.add(BenchResult.atMost(name + ".register_failures", registerFailures.get(), "calls", 0,
          "register calls that threw, whole run", c));
      r.add(BenchResult.atMost(name + ".queue_max", maxQueue, "items", 256, "in-memory queue during the fault (capacity 256)",
          c));
      r.add(BenchResult.atMost(name + ".heap_after_gc_max_mib", heapFault, "MiB", heapSteady + 32,
          "heap used after the last GC, max from fault start to the end; bound: steady max (" + round(heapSteady)
              + " MiB) + 32 MiB", c));
      r.add(BenchResult.atMost(name + ".threads_max", threadsFault, "threads", threadsSteady + 2,
          "live threads of this JVM during the fault (the FaultProxy's own not counted); bound: steady max + 2", c));
      r.add(BenchResult.atMost(name + ".log_lines_per_s", logsPerSecond, "lines/s", 1.0,
          "ledger log lines (INFO and above) per second of fault", c));
      r.add(BenchResult.info(name + ".extra_puts_per_fault_item", registeredDuringFault == 0 ? 0
          : (double) extraPuts / registeredDuringFault, "PUTs",
          "(PUTs that reached the proxy - confirmed rows) / files registered during the fault; " + puts.get() + " PUTs, "
              + heads.get() + " HEADs", c));
      r.add(BenchResult.info(name + ".breaker_transitions", transitions, "transitions", "state changes reported", c));
      r.add(BenchResult.atMost(name + ".lost", registeredOk - confirmedRows, "rows",
          0, "registered files not CONFIRMED after the drain (SQL: " + unconfirmedRows + " rows unconfirmed, "
              + rows + " rows for " + registeredOk + " registered)", c));
      r.add(BenchResult.atMost(name + ".confirmed_without_object", confirmedWithoutObject, "rows", 0,
          "CONFIRMED rows whose key is missing from a listing taken directly from the endpoint", c));
      r.add(BenchResult.atMost(name + ".reconcile_differences", differences, "differences", 0,
          "Reconciler.reconcile after the drain, over a client straight to the endpoint (not through the proxy)", c));
      r.add(BenchResult.atMost(name + ".unfinished_multipart", unfinishedUploads, "uploads", 0,
          "ListMultipartUploads under the broadcast's prefix", c));
      cleanUp(direct, bucket, prefix, objects, endpoint.own() ? null : env.s3Blobs());
      return r;
    } finally {
      ledgerLog.detachAppender(logs);
      ledgerLog.setLevel(oldLevel);
      ledgerLog.setAdditive(oldAdditive);
    }
  }

  private static void cleanUp(S3Client s3, String bucket, String prefix, Set<String> keys, Path blobs) throws Exception {
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

  private static void sleepUntil(long nanos) throws InterruptedException {
    long wait;
    while ((wait = nanos - System.nanoTime()) > 0) {
      TimeUnit.NANOSECONDS.sleep(wait);
    }
  }

  private static Sample last(List<Sample> samples) {
    synchronized (samples) {
      return samples.isEmpty() ? null : samples.get(samples.size() - 1);
    }
  }

  private static List<Sample> between(List<Sample> samples, long from, long to) {
    synchronized (samples) {
      return samples.stream().filter(x -> x.nanos() >= from && x.nanos() < to).toList();
    }
  }

  private static Sample firstAfter(List<Sample> samples, long at) {
    return samples.stream().filter(x -> x.nanos() >= at).findFirst().orElse(null);
  }

  /** The backlog the steady phase never exceeded, and at least one second of load. */
  private static long steadyLevel(List<Sample> samples, long from, long to, int perSecond) {
    return Math.max(perSecond, between(samples, from, to).stream().mapToLong(Sample::unconfirmed).max().orElse(0));
  }

  private static double rate(List<Sample> samples) {
    if (samples.size() < 2) {
      return Double.NaN;
    }
    Sample a = samples.get(0);
    Sample b = samples.get(samples.size() - 1);
    return (b.confirmed() - a.confirmed()) * 1e9 / (b.nanos() - a.nanos());
  }

  /** Seconds from {@code faultEnd} until the breaker was last seen closing (0 if it was closed then). */
  private static double breakerClosedAfter(List<long[]> events, long faultEnd, long end) {
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

  private static String describe(List<long[]> events, long faultStart) {
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

  private static long countScheduled(long[] scheduled, long from, long to) {
    return Arrays.stream(scheduled).filter(t -> t >= from && t < to).count();
  }

  private static double p99(long[] latency, long[] scheduled, long from, long to) {
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

  private static long heapAfterGc() {
    long used = 0;
    for (MemoryPoolMXBean pool : ManagementFactory.getMemoryPoolMXBeans()) {
      if (pool.getType() == MemoryType.HEAP && pool.getCollectionUsage() != null) {
        used += pool.getCollectionUsage().getUsed();
      }
    }
    return used;
  }

  private static int ledgerThreads(ThreadMXBean threads) {
    int n = 0;
    for (ThreadInfo info : threads.getThreadInfo(threads.getAllThreadIds(), 0)) {
      if (info != null && !info.getThreadName().startsWith("fault-proxy")) {
        n++;
      }
    }
    return n;
  }

  private static double round(double v) {
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
