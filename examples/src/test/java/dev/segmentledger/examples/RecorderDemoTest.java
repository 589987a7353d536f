package dev.segmentledger.examples;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The README's demo, run as CI runs the tests: it must exit 0 (ledger and bucket agree). */
class RecorderDemoTest {
  @TempDir Path dataDir;

  @Test
  void theDemoSurvivesTheSigkillAndEndsWithDifferenceZero() throws Exception {
    DemoOptions options = DemoOptions.parse(List.of("--data-dir=" + dataDir), Map.of());
    assertEquals(0, RecorderDemo.run(options));
  }
}
