package dev.segmentledger.benchmarks;

import ch.qos.logback.classic.Level;
import ch.qos.logback.classic.Logger;
import dev.segmentledger.benchmarks.OutageMeasure.Endpoint;
import dev.segmentledger.benchmarks.OutageMeasure.LogCounter;
import dev.segmentledger.benchmarks.OutageMeasure.Probe;
import dev.segmentledger.benchmarks.OutageMeasure.Sample;
import dev.segmentledger.benchmarks.OutageMeasure.Settings;
import dev.segmentledger.core.CircuitState;
import dev.segmentledger.core.ItemId;
import dev.segmentledger.core.Ledger;
import dev.segmentledger.core.ObjectKeys;
import dev.segmentledger.core.Reconciler;
import dev.segmentledger.core.ReconciliationReport;
import dev.segmentledger.rig.FaultProxy;
import dev.segmentledger.s3.S3ObjectSink;
import java.lang.management.ManagementFactory;
import java.lang.management.ThreadMXBean;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;
import java.util.concurrent.locks.LockSupport;
import org.slf4j.LoggerFactory;
import software.amazon.awssdk.services.s3.S3Client;

/**
 * One scenario of the outage benchmark ({@link OutageMeasure}), in three parts: the setup (the files,
 * the conditions, a ledger whose S3 client goes through a {@link FaultProxy}), the run (warm-up,
 * steady phase, fault, load until the backlog recovers, drain) and the figures (each phase read from
 * the samples and latencies, and the outcome checked without the ledger's counters). Used once, by
 * one thread; the run's own threads only record into it.
 */
final class OutageScenarioRun {
  private final Settings s;
  private final OutageScenario scenario;
  private final Endpoint endpoint;
  private final String name;
  private final String broadcast;
  private final String bucket;
  private final Path dir;
  private final List<Path> files;
  private final Duration fault;
  private final long period;
  private final int maxItems;

  private final long[] latency;
  private final long[] scheduled;
  private final AtomicLong registerFailures = new AtomicLong();
  private final AtomicReference<String> firstRegisterFailure = new AtomicReference<>();
  private final AtomicLong puts = new AtomicLong();
  private final AtomicLong heads = new AtomicLong();
  private final AtomicLong otherRequests = new AtomicLong();
  private final AtomicInteger registeredUpTo = new AtomicInteger();
  private final Probe probe = new Probe();
  private final List<Sample> samples = new ArrayList<>();

  /** The instants of a run, {@link System#nanoTime()}. */
  private record Timeline(long t0, long faultStart, long faultEnd, long loadEnd, long drained) {
    long steadyFrom(Settings s) {
      return t0 + s.warmUp().toNanos();
    }
  }

  /** What the samples and the register latencies say about the steady phase, the fault and the recovery. */
  private record Phases(long level, Sample atFaultEnd, Sample recovered, double recoverySeconds,
      double breakerSeconds, int transitions, double steadyRate, double catchUpRate, long peak, double p99Steady,
      double p99Fault, int maxQueue, int threadsSteady, int threadsFault, double heapSteady, double heapFault,
      double logsPerSecond, long registeredDuringFault) {}

  /** The outcome, checked without the ledger's counters: SQL counts, a listing, the reconciler. */
  private record Outcome(int registered, long registeredOk, long rows, long confirmedRows, String prefix,
      Set<String> objects, long confirmedWithoutObject, long objectsWithoutConfirmedRow,
      List<String> objectsWithoutConfirmedRowSample, int unfinishedUploads, ReconciliationReport report) {}

  // ---- setup --------------------------------------------------------------------------------------

  private OutageScenarioRun(BenchEnv env, Settings s, OutageScenario scenario, Endpoint endpoint) throws Exception {
    this.s = s;
    this.scenario = scenario;
    this.endpoint = endpoint;
    this.name = "outage." + scenario.name();
    this.broadcast = ("o-" + scenario.name() + "-" + Long.toString(System.currentTimeMillis(), 36)).replace('_', '-');
    this.bucket = endpoint.own() ? endpoint.bucket() : "outage-" + scenario.name().replace('_', '-');
    this.dir = env.newDir("outage-" + scenario.name());
    this.files = MediaFiles.write(dir, s.distinctFiles(), s.fileBytes());
    this.fault = s.faultOf(scenario);
    this.period = TimeUnit.SECONDS.toNanos(1) / s.filesPerSecond();
    this.maxItems = (int) ((s.warmUp().plus(s.steady()).plus(fault).plus(s.maxRecovery()).toNanos()) / period) + 1;
    this.latency = new long[maxItems];
    this.scheduled = new long[maxItems];
    Arrays.fill(latency, -1);
  }

  /**
   * Runs one scenario. {@code controlP99Ms}: the register p99 of the no-fault control over its
   * fault-long window, the reference of {@code register_p99_ratio}; {@code null}: the steady phase is.
   */
  static List<BenchResult> run(BenchEnv env, Settings s, OutageScenario scenario, Endpoint endpoint,
      Double controlP99Ms) throws Exception {
    return new OutageScenarioRun(env, s, scenario, endpoint).run(env, controlP99Ms);
  }

  private List<BenchResult> run(BenchEnv env, Double controlP99Ms) throws Exception {
    Map<String, Object> c = conditions(env);
    LedgerLog log = LedgerLog.capture();
    try (S3Client direct = OutageMeasure.checkingClient(endpoint.uri(), endpoint);
        FaultProxy proxy = FaultProxy.start(endpoint.uri());
        S3Client viaProxy = OutageMeasure.client(proxy.uri(), endpoint);
        BenchEnv.Database db = env.newDatabase("outage", OutageMeasure.WORKERS + 6)) {
      if (!endpoint.own()) {
        direct.createBucket(b -> b.bucket(bucket));
      }
      countRequests(proxy);
      Ledger ledger = Ledger.builder().stateStore(db.store())
          .objectSink(S3ObjectSink.builder().client(viaProxy).bucket(bucket).build()).allowedRoot(dir)
          .workers(OutageMeasure.WORKERS).listener(probe).build();

      Timeline t = drive(ledger, proxy, db);
      ledger.close();

      // Reconciled over the checks' own client, not through the proxy and its short timeouts.
      ReconciliationReport report = Reconciler.create(db.store(),
          S3ObjectSink.builder().client(direct).bucket(bucket).build(), Clock.systemUTC()).reconcile(broadcast);
      Phases phases = phases(t, log.counter());
      Outcome outcome = outcome(db, direct, report);
      recordConditions(c, t, phases, outcome, log.counter());
      List<BenchResult> r = figures(c, controlP99Ms, t, phases, outcome);
      OutageMeasure.cleanUp(direct, bucket, outcome.prefix(), outcome.objects(), endpoint.own() ? null : env.s3Blobs());
      return r;
    } finally {
      log.restore();
    }
  }

  private Map<String, Object> conditions(BenchEnv env) {
    Map<String, Object> c = env.conditions();
    c.put("scenario", scenario.description());
    c.put("fault_s", fault.toMillis() / 1e3);
    c.put("load", s.filesPerSecond() + " files/s of " + s.fileBytes() / 1024 + " KiB, one register call per file from "
        + OutageMeasure.REGISTER_THREADS + " threads, scheduled (latency from the scheduled instant); the goal names"
        + " 500 files/s of 1 MiB = 500 MiB/s, beyond the disk of the 2-core machine running the benchmark");
    c.put("ledger", OutageMeasure.WORKERS + " workers, queue 256, sweep interval 1 s, breaker 5 failures / 10 s,"
        + " Backoff.DEFAULT (the defaults but the workers)");
    c.put("s3_client", "Apache5, attempt timeout " + OutageMeasure.ATTEMPT_TIMEOUT.toSeconds() + " s, call timeout "
        + OutageMeasure.CALL_TIMEOUT.toSeconds() + " s, SDK default retries, ContentMd5Signing, no Expect:"
        + " 100-continue");
    c.put("s3", endpoint.describe());
    c.put("loadavg_start", LoadAvg.now());
    return c;
  }

  /** Counts the requests that reach the proxy, by method. */
  private void countRequests(FaultProxy proxy) {
    proxy.onRequest(r -> {
      switch (r.method()) {
        case "PUT" -> puts.incrementAndGet();
        case "HEAD" -> heads.incrementAndGet();
        default -> otherRequests.incrementAndGet();
      }
    }, false);
  }

  // ---- run ----------------------------------------------------------------------------------------

  /** Warm-up, steady phase, fault, load until recovered, drain; the ledger is closed if this throws. */
  private Timeline drive(Ledger ledger, FaultProxy proxy, BenchEnv.Database db) throws Exception {
    ThreadMXBean threads = ManagementFactory.getThreadMXBean();
    ScheduledExecutorService sampler = Executors.newSingleThreadScheduledExecutor(r -> new Thread(r, "outage-sampler"));
    AtomicInteger names = new AtomicInteger();
    ExecutorService recorders = Executors.newFixedThreadPool(OutageMeasure.REGISTER_THREADS,
        r -> new Thread(r, "outage-recorder-" + names.incrementAndGet()));
    AtomicBoolean loadOn = new AtomicBoolean(true);
    try {
      ledger.start();
      long t0 = System.nanoTime();
      sample(sampler, ledger, db, threads);
      Thread scheduler = load(t0, ledger, recorders, loadOn);
      long faultStart = t0 + s.warmUp().plus(s.steady()).toNanos();
      long faultEnd = fault(proxy, faultStart);
      awaitRecovery(t0 + s.warmUp().toNanos(), faultStart, faultEnd);
      loadOn.set(false);
      scheduler.join();
      recorders.shutdown();
      recorders.awaitTermination(1, TimeUnit.MINUTES);
      long loadEnd = System.nanoTime();
      awaitDrain(db, loadEnd);
      sampler.shutdown();
      sampler.awaitTermination(10, TimeUnit.SECONDS);
      return new Timeline(t0, faultStart, faultEnd, loadEnd, System.nanoTime());
    } catch (Exception | Error e) {
      loadOn.set(false);
      recorders.shutdownNow();
      sampler.shutdownNow();
      ledger.close();
      throw e;
    }
  }

  /** Every {@link OutageMeasure#SAMPLE_EVERY}: the unconfirmed rows (SQL), queue, threads, heap, confirms, breaker. */
  private void sample(ScheduledExecutorService sampler, Ledger ledger, BenchEnv.Database db, ThreadMXBean threads) {
    sampler.scheduleAtFixedRate(() -> {
      try {
        Sample sample = new Sample(System.nanoTime(), db.count("state <> 'CONFIRMED'"), ledger.stats().queued(),
            OutageMeasure.ledgerThreads(threads), OutageMeasure.heapAfterGc(), probe.confirmed.get(), probe.state);
        synchronized (samples) {
          samples.add(sample);
        }
      } catch (RuntimeException e) {
        System.out.println("[outage] sample failed: " + e);
      }
    }, 0, OutageMeasure.SAMPLE_EVERY.toMillis(), TimeUnit.MILLISECONDS);
  }

  /** The recorder: one file every {@code period} from {@code t0}, registered by the recorder threads. */
  private Thread load(long t0, Ledger ledger, ExecutorService recorders, AtomicBoolean loadOn) {
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
            ledger.register(ItemId.original(broadcast, OutageMeasure.RENDITION, item), files.get(item % files.size()));
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
    return scheduler;
  }

  /** Sets the scenario's fault on the proxy from {@code faultStart} for its duration (flapping if it does); its end. */
  private long fault(FaultProxy proxy, long faultStart) throws Exception {
    OutageMeasure.sleepUntil(faultStart);
    scenario.set(proxy, true);
    long plannedEnd = faultStart + fault.toNanos();
    if (scenario.flapPeriod() != null) {
      long flap = s.flapOf(scenario).toNanos();
      boolean down = true;
      for (long next = faultStart + flap; next < plannedEnd; next += flap) {
        OutageMeasure.sleepUntil(next);
        down = !down;
        scenario.set(proxy, down);
      }
    }
    OutageMeasure.sleepUntil(plannedEnd);
    scenario.set(proxy, false);
    proxy.clearConditions();
    return System.nanoTime();
  }

  /** Until the backlog is back at its steady level with the breaker closed, or the recovery limit. */
  private void awaitRecovery(long steadyFrom, long faultStart, long faultEnd) throws InterruptedException {
    long level = OutageMeasure.steadyLevel(samples, steadyFrom, faultStart, s.filesPerSecond());
    long recoveryDeadline = faultEnd + s.maxRecovery().toNanos();
    while (System.nanoTime() < recoveryDeadline) {
      Sample last = OutageMeasure.last(samples);
      if (last != null && last.nanos() > faultEnd && last.unconfirmed() <= level
          && last.circuit() == CircuitState.CLOSED) {
        break;
      }
      Thread.sleep(OutageMeasure.SAMPLE_EVERY.toMillis());
    }
  }

  /** Until every row is confirmed, or the drain limit. */
  private void awaitDrain(BenchEnv.Database db, long loadEnd) throws InterruptedException {
    long drainDeadline = loadEnd + s.maxDrain().toNanos();
    while (System.nanoTime() < drainDeadline && db.count("state <> 'CONFIRMED'") > 0) {
      Thread.sleep(OutageMeasure.SAMPLE_EVERY.toMillis());
    }
  }

  // ---- figures ------------------------------------------------------------------------------------

  private Phases phases(Timeline t, LogCounter logs) {
    List<Sample> all;
    synchronized (samples) {
      all = new ArrayList<>(samples);
    }
    long steadyFrom = t.steadyFrom(s);
    long faultStart = t.faultStart();
    long faultEnd = t.faultEnd();
    long level = OutageMeasure.steadyLevel(all, steadyFrom, faultStart, s.filesPerSecond());
    List<Sample> steady = OutageMeasure.between(all, steadyFrom, faultStart);
    List<Sample> during = OutageMeasure.between(all, faultStart, faultEnd);
    Sample atFaultEnd = OutageMeasure.firstAfter(all, faultEnd);
    Sample recovered = all.stream().filter(x -> x.nanos() >= faultEnd && x.unconfirmed() <= level).findFirst()
        .orElse(null);
    double recoverySeconds = recovered == null ? Double.NaN : Math.max(0, (recovered.nanos() - faultEnd) / 1e9);
    double breakerSeconds = OutageMeasure.breakerClosedAfter(probe.circuitEvents(), faultEnd, t.drained());
    int transitions = probe.circuitEvents().size();
    double steadyRate = OutageMeasure.rate(steady);
    double catchUpRate = Double.NaN;
    if (recovered != null && atFaultEnd != null && recovered.nanos() - atFaultEnd.nanos() >= 1e9) {
      catchUpRate = (recovered.confirmed() - atFaultEnd.confirmed()) * 1e9 / (recovered.nanos() - atFaultEnd.nanos());
    }
    long peak = all.stream().filter(x -> x.nanos() >= faultStart).mapToLong(Sample::unconfirmed).max().orElse(0);
    double p99Steady = OutageMeasure.p99(latency, scheduled, steadyFrom, faultStart);
    double p99Fault = OutageMeasure.p99(latency, scheduled, faultStart, faultEnd);
    int maxQueue = during.stream().mapToInt(Sample::queued).max().orElse(0);
    int threadsSteady = steady.stream().mapToInt(Sample::threads).max().orElse(0);
    int threadsFault = during.stream().mapToInt(Sample::threads).max().orElse(0);
    double heapSteady = steady.stream().mapToLong(Sample::heapAfterGc).max().orElse(0) / 1048576.0;
    double heapFault = all.stream().filter(x -> x.nanos() >= faultStart).mapToLong(Sample::heapAfterGc).max()
        .orElse(0) / 1048576.0;
    double faultSeconds = (faultEnd - faultStart) / 1e9;
    double logsPerSecond = logs.between(faultStart, faultEnd) / faultSeconds;
    long registeredDuringFault = OutageMeasure.countScheduled(scheduled, faultStart, faultEnd);
    return new Phases(level, atFaultEnd, recovered, recoverySeconds, breakerSeconds, transitions, steadyRate,
        catchUpRate, peak, p99Steady, p99Fault, maxQueue, threadsSteady, threadsFault, heapSteady, heapFault,
        logsPerSecond, registeredDuringFault);
  }

  private Outcome outcome(BenchEnv.Database db, S3Client direct, ReconciliationReport report) {
    int registered = registeredUpTo.get();
    long registeredOk = registered - registerFailures.get();
    long rows = db.count("broadcast_id = '" + broadcast + "'");
    long confirmedRows = db.count("broadcast_id = '" + broadcast + "' AND state = 'CONFIRMED'");
    List<Long> confirmedSequences = db.jdbi().withHandle(h -> h.createQuery(
        "SELECT sequence FROM segment_ledger_item WHERE broadcast_id = :b AND state = 'CONFIRMED'")
        .bind("b", broadcast).mapTo(Long.class).list());
    Set<String> objects = new HashSet<>();
    String prefix = ObjectKeys.broadcastPrefix(broadcast);
    direct.listObjectsV2Paginator(b -> b.bucket(bucket).prefix(prefix)).contents().forEach(o -> objects.add(o.key()));
    long confirmedWithoutObject = confirmedSequences.stream()
        .map(q -> ObjectKeys.keyOf(ItemId.original(broadcast, OutageMeasure.RENDITION, q)))
        .filter(k -> !objects.contains(k)).count();
    long objectsWithoutConfirmedRow = objects.size() - (confirmedSequences.size() - confirmedWithoutObject);
    int unfinishedUploads = direct.listMultipartUploads(b -> b.bucket(bucket).prefix(prefix)).uploads().size();
    Set<String> confirmedKeys = new HashSet<>();
    confirmedSequences.forEach(q -> confirmedKeys.add(
        ObjectKeys.keyOf(ItemId.original(broadcast, OutageMeasure.RENDITION, q))));
    List<String> withoutRowSample = objects.stream().filter(k -> !confirmedKeys.contains(k)).limit(3).toList();
    return new Outcome(registered, registeredOk, rows, confirmedRows, prefix, objects, confirmedWithoutObject,
        objectsWithoutConfirmedRow, withoutRowSample, unfinishedUploads, report);
  }

  private void recordConditions(Map<String, Object> c, Timeline t, Phases p, Outcome o, LogCounter logs) {
    c.put("steady_confirms_per_s", OutageMeasure.round(p.steadyRate()));
    c.put("steady_backlog_level", p.level());
    c.put("backlog_at_fault_end", p.atFaultEnd() == null ? -1 : p.atFaultEnd().unconfirmed());
    c.put("backlog_peak", p.peak());
    c.put("register_p99_ms_steady", OutageMeasure.round(p.p99Steady() / 1e6));
    c.put("register_p99_ms_fault", OutageMeasure.round(p.p99Fault() / 1e6));
    c.put("threads_steady_max", p.threadsSteady());
    c.put("heap_after_gc_steady_max_mib", OutageMeasure.round(p.heapSteady()));
    c.put("registered", o.registered());
    c.put("registered_during_fault", p.registeredDuringFault());
    c.put("puts_seen_by_proxy", puts.get());
    c.put("heads_seen_by_proxy", heads.get());
    c.put("other_requests_seen_by_proxy", otherRequests.get());
    c.put("ledger_failed_attempts", probe.failed.get());
    c.put("ledger_saturated", probe.saturated.get());
    c.put("circuit_events", OutageMeasure.describe(probe.circuitEvents(), t.faultStart()));
    c.put("log_samples", logs.samples);
    c.put("objects_without_confirmed_row", o.objectsWithoutConfirmedRow());
    c.put("objects_without_confirmed_row_sample", o.objectsWithoutConfirmedRowSample());
    c.put("reconcile_differences_sample", o.report().differences().stream().limit(3)
        .map(ReconciliationReport.Difference::describe).toList());
    c.put("drain_after_load_s", OutageMeasure.round((t.drained() - t.loadEnd()) / 1e9));
    c.put("first_register_failure", firstRegisterFailure.get());
    c.put("loadavg_end", LoadAvg.now());
    c.put("recovered_under_load", recoveredUnderLoad(t, p));
  }

  private static boolean recoveredUnderLoad(Timeline t, Phases p) {
    return p.recovered() != null && p.recovered().nanos() <= t.loadEnd();
  }

  private List<BenchResult> figures(Map<String, Object> c, Double controlP99Ms, Timeline t, Phases p, Outcome o) {
    List<BenchResult> r = new ArrayList<>();
    r.addAll(recoveryFigures(c, t, p));
    r.addAll(latencyFigures(c, controlP99Ms, p));
    r.addAll(costFigures(c, p, o));
    r.addAll(outcomeFigures(c, o));
    return r;
  }

  /** How long the backlog and the breaker took to recover, and how fast the backlog was worked off. */
  private List<BenchResult> recoveryFigures(Map<String, Object> c, Timeline t, Phases p) {
    List<BenchResult> r = new ArrayList<>();
    boolean underLoad = recoveredUnderLoad(t, p);
    r.add(BenchResult.info(name + ".backlog_recovered_s", p.recoverySeconds(), "s",
        "fault end to the first sample with the unconfirmed rows (SQL) back at the steady level (" + p.level()
            + "); peak " + p.peak() + (underLoad ? "" : "; NOT under load: the load stopped after "
            + s.maxRecovery().toSeconds() + " s without recovery, this is the drain without it"), c));
    r.add(BenchResult.info(name + ".breaker_closed_s", p.breakerSeconds(), "s",
        p.transitions() == 0 ? "the breaker never opened" : "fault end until the breaker was closed for good ("
            + p.transitions() + " transitions)", c));
    if (Double.isNaN(p.catchUpRate())) {
      r.add(new BenchResult(name + ".catch_up_ratio", Double.NaN, "x", ">= 0.900", p.recovered() != null,
          p.recovered() != null ? "no catch-up: the backlog was at its steady level within 1 s of the fault end"
              : "the backlog did not come back to its steady level within " + s.maxRecovery().toSeconds() + " s",
          c));
    } else {
      r.add(BenchResult.atLeast(name + ".catch_up_ratio", p.catchUpRate() / p.steadyRate(), "x", 0.9,
          "confirms/s from fault end to backlog recovered (" + OutageMeasure.round(p.catchUpRate())
              + ") / steady confirms/s (" + OutageMeasure.round(p.steadyRate()) + ")", c));
    }
    return r;
  }

  /** The register p99 during the fault, against the control's (once it ran) or the steady phase's. */
  private List<BenchResult> latencyFigures(Map<String, Object> c, Double controlP99Ms, Phases p) {
    List<BenchResult> r = new ArrayList<>();
    double p99Fault = p.p99Fault();
    double p99Steady = p.p99Steady();
    String toSteady = "register p99 during the fault / steady (" + OutageMeasure.round(p99Fault / 1e6) + " / "
        + OutageMeasure.round(p99Steady / 1e6) + " ms, from the scheduled instant)";
    if (scenario.name().equals(OutageScenario.control().name())) {
      r.add(BenchResult.info(name + ".register_p99_ratio", p99Fault / p99Steady, "x", toSteady
          + "; no fault: what a " + fault.toSeconds() + " s window holds against the 20 s steady phase", c));
    } else if (controlP99Ms != null) {
      r.add(BenchResult.atMost(name + ".register_p99_ratio", p99Fault / 1e6 / controlP99Ms, "x", 2.0,
          "register p99 during the fault / during the no-fault control's fault window, same run ("
              + OutageMeasure.round(p99Fault / 1e6) + " / " + OutageMeasure.round(controlP99Ms)
              + " ms, from the scheduled instant)", c));
      r.add(BenchResult.info(name + ".register_p99_to_steady", p99Fault / p99Steady, "x", toSteady
          + "; the 20 s steady phase rarely holds the periodic stalls a longer window does", c));
    } else {
      r.add(BenchResult.atMost(name + ".register_p99_ratio", p99Fault / p99Steady, "x", 2.0, toSteady, c));
    }
    return r;
  }

  /** What the fault cost the recorder and the ledger: failed calls, queue, heap, threads, logs, PUTs. */
  private List<BenchResult> costFigures(Map<String, Object> c, Phases p, Outcome o) {
    long extraPuts = puts.get() - o.confirmedRows();
    return List.of(
        BenchResult.atMost(name + ".register_failures", registerFailures.get(), "calls", 0,
            "register calls that threw, whole run", c),
        BenchResult.atMost(name + ".queue_max", p.maxQueue(), "items", 256,
            "in-memory queue during the fault (capacity 256)", c),
        BenchResult.atMost(name + ".heap_after_gc_max_mib", p.heapFault(), "MiB", p.heapSteady() + 32,
            "heap used after the last GC, max from fault start to the end; bound: steady max ("
                + OutageMeasure.round(p.heapSteady()) + " MiB) + 32 MiB", c),
        BenchResult.atMost(name + ".threads_max", p.threadsFault(), "threads", p.threadsSteady() + 2,
            "live threads of this JVM during the fault (the FaultProxy's own not counted); bound: steady max + 2", c),
        BenchResult.atMost(name + ".log_lines_per_s", p.logsPerSecond(), "lines/s", 1.0,
            "ledger log lines (INFO and above) per second of fault", c),
        BenchResult.info(name + ".extra_puts_per_fault_item", p.registeredDuringFault() == 0 ? 0
            : (double) extraPuts / p.registeredDuringFault(), "PUTs",
            "(PUTs that reached the proxy - confirmed rows) / files registered during the fault; " + puts.get()
                + " PUTs, " + heads.get() + " HEADs", c),
        BenchResult.info(name + ".breaker_transitions", p.transitions(), "transitions", "state changes reported", c));
  }

  /** Nothing lost, bucket and ledger agreeing, no upload left unfinished. */
  private List<BenchResult> outcomeFigures(Map<String, Object> c, Outcome o) {
    long unconfirmedRows = o.rows() - o.confirmedRows();
    return List.of(
        BenchResult.atMost(name + ".lost", o.registeredOk() - o.confirmedRows(), "rows",
            0, "registered files not CONFIRMED after the drain (SQL: " + unconfirmedRows + " rows unconfirmed, "
                + o.rows() + " rows for " + o.registeredOk() + " registered)", c),
        BenchResult.atMost(name + ".confirmed_without_object", o.confirmedWithoutObject(), "rows", 0,
            "CONFIRMED rows whose key is missing from a listing taken directly from the endpoint", c),
        BenchResult.atMost(name + ".reconcile_differences", o.report().differences().size(), "differences", 0,
            "Reconciler.reconcile after the drain, over a client straight to the endpoint (not through the proxy)",
            c),
        BenchResult.atMost(name + ".unfinished_multipart", o.unfinishedUploads(), "uploads", 0,
            "ListMultipartUploads under the broadcast's prefix", c));
  }

  /** The ledger's logger counted at INFO and above for the run, and put back as it was. */
  private static final class LedgerLog {
    private final Logger logger = (Logger) LoggerFactory.getLogger("dev.segmentledger");
    private final Level oldLevel = logger.getLevel();
    private final boolean oldAdditive = logger.isAdditive();
    private final LogCounter counter = new LogCounter();

    static LedgerLog capture() {
      LedgerLog log = new LedgerLog();
      log.counter.start();
      log.logger.addAppender(log.counter);
      log.logger.setLevel(Level.INFO);
      log.logger.setAdditive(false);
      return log;
    }

    LogCounter counter() {
      return counter;
    }

    void restore() {
      logger.detachAppender(counter);
      logger.setLevel(oldLevel);
      logger.setAdditive(oldAdditive);
    }
  }
}
