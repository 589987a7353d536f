package dev.segmentledger.benchmarks;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The short version of the outage scenarios (benchmarks README, "Outage scenarios"), so that the harness cannot rot: the
 * refused-connections scenario at smoke scale (5 files/s of 64 KiB, a 5 s outage) on embedded
 * durable PostgreSQL and S3Proxy in its own JVM. Asserts the outcome (nothing lost, nothing
 * confirmed without its object, the reconciler agrees, no unfinished upload), that the backlog
 * came back and the breaker closed, and that the results were written; not the timing goals,
 * which a shared CI machine cannot judge.
 */
@Tag("long")
class OutageSmokeTest {
  @Test
  void aShortOutageIsRecoveredWithNothingLost(@TempDir Path out) throws Exception {
    List<OutageScenario> refused = OutageScenario.all().stream().filter(s -> s.name().equals("refused")).toList();
    List<BenchResult> results = OutageMeasure.run(true, out, OutageMeasure.Settings.smoke(), refused, null);

    for (BenchResult r : results) {
      assertFalse(r.name().endsWith(".error"), () -> r.name() + ": " + r.note());
    }
    assertEquals(0.0, value(results, "outage.refused.lost"), () -> describe(results));
    assertEquals(0.0, value(results, "outage.refused.confirmed_without_object"), () -> describe(results));
    assertEquals(0.0, value(results, "outage.refused.reconcile_differences"), () -> describe(results));
    assertEquals(0.0, value(results, "outage.refused.unfinished_multipart"), () -> describe(results));
    assertEquals(0.0, value(results, "outage.refused.register_failures"), () -> describe(results));
    assertFalse(Double.isNaN(value(results, "outage.refused.backlog_recovered_s")), () -> describe(results));
    assertFalse(Double.isNaN(value(results, "outage.refused.breaker_closed_s")), () -> describe(results));
    assertTrue(value(results, "outage.refused.breaker_transitions") >= 2, () -> describe(results));
    assertTrue(Files.readString(out.resolve("outage-smoke.json")).contains("\"outage.refused.lost\""));
    assertTrue(Files.exists(out.resolve("outage-smoke.md")));
    assertFalse(Files.exists(out.resolve("outage.json")), "smoke mode must not write outage.json");
  }

  private static double value(List<BenchResult> results, String name) {
    return results.stream().filter(r -> r.name().equals(name)).findFirst()
        .orElseThrow(() -> new AssertionError("no result " + name + " in " + describe(results))).value();
  }

  private static String describe(List<BenchResult> results) {
    StringBuilder b = new StringBuilder();
    results.forEach(r -> b.append('\n').append(r.name()).append(" = ").append(BenchResult.fmt(r.value())).append(" (")
        .append(r.note()).append(")"));
    if (!results.isEmpty()) {
      b.append('\n').append(results.get(0).conditions());
    }
    return b.toString();
  }
}
