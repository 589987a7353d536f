package dev.segmentledger.ffmpeg;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.segmentledger.core.spi.RepackageException;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;

/** Standard output is parsed whole, however long, or not at all. */
class ProcessRunnerTest {
  private final ProcessRunner runner = new ProcessRunner(Duration.ofSeconds(30));

  @Test
  void aLongOutputIsParsedWholeWhileItIsWritten() throws Exception {
    OutputParser<long[]> countAndLast = new OutputParser<>() {
      private final long[] result = new long[2];

      @Override
      public void line(String line) {
        result[0]++;
        result[1] = Long.parseLong(line);
      }

      @Override
      public long[] result() {
        return result;
      }
    };

    long[] seen = runner.run(List.of("seq", "1", "1000000"), countAndLast); // about 6.9 MB

    assertEquals(1_000_000, seen[0]);
    assertEquals(1_000_000, seen[1]);
  }

  @Test
  void aTextOutputLongerThanTheLimitFailsInsteadOfBeingCut() {
    RepackageException e = assertThrows(RepackageException.class, () -> runner.run(List.of("seq", "1", "100000")));

    assertTrue(e.getMessage().startsWith("cannot use the output of seq: the output (588895 characters) is longer than the "
        + ProcessRunner.TEXT_LIMIT_CHARS + " kept"), e.getMessage());
  }

  @Test
  void anInterruptedThreadStartsNothing() {
    Thread.currentThread().interrupt();
    try {
      RepackageException e = assertThrows(RepackageException.class, () -> runner.run(List.of("true")));
      assertEquals("true cancelled before it started: the thread is interrupted", e.getMessage());
      assertTrue(Thread.currentThread().isInterrupted(), "the flag stays set");
    } finally {
      Thread.interrupted();
    }
  }
}
