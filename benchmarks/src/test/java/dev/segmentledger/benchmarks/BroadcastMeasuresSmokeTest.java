package dev.segmentledger.benchmarks;

import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Set;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The broadcast measures ({@code long_broadcast}, {@code many_broadcasts}; on demand, not in
 * {@link BenchmarkSmokeTest}'s run) at smoke sizes, so that they cannot rot: each completes, every
 * figure is measured (a number), every segment was listed, and the results are written under the
 * name given. No goal is asserted (about 40 s).
 */
@Tag("long")
class BroadcastMeasuresSmokeTest {
  @Test
  void bothMeasuresCompleteAtSmokeSizes(@TempDir Path out) throws Exception {
    List<BenchResult> results = BenchmarkSuite.run(true, out,
        Set.of(LongBroadcastMeasure.NAME, ManyBroadcastsMeasure.NAME), Integer.MAX_VALUE, "broadcast-smoke");

    for (BenchResult r : results) {
      assertFalse(r.name().endsWith(".error"), () -> r.name() + ": " + r.note());
      assertFalse(Double.isNaN(r.value()) && !r.name().contains("postgres_cpu"), () -> r.name() + " not measured");
    }
    for (String measure : List.of(LongBroadcastMeasure.NAME, ManyBroadcastsMeasure.NAME)) {
      assertTrue(results.stream().anyMatch(r -> r.name().startsWith(measure + ".")), "no result of " + measure);
    }
    assertTrue(results.stream().filter(r -> r.name().equals("many_broadcasts.unlisted_segments"))
        .allMatch(BenchResult::met), "every segment listed");
    assertTrue(results.stream().filter(r -> r.name().contains("rows_read_per_segment")).allMatch(r -> r.value() > 0),
        "rows read counted");
    assertTrue(Files.readString(out.resolve("broadcast-smoke.json")).contains("\"long_broadcast.rows_read_ratio"));
    assertTrue(Files.exists(out.resolve("broadcast-smoke.md")));
  }
}
