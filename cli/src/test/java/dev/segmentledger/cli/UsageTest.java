package dev.segmentledger.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.PrintWriter;
import java.io.StringWriter;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneOffset;
import org.junit.jupiter.api.Test;
import picocli.CommandLine.TypeConversionException;

/** Usage errors need no database: exit 2, one clear message, no stack trace. */
class UsageTest {
  private final StringWriter out = new StringWriter();
  private final StringWriter err = new StringWriter();

  private int run(String... args) {
    return SegmentLedgerCli.run(Clock.fixed(Instant.parse("2026-01-01T00:00:00Z"), ZoneOffset.UTC),
        new PrintWriter(out), new PrintWriter(err), args);
  }

  @Test
  void helpListsTheCommands() {
    assertEquals(0, run("--help"));
    for (String command : new String[] {"status", "rows", "backlog", "stuck", "reopen", "reconcile"}) {
      assertTrue(out.toString().contains(command), out.toString());
    }
  }

  @Test
  void aMissingJdbcUrlIsAUsageError() {
    assertEquals(2, run("status", "b1"));
    assertTrue(err.toString().contains("--jdbc-url"), err.toString());
    assertFalse(err.toString().contains("\tat "), err.toString());
  }

  @Test
  void anUnknownCommandOrOptionValueIsAUsageError() {
    assertEquals(2, run("frobnicate"));
    assertEquals(2, run("stuck", "--jdbc-url", "jdbc:postgresql://127.0.0.1:1/x", "--state", "LOST"));
    assertEquals(2, run("stuck", "--jdbc-url", "jdbc:postgresql://127.0.0.1:1/x", "--older-than", "soon"));
    assertEquals(2, run("reopen", "b1", "--jdbc-url", "jdbc:postgresql://127.0.0.1:1/x"),
        "--reason or --id is required");
    assertEquals(2, run("reopen", "b1", "--jdbc-url", "jdbc:postgresql://127.0.0.1:1/x", "--reason", "MISSING_FILE",
        "--id", "3"), "not both");
    assertFalse(err.toString().contains("\tat "), err.toString());
  }

  @Test
  void aBadLimitOrCursorSaysWhatIsAllowedBeforeConnecting() {
    String url = "jdbc:postgresql://127.0.0.1:1/x";
    assertEquals(2, run("reconcile", "b1", "--jdbc-url", url, "--bucket", "b", "--max-checks", "0"));
    assertTrue(err.toString().contains("the check limit must be between 1 and 100000, got 0"), err.toString());
    assertEquals(2, run("reconcile", "b1", "--jdbc-url", url, "--bucket", "b", "--max-seconds", "3600"));
    assertTrue(err.toString().contains("at most 600 s"), err.toString());
    assertEquals(2, run("reconcile", "b1", "--jdbc-url", url, "--bucket", "b", "--cursor", "somewhere"));
    assertTrue(err.toString().contains("rows:<row id>, objects:<key of the broadcast> or final"), err.toString());
    assertEquals(2, run("rows", "b1", "--jdbc-url", url, "--limit", "20000"));
    assertTrue(err.toString().contains("limit must be between 1 and 10000, got 20000"), err.toString());
    assertEquals(2, run("rows", "../b1", "--jdbc-url", url));
    assertTrue(err.toString().contains("[A-Za-z0-9._-]"), err.toString());
    assertFalse(err.toString().contains("cannot connect"), "refused before connecting: " + err);
  }

  @Test
  void aNonPostgresUrlIsRefusedWithoutConnecting() {
    assertEquals(2, run("status", "b1", "--jdbc-url", "jdbc:mysql://db/x?password=secret"));
    assertTrue(err.toString().startsWith("segment-ledger: --jdbc-url must be a PostgreSQL JDBC URL"), err.toString());
    assertFalse(err.toString().contains("secret"), "the password is never printed: " + err);
  }

  @Test
  void anUnreachableDatabaseIsOneLineOnStderr() {
    assertEquals(2, run("backlog", "--jdbc-url", "jdbc:postgresql://127.0.0.1:1/ledger?password=secret"));
    String message = err.toString();
    assertTrue(message.startsWith("segment-ledger: cannot connect to PostgreSQL at jdbc:postgresql://127.0.0.1:1/"
        + "ledger?password=***: "), message);
    assertEquals(1, message.lines().count(), message);
    assertTrue(out.toString().isEmpty());
  }

  @Test
  void enumValuesAreCaseInsensitive() {
    assertEquals(2, run("stuck", "--jdbc-url", "jdbc:postgresql://127.0.0.1:1/x", "--state", "rejected",
        "--reason", "sink_permanent"));
    assertTrue(err.toString().startsWith("segment-ledger: cannot connect to PostgreSQL"), "parsed, then connected: "
        + err);
  }

  @Test
  void durationsInShortAndIsoForms() {
    Durations durations = new Durations();
    assertEquals(Duration.ofSeconds(90), durations.convert("90s"));
    assertEquals(Duration.ofMinutes(15), durations.convert("15m"));
    assertEquals(Duration.ofHours(2), durations.convert("2h"));
    assertEquals(Duration.ofDays(3), durations.convert("3d"));
    assertEquals(Duration.ofMinutes(90), durations.convert("PT1H30M"));
    org.junit.jupiter.api.Assertions.assertThrows(TypeConversionException.class, () -> durations.convert("-PT1H"));
  }
}
