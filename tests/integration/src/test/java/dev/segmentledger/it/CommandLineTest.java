package dev.segmentledger.it;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.segmentledger.cli.SegmentLedgerCli;
import dev.segmentledger.core.ItemId;
import dev.segmentledger.core.ItemState;
import dev.segmentledger.core.Ledger;
import dev.segmentledger.core.LedgerItem;
import dev.segmentledger.core.ManualLedger;
import dev.segmentledger.core.Reason;
import dev.segmentledger.jdbi.JdbiStateStore;
import dev.segmentledger.s3.S3ObjectSink;
import dev.segmentledger.s3.S3ProxyServer;
import dev.segmentledger.testkit.PostgresExtension;
import java.io.IOException;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.jdbi.v3.core.Jdbi;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;
import software.amazon.awssdk.services.s3.S3Client;

/**
 * The operations command line end to end, in process, on real PostgreSQL and the S3 sink on
 * S3Proxy: a broadcast with confirmed rows and a rejected one, then every command, its exit code
 * and its output, and the bad inputs (unknown broadcast, wrong database, no credentials, missing
 * bucket), each of which must print one line on stderr, exit 2 and change nothing. The test without
 * credentials runs the command line in a child JVM with a clean environment.
 */
class CommandLineTest {
  @RegisterExtension static final PostgresExtension PG = PostgresExtension.create();
  private static JdbiStateStore store;
  private static S3ProxyServer server;
  private static S3Client s3;
  private static final Map<String, String> CREDENTIALS = Map.of("aws.accessKeyId", S3ProxyServer.ACCESS_KEY,
      "aws.secretAccessKey", S3ProxyServer.SECRET_KEY);

  @TempDir Path temp;
  private String bucket;
  private String broadcast;
  private final StringWriter out = new StringWriter();
  private final StringWriter err = new StringWriter();

  @BeforeAll
  static void start() throws Exception {
    store = JdbiStateStore.create(Jdbi.create(PG.dataSource())).migrate();
    server = S3ProxyServer.start();
    s3 = S3ProxyServer.client(server.endpoint(), Duration.ofSeconds(30));
    // The command line takes credentials from the SDK's default chain; system properties come first in it.
    CREDENTIALS.forEach(System::setProperty);
  }

  @AfterAll
  static void stop() throws Exception {
    CREDENTIALS.keySet().forEach(System::clearProperty);
    s3.close();
    server.close();
  }

  /** Broadcast {@code broadcast}: sequences 0 to 2 confirmed in the bucket, sequence 3 REJECTED (MISSING_FILE). */
  @BeforeEach
  void uploadABroadcast() throws IOException {
    bucket = server.createBucket(s3);
    broadcast = "cli-" + Long.toString(System.nanoTime(), 36);
    Path root = Files.createDirectories(temp.resolve("root")).toRealPath();
    S3ObjectSink sink = S3ObjectSink.builder().client(s3).bucket(bucket).build();
    try (ManualLedger ledger = Ledger.builder().stateStore(store).objectSink(sink).allowedRoot(root).buildManual()) {
      for (int i = 0; i < 3; i++) {
        ItemId id = ItemId.original(broadcast, "720p", i);
        ledger.register(id, Wiring.record(root, id));
      }
      ItemId gone = ItemId.original(broadcast, "720p", 3);
      Path file = Wiring.record(root, gone);
      ledger.register(gone, file);
      Files.delete(file);
      ledger.drainQueue();
    }
    assertEquals(ItemState.REJECTED, row(3).state());
    assertEquals(Reason.MISSING_FILE, row(3).reason());
  }

  private LedgerItem row(int sequence) {
    return store.find(ItemId.original(broadcast, "720p", sequence)).orElseThrow();
  }

  private int cli(String... args) {
    List<String> all = new ArrayList<>(List.of(args));
    all.addAll(List.of("--jdbc-url", PG.jdbcUrl()));
    if (PG.user() != null) {
      all.addAll(List.of("--jdbc-user", PG.user()));
    }
    if (PG.password() != null) {
      all.addAll(List.of("--jdbc-password", PG.password()));
    }
    return cliAsIs(all.toArray(String[]::new));
  }

  private int cliAsIs(String... args) {
    out.getBuffer().setLength(0);
    err.getBuffer().setLength(0);
    return SegmentLedgerCli.run(Clock.systemUTC(), new PrintWriter(out), new PrintWriter(err), args);
  }

  private String[] s3Options() {
    return new String[] {"--s3-endpoint", server.endpoint().toString(), "--bucket", bucket};
  }

  private static String[] concat(String[] a, String... b) {
    List<String> all = new ArrayList<>(List.of(a));
    all.addAll(List.of(b));
    return all.toArray(String[]::new);
  }

  private void assertOneLineError(String expectedStart) {
    String message = err.toString();
    assertTrue(message.startsWith("segment-ledger: " + expectedStart), message);
    assertEquals(1, message.lines().count(), message);
    assertFalse(message.contains("\tat "), "no stack trace: " + message);
    assertTrue(out.toString().isEmpty(), out.toString());
  }

  @Test
  void statusShowsThePhaseTheCountsAndTheRejectedRowsByReason() {
    assertEquals(0, cli("status", broadcast), err::toString);
    String text = out.toString();
    assertTrue(text.startsWith("broadcast " + broadcast + ": LIVE, 0 unconfirmed"), text);
    assertTrue(text.lines().anyMatch(l -> l.matches("ORIGINAL\\s+0\\s+0\\s+3\\s+1\\s+0")), text);
    assertTrue(text.lines().anyMatch(l -> l.matches("REJECTED MISSING_FILE\\s+1")), text);

    assertEquals(0, cli("status", broadcast, "--json"), err::toString);
    String json = out.toString();
    assertTrue(json.startsWith("{\"broadcast\":\"" + broadcast + "\",\"phase\":\"LIVE\",\"endedAt\":null,"), json);
    assertTrue(json.contains("\"ORIGINAL\":{\"PENDING\":0,\"WAITING\":0,\"CONFIRMED\":3,\"REJECTED\":1,"
        + "\"EXCLUDED\":0}"), json);
    assertTrue(json.contains("\"problems\":{\"REJECTED MISSING_FILE\":1}"), json);
  }

  @Test
  void stuckListsRowsAcrossBroadcastsAndPagesWithTheCursor() {
    assertEquals(0, cli("stuck", "--state", "REJECTED", "--reason", "MISSING_FILE", "--broadcast", broadcast),
        err::toString);
    assertTrue(out.toString().startsWith("ROW_ID  BROADCAST"), out.toString());
    assertTrue(out.toString().contains(broadcast + "  ORIGINAL  720p       3         REJECTED  MISSING_FILE"),
        out.toString());

    assertEquals(0, cli("stuck", "--state", "CONFIRMED", "--broadcast", broadcast, "--limit", "2", "--oldest-first",
        "--json"), err::toString);
    String first = out.toString();
    assertTrue(first.startsWith("{\"items\":[{\"rowId\":" + row(0).rowId() + ","), first);
    assertTrue(first.endsWith(",\"next\":" + row(1).rowId() + "}\n"), first);
    assertEquals(0, cli("stuck", "--state", "CONFIRMED", "--broadcast", broadcast, "--limit", "2", "--oldest-first",
        "--json", "--after", Long.toString(row(1).rowId())), err::toString);
    assertTrue(out.toString().startsWith("{\"items\":[{\"rowId\":" + row(2).rowId() + ","), out.toString());
    assertTrue(out.toString().endsWith("],\"next\":null}\n"), out.toString());

    assertEquals(0, cli("stuck", "--min-attempts", "99"), err::toString);
    assertEquals("no rows match\n", out.toString());
  }

  @Test
  void backlogGivesTheFiguresPerAxis() {
    assertEquals(0, cli("backlog", "--json"), err::toString);
    assertTrue(out.toString().contains("\"axes\":{\"ORIGINAL\":{\"unconfirmed\":"), out.toString());
    assertEquals(0, cli("backlog"), err::toString);
    assertTrue(out.toString().startsWith("AXIS      UNCONFIRMED"), out.toString());
  }

  @Test
  void reopenPutsRejectedRowsBackAndReportsTheRowsItCouldNot() {
    long confirmed = row(0).rowId();
    assertEquals(1, cli("reopen", broadcast, "--id", Long.toString(confirmed), "--yes"), "a confirmed row is not re-opened");
    assertTrue(out.toString().contains("not re-opened: " + confirmed + ": CONFIRMED"), out.toString());
    assertEquals(ItemState.CONFIRMED, row(0).state());

    assertEquals(0, cli("reopen", broadcast, "--reason", "MISSING_FILE", "--json", "--yes"), err::toString);
    assertTrue(out.toString().contains("\"rowId\":" + row(3).rowId()), out.toString());
    assertEquals(ItemState.PENDING, row(3).state());
    assertEquals(Reason.REOPENED, row(3).reason());
  }

  @Test
  void storageGroupHandsAGroupsOpenRowsOverOrRejectsThemAsLost() {
    String lost = "a-" + broadcast; // groups of this test only: the database is shared by the tests
    String other = "b-" + broadcast;
    assertEquals(0, cli("reopen", broadcast, "--reason", "MISSING_FILE", "--yes"), err::toString);
    Jdbi.create(PG.dataSource()).useHandle(h -> h.createUpdate("UPDATE segment_ledger_item SET storage_group = :g"
        + " WHERE broadcast_id = :b").bind("g", lost).bind("b", broadcast).execute());

    assertEquals(0, cli("storage-group", lost, "--hand-over-to", other, "--yes"), err::toString);
    assertEquals("1 open row of storage group " + lost + " handed over to " + other, out.toString().strip());
    assertEquals(other, row(3).storageGroup());
    assertEquals(lost, row(0).storageGroup(), "confirmed rows are not touched");

    assertEquals(0, cli("storage-group", other, "--lost", "--json", "--yes"), err::toString);
    assertTrue(out.toString().contains("\"rows\":1"), out.toString());
    assertEquals(ItemState.REJECTED, row(3).state());
    assertEquals(Reason.STORAGE_LOST, row(3).reason());

    assertEquals(2, cli("storage-group", "host b", "--lost"), "an invalid group is a usage error");
    assertEquals(2, cli("storage-group", other), "one of --hand-over-to and --lost is required");
  }

  @Test
  void reconcileFindsAMissingObjectAndRepairsOnlyWhenAsked() {
    assertEquals(0, cli(concat(new String[] {"reconcile", broadcast}, s3Options())), err::toString);

    String key = ItemId.original(broadcast, "720p", 1).objectKey();
    s3.deleteObject(r -> r.bucket(bucket).key(key));
    assertEquals(1, cli(concat(new String[] {"reconcile", broadcast, "--json"}, s3Options())), err::toString);
    assertTrue(out.toString().contains("\"consistent\":false"), out.toString());
    assertTrue(out.toString().contains("\"kind\":\"OBJECT_MISSING\",\"axis\":\"ORIGINAL\",\"key\":\"" + key + "\""),
        out.toString());
    assertEquals(ItemState.CONFIRMED, row(1).state(), "a report changes nothing");

    assertEquals(1, cli(concat(new String[] {"reconcile", broadcast, "--repair"}, s3Options())), err::toString);
    assertEquals(ItemState.PENDING, row(1).state());
    assertEquals(Reason.OBJECT_MISSING, row(1).reason());
  }

  @Test
  void rowsPagesABroadcastAndReconcileGoesOnStepByStepWithItsCursor() {
    assertEquals(0, cli("rows", broadcast, "--limit", "3"), err::toString);
    java.util.regex.Matcher next = java.util.regex.Pattern.compile("NEXT ([0-9]+)").matcher(out.toString());
    assertTrue(next.find(), out.toString());
    assertEquals(0, cli("rows", broadcast, "--limit", "3", "--after", next.group(1), "--json"), err::toString);
    assertTrue(out.toString().contains("\"sequence\":3") && out.toString().contains("\"next\":null"), out.toString());

    String key = ItemId.original(broadcast, "720p", 2).objectKey();
    s3.deleteObject(r -> r.bucket(bucket).key(key));
    assertEquals(0, cli(concat(new String[] {"reconcile", broadcast, "--max-checks", "1"}, s3Options())),
        err::toString);
    assertTrue(out.toString().contains("checked 1 confirmed rows and 0 objects, 0 differences; check limit reached"),
        out.toString());
    java.util.regex.Matcher cursor = java.util.regex.Pattern.compile("NEXT (\\S+)").matcher(out.toString());
    assertTrue(cursor.find(), out.toString());
    assertEquals(1, cli(concat(new String[] {"reconcile", broadcast, "--max-checks", "1", "--cursor", cursor.group(1),
        "--all"}, s3Options())), err::toString);
    assertTrue(out.toString().contains("OBJECT_MISSING " + key), out.toString());
    assertTrue(out.toString().contains("the pass is complete"), out.toString());
    assertEquals(2, cli(concat(new String[] {"reconcile", broadcast, "--cursor", "rows:-5"}, s3Options())));
    assertOneLineError("the cursor must be the 'next' of a previous reconcile step");
  }

  @Test
  void anUnknownBroadcastIsAnErrorAndChangesNothing() {
    List<LedgerItem> before = store.findByBroadcast(broadcast);
    for (String command : new String[] {"status", "reopen", "reconcile"}) {
      String[] args = switch (command) {
        case "reopen" -> new String[] {command, "nobody-" + broadcast, "--reason", "MISSING_FILE", "--yes"};
        case "reconcile" -> concat(new String[] {command, "nobody-" + broadcast}, s3Options());
        default -> new String[] {command, "nobody-" + broadcast};
      };
      assertEquals(2, cli(args), command);
      assertOneLineError("unknown broadcast: nobody-" + broadcast);
    }
    assertEquals(2, cli("status", "../etc"));
    assertOneLineError("broadcast must be 1-64 characters");
    assertEquals(before, store.findByBroadcast(broadcast));
  }

  @Test
  void aWrongDatabaseIsAnErrorAndChangesNothing() {
    List<LedgerItem> before = store.findByBroadcast(broadcast);
    assertEquals(2, cliAsIs("reopen", broadcast, "--reason", "MISSING_FILE", "--yes", "--jdbc-url",
        "jdbc:postgresql://127.0.0.1:1/ledger"));
    assertOneLineError("cannot connect to PostgreSQL at jdbc:postgresql://127.0.0.1:1/ledger: ");

    String otherSchema = PG.jdbcUrl().replace("currentSchema=" + PG.schema(), "currentSchema=no_ledger_here");
    List<String> args = new ArrayList<>(List.of("reopen", broadcast, "--reason", "MISSING_FILE", "--yes", "--jdbc-url",
        otherSchema));
    if (PG.user() != null) {
      args.addAll(List.of("--jdbc-user", PG.user()));
    }
    if (PG.password() != null) {
      args.addAll(List.of("--jdbc-password", PG.password()));
    }
    assertEquals(2, cliAsIs(args.toArray(String[]::new)));
    assertOneLineError("no Segment Ledger tables (segment_ledger_item) in the database at ");
    assertEquals(before, store.findByBroadcast(broadcast));
  }

  @Test
  void aMissingBucketIsAnError() {
    assertEquals(2, cli("reconcile", broadcast, "--s3-endpoint", server.endpoint().toString(), "--bucket",
        "no-such-bucket"));
    assertOneLineError("the bucket cannot be read: ");
  }

  /** {@code java -jar} the runnable jar with {@code args}; returns exit code, stdout and stderr. */
  private List<String> runJar(Map<String, String> env, String... args) throws Exception {
    List<String> command = new ArrayList<>(List.of(Path.of(System.getProperty("java.home"), "bin", "java").toString(),
        "-jar", RunnableCli.jar().toString()));
    command.addAll(List.of(args));
    ProcessBuilder builder = new ProcessBuilder(command);
    builder.environment().putAll(env);
    builder.redirectOutput(temp.resolve("jar-stdout").toFile()).redirectError(temp.resolve("jar-stderr").toFile());
    Process process = builder.start();
    assertTrue(process.waitFor(120, TimeUnit.SECONDS), "the command line ends");
    return List.of(Integer.toString(process.exitValue()),
        Files.readString(temp.resolve("jar-stdout"), StandardCharsets.UTF_8),
        Files.readString(temp.resolve("jar-stderr"), StandardCharsets.UTF_8));
  }

  @Test
  void theRunnableJarRunsAsShippedInAProcessOfItsOwn() throws Exception {
    List<String> version = runJar(Map.of(), "--version");
    assertEquals("0", version.get(0), version.get(2));
    assertTrue(version.get(1).startsWith("segment-ledger-cli 0."), version.get(1));

    Map<String, String> env = new java.util.HashMap<>(Map.of("AWS_ACCESS_KEY_ID", S3ProxyServer.ACCESS_KEY,
        "AWS_SECRET_ACCESS_KEY", S3ProxyServer.SECRET_KEY));
    List<String> database = new ArrayList<>(List.of("--jdbc-url", PG.jdbcUrl()));
    if (PG.user() != null) {
      database.addAll(List.of("--jdbc-user", PG.user()));
    }
    if (PG.password() != null) {
      env.put("SEGMENT_LEDGER_JDBC_PASSWORD", PG.password());
    }
    List<String> status = runJar(env, concat(concat(new String[] {"status", broadcast}),
        database.toArray(String[]::new)));
    assertEquals("0", status.get(0), status.get(2));
    assertTrue(status.get(1).startsWith("broadcast " + broadcast + ": LIVE"), status.get(1));
    assertEquals("", status.get(2), "nothing on stderr");

    List<String> reconcile = runJar(env, concat(concat(new String[] {"reconcile", broadcast, "--all"}, s3Options()),
        database.toArray(String[]::new)));
    assertEquals("0", reconcile.get(0), reconcile.get(1) + reconcile.get(2));
    assertTrue(reconcile.get(1).contains("checked 3 confirmed rows and 3 objects, 0 differences; the pass is complete"),
        reconcile.get(1));

    List<String> usage = runJar(env, "rows", broadcast, "--limit", "0", "--jdbc-url", PG.jdbcUrl());
    assertEquals("2", usage.get(0));
    assertEquals("segment-ledger: limit must be between 1 and 10000, got 0", usage.get(2).strip());
  }

  @Test
  void withoutCredentialsReconcileSaysSoAndChangesNothing() throws Exception {
    String key = ItemId.original(broadcast, "720p", 1).objectKey();
    s3.deleteObject(r -> r.bucket(bucket).key(key));
    List<String> command = new ArrayList<>(List.of(Path.of(System.getProperty("java.home"), "bin", "java").toString(),
        "-cp", System.getProperty("java.class.path"),
        // This module's class path logs through logback; its status lines would go to stdout.
        "-Dlogback.statusListenerClass=ch.qos.logback.core.status.NopStatusListener", SegmentLedgerCli.class.getName(),
        "reconcile", broadcast, "--repair", "--jdbc-url", PG.jdbcUrl()));
    command.addAll(List.of(s3Options()));
    if (PG.user() != null) {
      command.addAll(List.of("--jdbc-user", PG.user()));
    }
    ProcessBuilder builder = new ProcessBuilder(command);
    Map<String, String> env = builder.environment();
    env.keySet().removeIf(name -> name.startsWith("AWS_"));
    env.put("HOME", temp.toString()); // no ~/.aws
    env.put("AWS_EC2_METADATA_DISABLED", "true");
    env.put("AWS_SHARED_CREDENTIALS_FILE", temp.resolve("none").toString());
    env.put("AWS_CONFIG_FILE", temp.resolve("none").toString());
    if (PG.password() != null) {
      env.put("SEGMENT_LEDGER_JDBC_PASSWORD", PG.password());
    }
    builder.redirectOutput(temp.resolve("stdout").toFile()).redirectError(temp.resolve("stderr").toFile());
    Process process = builder.start();
    assertTrue(process.waitFor(60, TimeUnit.SECONDS), "the command line ends");

    String stderr = Files.readString(temp.resolve("stderr"), StandardCharsets.UTF_8);
    assertEquals(2, process.exitValue(), stderr);
    assertTrue(stderr.lines().anyMatch(l -> l.startsWith("segment-ledger: no AWS credentials found")), stderr);
    assertFalse(stderr.contains("\tat "), "no stack trace: " + stderr);
    assertEquals("", Files.readString(temp.resolve("stdout"), StandardCharsets.UTF_8));
    assertEquals(ItemState.CONFIRMED, row(1).state(), "nothing re-opened");
  }
}
