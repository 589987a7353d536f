package dev.segmentledger.benchmarks;

import ch.qos.logback.classic.Level;
import ch.qos.logback.classic.Logger;
import ch.qos.logback.classic.spi.ILoggingEvent;
import ch.qos.logback.core.AppenderBase;
import com.zaxxer.hikari.HikariDataSource;
import dev.segmentledger.core.Ledger;
import dev.segmentledger.core.LedgerItem;
import dev.segmentledger.core.LedgerListener;
import dev.segmentledger.core.ObjectKeys;
import dev.segmentledger.core.Reason;
import dev.segmentledger.core.Reconciler;
import dev.segmentledger.core.ReconciliationReport;
import dev.segmentledger.jdbi.JdbiStateStore;
import dev.segmentledger.rig.FaultProxy;
import dev.segmentledger.s3.S3ObjectSink;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.Statement;
import java.time.Clock;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicIntegerArray;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicLongArray;
import org.jdbi.v3.core.Jdbi;
import org.slf4j.LoggerFactory;
import software.amazon.awssdk.services.s3.S3Client;

/**
 * One failover scenario, start to end: a fresh pg_auto_failover cluster, a started ledger on it
 * through the pool a recorder fleet would use ({@link FailoverSettings}), the recorder
 * ({@link FailoverRecorder}) at its rate, the fault at the end of the steady phase, the load until
 * registrations have come back and a while longer, the drain, then what is left, read without the
 * ledger: the rows on the new primary, a listing of the bucket straight from the S3 server, the
 * reconciler. The raw observations go to {@link FailoverFigures}.
 */
final class FailoverRun {
  static final String RENDITION = "720p";
  static final int WORKERS = 4;

  /** What the listener saw, by sequence. */
  static final class Probe implements LedgerListener {
    final AtomicLongArray confirmedAt;
    final AtomicIntegerArray confirmEvents;
    final AtomicLong confirmLost = new AtomicLong();
    final Map<Reason, AtomicLong> failures = new ConcurrentHashMap<>();

    Probe(int items) {
      confirmedAt = new AtomicLongArray(items);
      confirmEvents = new AtomicIntegerArray(items);
    }

    @Override
    public void onConfirmed(LedgerItem item) {
      int sequence = (int) item.id().sequence();
      confirmedAt.compareAndSet(sequence, 0, System.nanoTime());
      confirmEvents.incrementAndGet(sequence);
    }

    @Override
    public void onConfirmLost(LedgerItem item) {
      confirmLost.incrementAndGet();
    }

    @Override
    public void onFailed(LedgerItem item, Reason reason, String detail, boolean terminal) {
      failures.computeIfAbsent(reason, r -> new AtomicLong()).incrementAndGet();
    }
  }

  /** Counts the ledger's log lines (WARN and above) and keeps the first few. */
  static final class LogCounter extends AppenderBase<ILoggingEvent> {
    final AtomicLong lines = new AtomicLong();
    final List<String> samples = new ArrayList<>();

    @Override
    protected synchronized void append(ILoggingEvent event) {
      lines.incrementAndGet();
      if (samples.size() < 4) {
        samples.add(event.getLevel() + " " + event.getLoggerName().replaceAll(".*\\.", "") + ": "
            + event.getFormattedMessage());
      }
    }
  }

  /** Everything observed in one run, for {@link FailoverFigures}. */
  record Observed(FailoverScenario scenario, FailoverMeasure.Settings settings, Map<String, Object> conditions,
      FailoverRecorder recorder, Probe probe, long faultAt, long newPrimaryAt, long loadEnd, long drainedAt,
      boolean drained, List<String> haTimeline, Map<Integer, String> rowStates, Set<String> objects,
      ReconciliationReport report, long puts, long heads, LogCounter logs) {}

  private FailoverRun() {}

  static Observed run(FailoverMeasure.Settings s, FailoverScenario scenario, Path dir, S3ProxyProcess s3,
      Map<String, Object> conditions) throws Exception {
    String broadcast = ("f-" + scenario.name() + "-" + Long.toString(System.currentTimeMillis(), 36));
    String bucket = "failover-" + scenario.name();
    List<Path> files = MediaFiles.write(java.nio.file.Files.createDirectories(dir.resolve("files")),
        s.distinctFiles(), s.fileBytes());
    int maxItems = (int) ((s.warmUp().plus(s.steady()).plus(s.maxOutage()).plus(s.after()).toNanos())
        / (TimeUnit.SECONDS.toNanos(1) / s.filesPerSecond())) + 1;
    Probe probe = new Probe(maxItems);
    LogCounter logs = new LogCounter();
    Logger ledgerLog = (Logger) LoggerFactory.getLogger("dev.segmentledger");
    Level oldLevel = ledgerLog.getLevel();
    logs.start();
    ledgerLog.addAppender(logs);
    ledgerLog.setLevel(Level.WARN);
    ledgerLog.setAdditive(false);
    AtomicLong puts = new AtomicLong();
    AtomicLong heads = new AtomicLong();
    try (AutoFailoverCluster cluster = AutoFailoverCluster.start();
        S3Client direct = OutageMeasure.checkingClient(s3.endpoint(), endpoint(s3));
        FaultProxy proxy = FaultProxy.start(s3.endpoint());
        S3Client viaProxy = OutageMeasure.client(proxy.uri(), endpoint(s3));
        HikariDataSource pool = FailoverSettings.pool(cluster.jdbcUrl(FailoverSettings.JDBC_PARAMETERS),
            WORKERS + s.recorderThreads() + 2);
        HaTimeline timeline = new HaTimeline(cluster)) {
      AutoFailoverCluster.Node oldPrimary = cluster.writable();
      JdbiStateStore store = JdbiStateStore.create(Jdbi.create(pool)).migrate();
      conditions.putAll(cluster.conditions());
      conditions.putAll(serverSettings(pool));
      conditions.put("old_primary", oldPrimary.name());
      direct.createBucket(b -> b.bucket(bucket));
      proxy.onRequest(r -> (r.method().equals("PUT") ? puts : r.method().equals("HEAD") ? heads : new AtomicLong())
          .incrementAndGet(), false);
      S3ObjectSink sink = S3ObjectSink.builder().client(viaProxy).bucket(bucket).build();
      Ledger ledger = Ledger.builder().stateStore(store).objectSink(sink).allowedRoot(files.get(0).getParent())
          .workers(WORKERS).listener(probe).build();
      FailoverRecorder recorder = new FailoverRecorder(ledger, broadcast, RENDITION, files, s.filesPerSecond(),
          s.recorderThreads(), maxItems);
      long faultAt;
      long loadEnd;
      long drainedAt;
      boolean drained;
      try {
        ledger.start();
        timeline.start();
        long t0 = System.nanoTime();
        recorder.start(t0);
        sleepUntil(t0 + s.warmUp().plus(s.steady()).toNanos());
        FailoverFault fault = new FailoverFault(cluster, oldPrimary, scenario.fault(), timeline);
        faultAt = fault.start(); // the instant the signal was sent, or the switchover began
        recorder.markFault(faultAt);
        long outageEnd = faultAt + s.maxOutage().toNanos();
        while (System.nanoTime() < outageEnd
            && (recorder.firstSuccessAfterFault() < 0 || timeline.newPrimaryAt(oldPrimary.name()) < 0)) {
          TimeUnit.MILLISECONDS.sleep(50);
        }
        fault.thawAfter(s.thawAfter());
        sleepUntil(System.nanoTime() + s.after().toNanos());
        fault.awaitDone();
        if (!recorder.stopAndAwait(s.maxOutage().toMillis())) {
          throw new IllegalStateException("the recorder's registrations did not all return");
        }
        loadEnd = System.nanoTime();
        timeline.mark("load stopped");
        conditions.put("unconfirmed_at_load_end", rowStates(pool, broadcast).values().stream()
            .filter(state -> !state.equals("CONFIRMED")).count());
        drained = awaitAllConfirmed(pool, broadcast, recorder.scheduledItems(), loadEnd + s.maxDrain().toNanos());
        drainedAt = System.nanoTime();
        timeline.mark(drained ? "drained" : "NOT drained");
      } finally {
        ledger.close();
      }
      ReconciliationReport report = Reconciler.create(store, S3ObjectSink.builder().client(direct).bucket(bucket)
          .build(), Clock.systemUTC()).reconcile(broadcast);
      Set<String> objects = new HashSet<>();
      direct.listObjectsV2Paginator(b -> b.bucket(bucket).prefix(ObjectKeys.broadcastPrefix(broadcast))).contents()
          .forEach(o -> objects.add(o.key()));
      timeline.stop();
      conditions.put("final_nodes", cluster.states().toString());
      conditions.put("loadavg_end", LoadAvg.now());
      return new Observed(scenario, s, conditions, recorder, probe, faultAt, timeline.newPrimaryAt(oldPrimary.name()),
          loadEnd, drainedAt, drained, timeline.events(faultAt), rowStates(pool, broadcast), objects, report,
          puts.get(), heads.get(), logs);
    } finally {
      ledgerLog.detachAppender(logs);
      ledgerLog.setLevel(oldLevel);
      ledgerLog.setAdditive(true);
    }
  }

  private static OutageMeasure.Endpoint endpoint(S3ProxyProcess s3) {
    return new OutageMeasure.Endpoint(s3.endpoint(), null, UploadMeasure.ACCESS_KEY, UploadMeasure.SECRET_KEY,
        "us-east-1", false);
  }

  /** The primary's settings that decide durability, read back from the server. */
  private static Map<String, Object> serverSettings(HikariDataSource pool) throws Exception {
    Map<String, Object> c = new java.util.LinkedHashMap<>();
    try (Connection conn = pool.getConnection(); Statement st = conn.createStatement()) {
      for (String setting : List.of("server_version", "synchronous_commit", "synchronous_standby_names", "fsync",
          "wal_sender_timeout", "wal_receiver_timeout")) {
        try (ResultSet rs = st.executeQuery("SHOW " + setting)) {
          rs.next();
          c.put("pg_" + setting, rs.getString(1));
        }
      }
    }
    return c;
  }

  /** Whether every registered row is CONFIRMED by {@code deadline} (SQL on the current primary). */
  private static boolean awaitAllConfirmed(HikariDataSource pool, String broadcast, int registered, long deadline)
      throws InterruptedException {
    while (System.nanoTime() < deadline) {
      try {
        Map<Integer, String> rows = rowStates(pool, broadcast);
        if (rows.size() >= registered && rows.values().stream().allMatch("CONFIRMED"::equals)) {
          return true;
        }
      } catch (Exception e) {
        // the primary is still changing: look again
      }
      TimeUnit.MILLISECONDS.sleep(250);
    }
    return false;
  }

  /** The state of each row of the broadcast, by sequence, read on the current primary. */
  static Map<Integer, String> rowStates(HikariDataSource pool, String broadcast) throws Exception {
    Map<Integer, String> rows = new java.util.HashMap<>();
    try (Connection c = pool.getConnection(); Statement st = c.createStatement();
        ResultSet rs = st.executeQuery("SELECT sequence, state FROM segment_ledger_item WHERE broadcast_id = '"
            + broadcast + "'")) {
      while (rs.next()) {
        rows.put(rs.getInt(1), rs.getString(2));
      }
    }
    return rows;
  }

  private static void sleepUntil(long nanos) throws InterruptedException {
    long wait;
    while ((wait = nanos - System.nanoTime()) > 0) {
      TimeUnit.NANOSECONDS.sleep(wait);
    }
  }
}
