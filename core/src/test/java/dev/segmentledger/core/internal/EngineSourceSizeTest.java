package dev.segmentledger.core.internal;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;

/**
 * Every source file of the engine stays at most 300 lines (docs/design.md, "Reading the engine"): a
 * class that grows past it has more than one responsibility and is split, not squeezed.
 */
class EngineSourceSizeTest {
  static final int MAX_LINES = 300;
  static final Path ENGINE = Path.of("src/main/java/dev/segmentledger/core/internal");

  @Test
  void everyEngineSourceFileHasAtMost300Lines() throws IOException {
    assertTrue(Files.isDirectory(ENGINE), "run from the core module: " + ENGINE.toAbsolutePath());
    List<String> tooLong;
    try (Stream<Path> files = Files.list(ENGINE)) {
      tooLong = files.filter(f -> f.toString().endsWith(".java"))
          .filter(f -> lines(f) > MAX_LINES)
          .map(f -> f.getFileName() + " (" + lines(f) + " lines)")
          .sorted().toList();
    }
    assertEquals(List.of(), tooLong);
  }

  private static long lines(Path file) {
    try (Stream<String> lines = Files.lines(file)) {
      return lines.count();
    } catch (IOException e) {
      throw new IllegalStateException(file.toString(), e);
    }
  }
}
