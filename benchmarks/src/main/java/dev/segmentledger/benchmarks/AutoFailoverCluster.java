package dev.segmentledger.benchmarks;

import java.io.IOException;
import java.net.ServerSocket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.UserPrincipal;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.function.Predicate;
import java.util.stream.Stream;

/**
 * A PostgreSQL HA cluster of pg_auto_failover (Debian's {@code pg-auto-failover-cli} and
 * {@code postgresql-15-auto-failover}, installed by {@code .ci/run}) on the machine running the benchmark: a monitor, a
 * primary and a secondary with synchronous replication, each a {@code pg_autoctl} service with its
 * own data directory under one work directory, as the {@code postgres} user when this JVM runs as
 * root (PostgreSQL refuses root). Made for {@link FailoverMeasure}: it kills, freezes or switches
 * over the primary and reads the monitor's view of the nodes. Not thread-safe, except
 * {@link #states()}.
 */
final class AutoFailoverCluster implements AutoCloseable {
  /** PostgreSQL's binaries: {@code SEGMENT_LEDGER_FAILOVER_PG_BIN}, else Debian's PostgreSQL 15. */
  static final Path PG_BIN = Path.of(System.getenv().getOrDefault("SEGMENT_LEDGER_FAILOVER_PG_BIN",
      "/usr/lib/postgresql/15/bin"));
  private static final Duration READY_WITHIN = Duration.ofMinutes(3);

  /** One data node: its name, port, data directory and its {@code pg_autoctl} service process. */
  record Node(String name, int port, Path pgdata, Process service) {}

  /** The monitor's view of one node. */
  record NodeState(String name, String reported, String goal, int health) {
    boolean writable() {
      return reported.equals(goal) && (reported.equals("primary") || reported.equals("wait_primary"));
    }

    @Override
    public String toString() {
      return name + ":" + reported + (reported.equals(goal) ? "" : ">" + goal) + (health == 1 ? "" : "(unhealthy)");
    }
  }

  private final Path root;
  private final boolean asPostgres;
  private final int monitorPort;
  private final Process monitor;
  private final List<Node> nodes = new ArrayList<>();

  private AutoFailoverCluster(Path root, boolean asPostgres, int monitorPort, Process monitor) {
    this.root = root;
    this.asPostgres = asPostgres;
    this.monitorPort = monitorPort;
    this.monitor = monitor;
  }

  /**
   * Creates and starts a monitor and two nodes in a new directory of {@code java.io.tmpdir} (whose
   * parents the {@code postgres} user can traverse); returns once one is primary, one secondary.
   */
  static AutoFailoverCluster start() throws Exception {
    if (pgAutoctl() == null) {
      throw new IllegalStateException("pg_auto_failover is not installed (no pg_autoctl on the PATH): apt-get install"
          + " postgresql-15-auto-failover pg-auto-failover-cli, as .ci/run does");
    }
    boolean asPostgres = Integer.valueOf(0).equals(Files.getAttribute(Path.of("/proc/self"), "unix:uid"));
    Path root = Files.createTempDirectory("segment-ledger-ha-");
    if (asPostgres) { // PostgreSQL refuses to run as root: the cluster's files belong to postgres
      UserPrincipal postgres = root.getFileSystem().getUserPrincipalLookupService().lookupPrincipalByName("postgres");
      Files.setOwner(root, postgres);
    }
    int monitorPort = freePort();
    AutoFailoverCluster cluster = null;
    try {
      run(asPostgres, root, "create", "monitor", "--pgdata", root.resolve("monitor").toString(), "--pgport",
          String.valueOf(monitorPort), "--pgctl", PG_BIN.resolve("pg_ctl").toString(), "--hostname", "127.0.0.1",
          "--auth", "trust", "--no-ssl");
      Process monitor = service(asPostgres, root, "monitor", "run", "--pgdata", root.resolve("monitor").toString());
      cluster = new AutoFailoverCluster(root, asPostgres, monitorPort, monitor);
      cluster.await("the monitor", states -> true);
      cluster.addNode("node1");
      cluster.await("node1 single", s -> s.size() == 1 && s.get(0).reported().equals("single"));
      cluster.addNode("node2");
      cluster.await("a primary and a secondary", s -> s.size() == 2
          && s.stream().anyMatch(n -> n.reported().equals("primary") && n.goal().equals("primary"))
          && s.stream().anyMatch(n -> n.reported().equals("secondary") && n.goal().equals("secondary")));
      return cluster;
    } catch (Exception | Error e) {
      if (cluster != null) {
        cluster.close();
      }
      throw e;
    }
  }

  private void addNode(String name) throws IOException {
    int port = freePort();
    Path pgdata = root.resolve(name);
    Process service = service(asPostgres, root, name, "create", "postgres", "--pgdata", pgdata.toString(), "--pgport",
        String.valueOf(port), "--pgctl", PG_BIN.resolve("pg_ctl").toString(), "--hostname", "127.0.0.1", "--name",
        name, "--auth", "trust", "--no-ssl", "--monitor", "postgres://autoctl_node@127.0.0.1:" + monitorPort
            + "/pg_auto_failover?sslmode=disable", "--run");
    nodes.add(new Node(name, port, pgdata, service));
  }

  /** The JDBC URL of the ledger's database on both nodes, with {@code parameters} (no leading {@code ?}). */
  String jdbcUrl(String parameters) {
    StringBuilder hosts = new StringBuilder();
    for (Node node : nodes) {
      hosts.append(hosts.length() == 0 ? "" : ",").append("127.0.0.1:").append(node.port());
    }
    return "jdbc:postgresql://" + hosts + "/postgres?user=postgres&" + parameters;
  }

  Node node(String name) {
    return nodes.stream().filter(n -> n.name().equals(name)).findFirst().orElseThrow();
  }

  /** The node the monitor reports writable (primary, or primary alone), or {@code null}. */
  Node writable() throws SQLException {
    return states().stream().filter(NodeState::writable).findFirst().map(s -> node(s.name())).orElse(null);
  }

  /** The monitor's view of the nodes; thread-safe (a connection per call). */
  List<NodeState> states() throws SQLException {
    List<NodeState> states = new ArrayList<>();
    try (Connection c = monitorConnection(); Statement s = c.createStatement();
        ResultSet rs = s.executeQuery("SELECT nodename, reportedstate, goalstate, health FROM pgautofailover.node"
            + " ORDER BY nodeid")) {
      while (rs.next()) {
        states.add(new NodeState(rs.getString(1), rs.getString(2), rs.getString(3), rs.getInt(4)));
      }
    }
    return states;
  }

  /** SIGKILL of the node's postmaster alone (its {@code pg_autoctl} keeper lives on, as on a real host). */
  void killPostmaster(Node node) throws IOException {
    long pid = postmasterPid(node);
    ProcessHandle postmaster = ProcessHandle.of(pid).orElseThrow(() -> new IOException("no postmaster " + pid));
    if (!postmaster.destroyForcibly()) { // SIGKILL, sent from this JVM: no process to start first
      throw new IOException("could not SIGKILL postmaster " + pid);
    }
  }

  /**
   * SIGSTOP of every process of the node (its keeper, the postmaster, every backend): nothing
   * answers and nothing is closed, as for a host whose network is cut. Returns the processes to
   * {@linkplain #thaw thaw}.
   */
  List<Long> freeze(Node node) throws IOException, InterruptedException {
    List<Long> pids = new ArrayList<>();
    // Until no new process shows up: the postmaster may fork a backend while the others are being stopped.
    while (true) {
      List<Long> more = processesOf(node);
      more.removeAll(pids);
      if (more.isEmpty()) {
        return pids;
      }
      signal("STOP", more);
      pids.addAll(more);
    }
  }

  void thaw(List<Long> pids) throws IOException, InterruptedException {
    signal("CONT", pids);
  }

  /** {@code pg_autoctl perform switchover}: a planned, orderly change of primary; returns when done. */
  String switchover() throws IOException, InterruptedException {
    return run(asPostgres, root, "perform", "switchover", "--pgdata", root.resolve("monitor").toString());
  }

  /** The HA engine's version and the monitor's failover settings, for the results. */
  Map<String, Object> conditions() throws SQLException, IOException, InterruptedException {
    Map<String, Object> c = new LinkedHashMap<>();
    String version = run(asPostgres, root, "version").lines().findFirst().orElse("?");
    c.put("ha_engine", version + " (Debian package " + debianVersion("postgresql-15-auto-failover") + "), a monitor"
        + " and two data nodes on the machine running the benchmark, local data directories, trust auth over loopback");
    try (Connection m = monitorConnection(); Statement s = m.createStatement();
        ResultSet rs = s.executeQuery("SELECT name, setting FROM pg_settings WHERE name LIKE 'pgautofailover.%'"
            + " AND (name LIKE '%timeout%' OR name LIKE '%health%') ORDER BY name")) {
      Map<String, String> settings = new LinkedHashMap<>();
      while (rs.next()) {
        settings.put(rs.getString(1).substring("pgautofailover.".length()), rs.getString(2));
      }
      c.put("monitor_settings_ms", settings);
    }
    return c;
  }

  private static String debianVersion(String pkg) {
    try {
      Process p = new ProcessBuilder("dpkg-query", "-W", "-f=${Version}", pkg).redirectErrorStream(true).start();
      String out = new String(p.getInputStream().readAllBytes()).trim();
      return p.waitFor() == 0 ? out : "not installed";
    } catch (IOException | InterruptedException e) {
      return "unknown";
    }
  }

  private Connection monitorConnection() throws SQLException {
    return DriverManager.getConnection("jdbc:postgresql://127.0.0.1:" + monitorPort
        + "/pg_auto_failover?user=autoctl_node&connectTimeout=2&socketTimeout=5&ApplicationName=failover-bench");
  }

  void await(String what, Predicate<List<NodeState>> condition) throws InterruptedException {
    await(what, condition, READY_WITHIN);
  }

  void await(String what, Predicate<List<NodeState>> condition, Duration within) throws InterruptedException {
    long deadline = System.nanoTime() + within.toNanos();
    Exception last = null;
    while (System.nanoTime() < deadline) {
      try {
        if (condition.test(states())) {
          return;
        }
      } catch (SQLException e) {
        last = e;
      }
      TimeUnit.MILLISECONDS.sleep(100); // polling the monitor, which has no notification for this
    }
    throw new IllegalStateException("pg_auto_failover: no " + what + " within " + within + "; logs in " + root, last);
  }

  private long postmasterPid(Node node) throws IOException {
    return Long.parseLong(Files.readAllLines(node.pgdata().resolve("postmaster.pid")).get(0).trim());
  }

  private static List<Long> processesOf(Node node) {
    List<Long> pids = new ArrayList<>();
    pids.add(node.service().pid());
    node.service().descendants().forEach(p -> pids.add(p.pid()));
    return pids;
  }

  private static void signal(String signal, List<Long> pids) throws IOException, InterruptedException {
    List<String> command = new ArrayList<>(List.of("kill", "-" + signal));
    pids.forEach(p -> command.add(String.valueOf(p)));
    Process kill = new ProcessBuilder(command).redirectErrorStream(true).start();
    String out = new String(kill.getInputStream().readAllBytes());
    if (kill.waitFor() != 0 && !signal.equals("CONT")) {
      throw new IOException("kill -" + signal + " " + pids + ": " + out);
    }
  }

  /** A {@code pg_autoctl} command that runs to its end; returns its output. */
  private static String run(boolean asPostgres, Path root, String... args) throws IOException, InterruptedException {
    Process p = new ProcessBuilder(command(asPostgres, root, args)).redirectErrorStream(true).start();
    String out = new String(p.getInputStream().readAllBytes());
    if (!p.waitFor(5, TimeUnit.MINUTES) || p.exitValue() != 0) {
      throw new IOException("pg_autoctl " + String.join(" ", args) + " failed: " + out);
    }
    return out;
  }

  /** A {@code pg_autoctl} service in the background, its output in {@code <root>/<name>.log}. */
  private static Process service(boolean asPostgres, Path root, String name, String... args) throws IOException {
    return new ProcessBuilder(command(asPostgres, root, args)).redirectErrorStream(true)
        .redirectOutput(root.resolve(name + ".log").toFile()).start();
  }

  private static List<String> command(boolean asPostgres, Path root, String... args) {
    List<String> command = new ArrayList<>();
    if (asPostgres) {
      command.addAll(List.of("runuser", "-u", "postgres", "--"));
    }
    // pg_autoctl keeps its state under XDG directories: the work directory's, not the user's home.
    command.addAll(List.of("env", "XDG_CONFIG_HOME=" + root.resolve("config"), "XDG_DATA_HOME=" + root.resolve("share"),
        "PG_CONFIG=" + PG_BIN.resolve("pg_config"), "PATH=" + PG_BIN + ":/usr/bin:/bin", "pg_autoctl"));
    command.addAll(List.of(args));
    return command;
  }

  private static Path pgAutoctl() {
    return Stream.of(System.getenv().getOrDefault("PATH", "/usr/bin").split(":"))
        .map(dir -> Path.of(dir, "pg_autoctl")).filter(Files::isExecutable).findFirst().orElse(null);
  }

  private static int freePort() throws IOException {
    try (ServerSocket socket = new ServerSocket(0)) {
      return socket.getLocalPort();
    }
  }

  /**
   * Stops every service (SIGCONT first, for a frozen node; SIGTERM, which stops PostgreSQL with a
   * fast shutdown; SIGKILL after 30 s) and deletes the work directory.
   */
  @Override
  public void close() throws Exception {
    List<Process> services = new ArrayList<>();
    nodes.forEach(n -> services.add(n.service()));
    services.add(monitor);
    for (Process p : services) {
      List<Long> all = new ArrayList<>();
      all.add(p.pid());
      p.descendants().forEach(d -> all.add(d.pid()));
      signal("CONT", all);
      p.children().forEach(ProcessHandle::destroy); // pg_autoctl itself (under runuser): SIGTERM
      p.destroy();
    }
    for (Process p : services) {
      if (!p.waitFor(30, TimeUnit.SECONDS)) {
        p.descendants().forEach(ProcessHandle::destroyForcibly);
        p.destroyForcibly().waitFor(10, TimeUnit.SECONDS);
      }
    }
    try (Stream<Path> walk = Files.walk(root)) {
      walk.sorted(java.util.Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
    }
  }
}
