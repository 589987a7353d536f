package dev.segmentledger.benchmarks;

import dev.segmentledger.jdbi.SchemaMigrations;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicBoolean;
import org.jdbi.v3.core.Jdbi;

/**
 * The schema migration of a large ledger while registrations run, on its own, not in
 * {@link BenchmarkSuite}: a scratch database on the server of the given JDBC URL (created, and
 * dropped at the end) gets the schema of version 7 (the scripts of the class path, every constraint
 * then validated, as a ledger of that version has them) and {@code rows} rows from
 * {@code generate_series}, vacuumed; then one thread registers rows one by one at
 * {@value #REGISTRATIONS_PER_S}/s, each a durable transaction (the INSERT of a node that still runs
 * version 7), while {@link SchemaMigrations#migrate(Jdbi)} applies the versions after 7. A
 * registration's stall is the time from its scheduled instant to its commit (a late start counts, so
 * a registration held up behind another is measured too); the longest one is the result, goal at most
 * 1 s.
 *
 * <p>Arguments: the JDBC URL of a database to connect to for creating the scratch one (user and
 * password from {@code SEGMENT_LEDGER_BENCH_JDBC_USER}/{@code _PASSWORD}), {@code rows} (default
 * 20,000,000), the results directory (default {@code results}) and a label for the result files
 * (default {@code current}): writes {@code migration-<label>.json} and {@code .md}. A fifth argument,
 * {@code --long-transaction-s=N}, also holds a transaction that has read the table open from just
 * before the migration for N seconds (a report, a session left open): a migration's lock request
 * then waits for it, and whatever queues behind that request waits too.
 */
public final class MigrationStallMeasure {
  private static final int REGISTRATIONS_PER_S = 50;
  private static final Duration QUIET = Duration.ofSeconds(10);
  private static final String DATABASE = "segment_ledger_migration_measure";
  private static final int FROM_VERSION = 7;
  private static final long LOAD_CHUNK = 1_000_000;

  private MigrationStallMeasure() {}

  public static void main(String[] args) throws Exception {
    String adminUrl = args[0];
    long rows = args.length > 1 ? Long.parseLong(args[1].replace("_", "")) : 20_000_000L;
    Path out = Path.of(args.length > 2 ? args[2] : "results");
    String label = args.length > 3 ? args[3] : "current";
    long longTransactionSeconds = args.length > 4 ? Long.parseLong(args[4].replace("--long-transaction-s=", "")) : 0;
    String user = System.getenv().getOrDefault("SEGMENT_LEDGER_BENCH_JDBC_USER", "postgres");
    String password = System.getenv().getOrDefault("SEGMENT_LEDGER_BENCH_JDBC_PASSWORD", "");
    String url = adminUrl.replaceFirst("/[^/?]*(\\?|$)", "/" + DATABASE + "$1");
    admin(adminUrl, user, password, "DROP DATABASE IF EXISTS " + DATABASE);
    admin(adminUrl, user, password, "CREATE DATABASE " + DATABASE);
    List<BenchResult> results = new ArrayList<>();
    try {
      Jdbi jdbi = Jdbi.create(url, user, password);
      run(jdbi, url, user, password, rows, label, longTransactionSeconds, results);
    } finally {
      admin(adminUrl, user, password, "DROP DATABASE IF EXISTS " + DATABASE);
    }
    Files.createDirectories(out);
    String header = "# Schema migration under registrations (MigrationStallMeasure, " + label + ")\n\n"
        + rows + " rows at version " + FROM_VERSION + ", single durable registrations at " + REGISTRATIONS_PER_S
        + "/s during the migration" + (longTransactionSeconds > 0 ? ", behind a transaction open for "
        + longTransactionSeconds + " s" : "") + ". See docs/operations.md (\"Upgrading a large ledger\").";
    ResultsWriter.write(results, out.resolve("migration-" + label + ".json"), out.resolve("migration-" + label + ".md"),
        header);
    System.out.println(ResultsWriter.markdown(results, header));
  }

  private static void run(Jdbi jdbi, String url, String user, String password, long rows, String label,
      long longTransactionSeconds, List<BenchResult> results) throws Exception {
    Map<String, Object> c = new LinkedHashMap<>();
    c.put("label", label);
    c.put("rows", rows);
    c.put("from_version", FROM_VERSION);
    c.put("registrations_per_s", REGISTRATIONS_PER_S);
    c.put("long_transaction_s", longTransactionSeconds);
    c.put("loadavg_start", LoadAvg.now());
    jdbi.useHandle(h -> {
      for (String setting : List.of("server_version", "synchronous_commit", "fsync", "autovacuum", "shared_buffers")) {
        c.put("pg_" + setting, h.createQuery("SHOW " + setting).mapTo(String.class).one());
      }
    });
    c.put("cores", Runtime.getRuntime().availableProcessors());
    c.put("jdk", Runtime.version().toString());

    long loadStart = System.nanoTime();
    schemaOfVersion7(jdbi);
    load(jdbi, rows);
    c.put("load_s", seconds(System.nanoTime() - loadStart));
    c.put("table_mib", jdbi.withHandle(h -> h.createQuery(
        "SELECT pg_total_relation_size('segment_ledger_item') / 1048576").mapTo(Long.class).one()));

    try (Registrar registrar = new Registrar(url, user, password);
        Connection reader = DriverManager.getConnection(url, user, password)) {
      registrar.runFor(QUIET); // before: what a registration costs on this machine now
      long[] quiet = registrar.takeLatencies();
      AtomicBoolean migrating = new AtomicBoolean(true);
      List<Integer> applied = new ArrayList<>();
      Thread longTransaction = holdOpen(reader, Duration.ofSeconds(longTransactionSeconds));
      long migrationStart = System.nanoTime();
      Thread migration = new Thread(() -> {
        try {
          applied.addAll(SchemaMigrations.migrate(jdbi));
        } finally {
          migrating.set(false);
        }
      }, "migration");
      migration.start();
      registrar.runWhile(migrating::get);
      migration.join();
      longTransaction.join();
      double migrationSeconds = seconds(System.nanoTime() - migrationStart);
      long[] during = registrar.takeLatencies();
      c.put("versions_applied", applied.toString());
      c.put("loadavg_end", LoadAvg.now());
      c.put("registrations_quiet", quiet.length);
      c.put("registrations_during", during.length);
      c.put("quiet_p50_ms", ms(percentile(quiet, 0.5)));
      c.put("quiet_max_ms", ms(percentile(quiet, 1.0)));
      results.add(BenchResult.info("migration.duration_s", migrationSeconds, "s",
          "SchemaMigrations.migrate from version " + FROM_VERSION + ": " + applied, c));
      results.add(BenchResult.atMost("migration.longest_registration_stall_ms", ms(percentile(during, 1.0)), "ms",
          1000, "from a registration's scheduled instant to its commit, during the migration; before it: "
              + ms(percentile(quiet, 1.0)) + " ms", c));
      results.add(BenchResult.info("migration.registration_p99_ms", ms(percentile(during, 0.99)), "ms",
          "during the migration; before it: " + ms(percentile(quiet, 0.99)) + " ms", c));
    }
  }

  /** A transaction that has read the table, committed by a thread of its own after {@code duration}. */
  private static Thread holdOpen(Connection reader, Duration duration) throws SQLException {
    if (duration.isZero()) {
      Thread none = new Thread(() -> { }, "no-long-transaction");
      none.start();
      return none;
    }
    reader.setAutoCommit(false);
    try (Statement statement = reader.createStatement()) {
      statement.execute("SELECT count(*) FROM segment_ledger_item WHERE id < 0");
    }
    Thread commit = new Thread(() -> {
      try {
        Thread.sleep(duration.toMillis()); // the length of the long transaction
        reader.commit();
      } catch (InterruptedException | SQLException e) {
        throw new IllegalStateException("the long transaction did not end", e);
      }
    }, "long-transaction");
    commit.start();
    return commit;
  }

  /** Version 7 as a ledger of that version has it: each script, then every constraint validated. */
  private static void schemaOfVersion7(Jdbi jdbi) {
    jdbi.useHandle(h -> {
      h.execute("CREATE TABLE segment_ledger_schema_version ("
          + " version integer PRIMARY KEY, script text NOT NULL, applied_at timestamptz NOT NULL DEFAULT now())");
      for (String script : List.of("V1__ledger_item.sql", "V2__file_identity_and_abandoned_attempts.sql",
          "V3__operations_queries.sql", "V4__playlists.sql", "V5__retention_and_distribution.sql",
          "V6__original_format_and_recording_time.sql", "V7__storage_groups.sql")) {
        h.createScript(resource(script)).execute();
        h.execute("INSERT INTO segment_ledger_schema_version (version, script) VALUES (?, ?)",
            Integer.parseInt(script.substring(1, script.indexOf("__"))), script);
      }
      for (String constraint : h.createQuery("SELECT conname FROM pg_constraint"
          + " WHERE conrelid = 'segment_ledger_item'::regclass AND NOT convalidated").mapTo(String.class).list()) {
        h.execute("ALTER TABLE segment_ledger_item VALIDATE CONSTRAINT " + constraint);
      }
    });
  }

  /** Confirmed rows of 1,000 broadcasts, in chunks of a million rows, then VACUUM ANALYZE. */
  private static void load(Jdbi jdbi, long rows) {
    for (long chunk = 0; chunk < rows; chunk += LOAD_CHUNK) {
      long from = chunk;
      long to = Math.min(rows, from + LOAD_CHUNK) - 1;
      jdbi.useHandle(h -> h.createUpdate("INSERT INTO segment_ledger_item (broadcast_id, axis, rendition, sequence,"
              + " source_path, size_bytes, state, registered_at, next_attempt_at, confirmed_at, checksum)"
              + " SELECT 'b' || (g % 1000), 'ORIGINAL', 'r0', g / 1000, '/rec/b' || (g % 1000) || '/' || (g / 1000) || '.ts',"
              + " 1000000 + g % 1000, 'CONFIRMED', ts, ts, ts + interval '2 seconds', md5(g::text)"
              + " FROM generate_series(CAST(:from AS bigint), CAST(:to AS bigint)) AS g"
              + " CROSS JOIN LATERAL (SELECT timestamptz '2026-01-01 00:00:00+00' + g * interval '10 ms' AS ts) AS t")
          .bind("from", from).bind("to", to).execute());
      log("loaded " + (to + 1) + " rows");
    }
    jdbi.useHandle(h -> h.execute("VACUUM ANALYZE segment_ledger_item"));
  }

  /** Registrations of one node of version 7, one durable transaction each, paced, on the caller's thread. */
  private static final class Registrar implements AutoCloseable {
    private final Connection connection;
    private final PreparedStatement insert;
    private final List<Long> micros = new ArrayList<>();
    private long sequence;

    Registrar(String url, String user, String password) throws SQLException {
      connection = DriverManager.getConnection(url, user, password);
      insert = connection.prepareStatement("INSERT INTO segment_ledger_item (broadcast_id, axis, rendition, sequence,"
          + " source_path, size_bytes, state, registered_at, next_attempt_at) VALUES ('live', 'ORIGINAL', 'r0', ?,"
          + " ?, 1000, 'PENDING', now(), now())");
    }

    void runFor(Duration duration) throws Exception {
      long end = System.nanoTime() + duration.toNanos();
      runWhile(() -> System.nanoTime() < end);
    }

    void runWhile(java.util.function.BooleanSupplier go) throws Exception {
      long interval = 1_000_000_000L / REGISTRATIONS_PER_S;
      long next = System.nanoTime();
      while (go.getAsBoolean()) {
        long wait = next - System.nanoTime();
        if (wait > 0) {
          Thread.sleep(wait / 1_000_000, (int) (wait % 1_000_000)); // pacing a load generator
        }
        long seq = sequence++;
        insert.setLong(1, seq);
        insert.setString(2, "/rec/live/" + seq + ".ts");
        insert.executeUpdate();
        micros.add((System.nanoTime() - next) / 1_000);
        next += interval;
      }
    }

    long[] takeLatencies() {
      long[] sorted = micros.stream().mapToLong(Long::longValue).sorted().toArray();
      micros.clear();
      return sorted;
    }

    @Override
    public void close() throws SQLException {
      connection.close();
    }
  }

  private static void admin(String url, String user, String password, String sql) throws SQLException {
    try (Connection connection = DriverManager.getConnection(url, user, password);
        Statement statement = connection.createStatement()) {
      statement.execute(sql);
    }
  }

  private static String resource(String script) {
    String path = "/" + SchemaMigrations.LOCATION + "/" + script;
    try (InputStream in = SchemaMigrations.class.getResourceAsStream(path)) {
      return new String(in.readAllBytes(), StandardCharsets.UTF_8);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  private static double percentile(long[] sortedMicros, double p) {
    if (sortedMicros.length == 0) {
      return 0;
    }
    int index = (int) Math.ceil(p * sortedMicros.length) - 1;
    return sortedMicros[Math.max(0, Math.min(sortedMicros.length - 1, index))];
  }

  private static double ms(double micros) {
    return Math.round(micros / 10.0) / 100.0;
  }

  private static double seconds(long nanos) {
    return Math.round(nanos / 10_000_000.0) / 100.0;
  }

  private static void log(String message) {
    System.err.println("[migration-measure] " + message);
  }
}
