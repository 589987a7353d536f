package dev.segmentledger.benchmarks;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Runs the whole suite in smoke mode (tiny sizes) so that it cannot rot. It writes into a
 * temporary directory, never into benchmarks/results. Goals are not asserted here: a 2-core CI
 * machine and smoke sizes say nothing about them; completing every measure is what is checked.
 */
@Tag("long")
class BenchmarkSmokeTest {
  /** The results that compare the ledger with a reference: each must carry its pairs. */
  private static final List<String> COMPARISONS = List.of(".ledger_to_ceiling", ".ledger_to_per_row_floor",
      ".p99_ratio_to_raw", ".ratio_to_raw_tool", ".ratio_to_steady", ".parallel_parts_gain");
  private static final Set<String> MEASURES = Set.of("throughput", "throughput_single", "sweep_cost", "backlog",
      "upload", "upload_small", "upload_large", "upload_single", "upload_capped", "memory", "latency", "latency_5000", "latency_disk", "recovery");

  @Test
  void everyMeasureRunsInSmokeModeAndTheResultsAreWellFormed(@TempDir Path out) throws Exception {
    List<BenchResult> results = BenchmarkSuite.run(true, out, Set.of());

    for (BenchResult r : results) {
      assertFalse(r.name().endsWith(".error"), () -> r.name() + ": " + r.note());
    }
    for (String measure : MEASURES) {
      assertTrue(results.stream().anyMatch(r -> r.name().startsWith(measure + ".")), "no result of " + measure);
    }
    for (BenchResult r : results) {
      if (COMPARISONS.stream().anyMatch(r.name()::endsWith)) {
        Object pairs = r.conditions().entrySet().stream()
            .filter(e -> e.getKey().startsWith("pairs") || e.getKey().equals("rounds"))
            .filter(e -> e.getValue() instanceof List<?>)
            .map(Map.Entry::getValue).findFirst().orElse(null);
        assertTrue(pairs instanceof List<?> list && list.size() >= 3, r.name() + " carries no three pairs: " + pairs);
      }
      if (r.name().startsWith("upload")) {
        assertEquals(S3ProxyProcess.version(), r.conditions().get("s3proxy_version"), r.name());
        assertFalse(S3ProxyProcess.version().contains("unknown"), "the S3 server's version is recorded");
      }
    }
    Path json = out.resolve("latest-smoke.json");
    assertTrue(Files.exists(out.resolve("latest-smoke.md")));
    assertFalse(Files.exists(out.resolve("latest.json")), "smoke mode must not write latest.json");
    String text = Files.readString(json);
    assertWellFormedJsonArray(text);
    Matcher entry = Pattern.compile("\\{\"name\": \"([^\"]+)\", \"value\": [^,]+, \"unit\": \"[^\"]*\","
        + " \"goal\": \"[^\"]*\", \"met\": (true|false), \"note\": ").matcher(text);
    int entries = 0;
    while (entry.find()) {
      entries++;
    }
    assertEquals(results.size(), entries, text);
    assertTrue(text.contains("\"conditions\": {\"mode\": \"smoke\", \"postgres\": \""), text);
    // Every figure on durable settings, read back from the server.
    if (System.getenv("SEGMENT_LEDGER_BENCH_JDBC_URL") == null) {
      assertTrue(text.contains("\"pg_synchronous_commit\": \"on\", \"pg_fsync\": \"on\""), text);
    }
  }

  /** Brackets, braces and strings balance; the document is one array. */
  private static void assertWellFormedJsonArray(String text) {
    String trimmed = text.strip();
    assertTrue(trimmed.startsWith("[") && trimmed.endsWith("]"), "not an array");
    int depth = 0;
    boolean inString = false;
    for (int i = 0; i < trimmed.length(); i++) {
      char c = trimmed.charAt(i);
      if (inString) {
        if (c == '\\') {
          i++;
        } else if (c == '"') {
          inString = false;
        }
      } else if (c == '"') {
        inString = true;
      } else if (c == '[' || c == '{') {
        depth++;
      } else if (c == ']' || c == '}') {
        depth--;
        assertTrue(depth >= 0 && (depth > 0 || i == trimmed.length() - 1), "unbalanced at " + i);
      }
    }
    assertFalse(inString, "unterminated string");
    assertEquals(0, depth, "unbalanced");
  }
}
