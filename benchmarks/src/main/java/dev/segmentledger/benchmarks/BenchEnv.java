package dev.segmentledger.benchmarks;

import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;
import dev.segmentledger.jdbi.JdbiStateStore;
import io.zonky.test.db.postgres.embedded.EmbeddedPostgres;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.concurrent.atomic.AtomicInteger;
import org.jdbi.v3.core.Jdbi;

/**
 * The PostgreSQL server, scratch directory and scale shared by the measures. The server is the
 * JDBC URL of {@code SEGMENT_LEDGER_BENCH_JDBC_URL} (user/password from
 * {@code SEGMENT_LEDGER_BENCH_JDBC_USER}/{@code _PASSWORD}) or else an embedded PostgreSQL 16
 * (io.zonky.test) started here. Each measure gets a fresh schema of its own, named after this run
 * ({@link #runTag()}: the start instant, the process id and a count), so that a second run against the same
 * server, or one stopped part way, never meets the schemas of another; each schema is dropped when
 * its {@link Database} is closed.
 */
final class BenchEnv implements AutoCloseable {
  private final EmbeddedPostgres embedded;
  private final String baseUrl;
  private final String user;
  private final String password;
  private final String pgSource;
  private final String pgVersion;
  private final String synchronousCommit;
  private final String fsync;
  private final int maxRows;
  private final String diskFlush;
  private final ServerCpu serverCpu;
  private final Path workDir;
  private final boolean smoke;
  private final AtomicInteger schemas = new AtomicInteger();
  private static final AtomicInteger RUNS = new AtomicInteger();
  private final String runTag = Long.toString(System.currentTimeMillis(), 36)
      + Long.toString(ProcessHandle.current().pid(), 36) + RUNS.incrementAndGet();
  private S3ProxyProcess s3Server;
  private Path s3Blobs;

  private BenchEnv(EmbeddedPostgres embedded, String baseUrl, String user, String password, String pgSource,
      Path workDir, boolean smoke, int maxRows) throws SQLException {
    this.embedded = embedded;
    this.baseUrl = baseUrl;
    this.user = user;
    this.password = password;
    this.pgSource = pgSource;
    this.workDir = workDir;
    this.smoke = smoke;
    this.maxRows = maxRows;
    // Read back from the server, never assumed: every figure is taken on durable settings.
    this.pgVersion = show("server_version");
    this.synchronousCommit = show("synchronous_commit");
    this.fsync = show("fsync");
    this.diskFlush = FsyncProbe.measure(workDir);
    try (Connection c = connect(baseUrl)) {
      this.serverCpu = ServerCpu.of(c);
    }
  }

  /**
   * Accumulated CPU time of the PostgreSQL server's processes, in nanoseconds; -1 if the server is
   * not a process of this machine. The difference over a run is the server's CPU for it.
   */
  long serverCpuNanos() {
    return serverCpu.nanos();
  }

  /** The kernel part of {@link #serverCpuNanos()}, read without waiting; -1 if unknown. */
  long serverSystemCpuNanos() {
    return serverCpu.systemNanos();
  }

  private String show(String setting) throws SQLException {
    try (Connection c = connect(baseUrl); Statement s = c.createStatement();
        var rs = s.executeQuery("SHOW " + setting)) {
      rs.next();
      return rs.getString(1);
    }
  }

  static BenchEnv start(boolean smoke) throws IOException, SQLException {
    return start(smoke, Integer.MAX_VALUE);
  }

  /**
   * @param maxRows the largest table the measures that bulk-load rows (sweep cost, backlog) may
   *     build; {@code Integer.MAX_VALUE} for their full sizes
   */
  static BenchEnv start(boolean smoke, int maxRows) throws IOException, SQLException {
    String url = System.getenv("SEGMENT_LEDGER_BENCH_JDBC_URL");
    if (url != null && !url.isBlank()) {
      return onServer(url, System.getenv("SEGMENT_LEDGER_BENCH_JDBC_USER"),
          System.getenv("SEGMENT_LEDGER_BENCH_JDBC_PASSWORD"), smoke, maxRows);
    }
    Path work = Files.createTempDirectory("segment-ledger-bench-");
    // zonky's defaults trade durability for speed (synchronous_commit=off, and fsync off in some
    // versions): a commit would then cost no flush, and every figure would flatter the ledger.
    EmbeddedPostgres pg = EmbeddedPostgres.builder()
        .setServerConfig("synchronous_commit", "on")
        .setServerConfig("fsync", "on")
        .setServerConfig("full_page_writes", "on")
        .setDataDirectory(work.resolve("pgdata"))
        .setCleanDataDirectory(true)
        .start();
    return new BenchEnv(pg, pg.getJdbcUrl("postgres", "postgres"), "postgres", null,
        "embedded (io.zonky.test; synchronous_commit=on, fsync=on, full_page_writes=on set by the suite)", work,
        smoke, maxRows);
  }

  /** The suite on a server of the caller's ({@code SEGMENT_LEDGER_BENCH_JDBC_URL}). */
  static BenchEnv onServer(String url, String user, String password, boolean smoke, int maxRows)
      throws IOException, SQLException {
    return new BenchEnv(null, url, user, password, "SEGMENT_LEDGER_BENCH_JDBC_URL",
        Files.createTempDirectory("segment-ledger-bench-"), smoke, maxRows);
  }

  /**
   * What names this run's schemas ({@code bench_<tag>_...}): its start in epoch milliseconds and the
   * process id, base 36, and a count of the runs of this JVM.
   */
  String runTag() {
    return runTag;
  }

  boolean smoke() {
    return smoke;
  }

  /** Picks the smoke or the full size. */
  int size(int smokeSize, int fullSize) {
    if (smoke) {
      return smokeSize;
    }
    // -Dbench.maxItems=N: a reduced full run for profiling; results say so by their rows.
    return Math.min(fullSize, Integer.getInteger("bench.maxItems", fullSize));
  }

  /** The row cap of the bulk-loading measures ({@code --max-rows=N}). */
  int maxRows() {
    return maxRows;
  }

  Path workDir() {
    return workDir;
  }

  /** A new, empty scratch directory. */
  Path newDir(String name) throws IOException {
    return Files.createDirectories(workDir.resolve(name + "-" + schemas.incrementAndGet())).toRealPath();
  }

  /**
   * The S3 server of the upload measures, in a JVM of its own, started on first use and shared by
   * them (one start-up, not three); its blob directory is {@link #s3Blobs()}.
   */
  synchronized S3ProxyProcess s3Server() throws Exception {
    if (s3Server == null) {
      s3Blobs = newDir("s3-blobs");
      s3Server = S3ProxyProcess.start(s3Blobs, UploadMeasure.ACCESS_KEY, UploadMeasure.SECRET_KEY);
    }
    return s3Server;
  }

  synchronized Path s3Blobs() {
    return s3Blobs;
  }

  /**
   * A fresh schema with the ledger tables, and a pool on it. Close the returned database: that drops
   * the schema. The name is unique to this run ({@code bench_<run tag>_<name>_<n>}); a schema of the
   * same name existing already fails, never reused.
   */
  Database newDatabase(String name, int poolSize) throws SQLException {
    String schema = "bench_" + runTag + "_" + name + "_" + schemas.incrementAndGet();
    try (Connection c = connect(baseUrl); Statement s = c.createStatement()) {
      s.execute("CREATE SCHEMA " + schema);
    }
    String url = schemaUrl(schema);
    HikariConfig config = new HikariConfig();
    config.setJdbcUrl(url);
    config.setUsername(user);
    config.setPassword(password);
    config.setMaximumPoolSize(poolSize);
    config.setPoolName("bench-" + schema);
    // The schema's name as the connections' application_name: LedgerTableReads waits for exactly
    // these backends (pg_stat_activity) when it settles the table statistics.
    config.addDataSourceProperty("ApplicationName", schema);
    HikariDataSource dataSource = new HikariDataSource(config);
    Jdbi jdbi = Jdbi.create(dataSource);
    JdbiStateStore store = JdbiStateStore.create(jdbi).migrate();
    return new Database(schema, url, dataSource, jdbi, store);
  }

  String schemaUrl(String schema) {
    return baseUrl + (baseUrl.contains("?") ? "&" : "?") + "currentSchema=" + schema;
  }

  String user() {
    return user;
  }

  String password() {
    return password;
  }

  /** Conditions every result carries. */
  Map<String, Object> conditions() {
    Map<String, Object> c = new LinkedHashMap<>();
    c.put("mode", smoke ? "smoke" : "full");
    c.put("postgres", pgVersion);
    c.put("postgres_source", pgSource);
    c.put("pg_synchronous_commit", synchronousCommit);
    c.put("pg_fsync", fsync);
    c.put("durable", "on".equals(synchronousCommit) && "on".equals(fsync));
    c.put("loadavg", LoadAvg.now());
    c.put("disk_flush_at_start", diskFlush);
    c.put("jdk", System.getProperty("java.vm.name") + " " + Runtime.version());
    c.put("cores", Runtime.getRuntime().availableProcessors());
    c.put("max_heap_mib", Runtime.getRuntime().maxMemory() >> 20);
    c.put("os", System.getProperty("os.name") + " " + System.getProperty("os.arch"));
    return c;
  }

  /** A new connection to the server, outside any measure's pool (for reading statistics); close it. */
  Connection connectToServer() throws SQLException {
    return connect(baseUrl);
  }

  private Connection connect(String url) throws SQLException {
    return java.sql.DriverManager.getConnection(url, user, password);
  }

  @Override
  public void close() throws IOException {
    if (s3Server != null) {
      try {
        s3Server.close();
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
      }
    }
    if (embedded != null) {
      embedded.close();
    }
    Files.walk(workDir).sorted(java.util.Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
  }

  /** One schema: pool, Jdbi and store. Closing it drops the schema and closes the pool. */
  record Database(String schema, String url, HikariDataSource dataSource, Jdbi jdbi, JdbiStateStore store)
      implements AutoCloseable {
    long count(String where) {
      return jdbi.withHandle(h -> h.createQuery("SELECT count(*) FROM segment_ledger_item WHERE " + where)
          .mapTo(Long.class).one());
    }

    @Override
    public void close() {
      try {
        jdbi.useHandle(h -> h.execute("DROP SCHEMA IF EXISTS " + schema + " CASCADE"));
      } finally {
        dataSource.close();
      }
    }
  }
}
