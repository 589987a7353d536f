package dev.segmentledger.ffmpeg;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.io.ByteArrayInputStream;
import java.nio.charset.StandardCharsets;
import org.junit.jupiter.api.Test;

class OutputTailTest {
  @Test
  void keepsEverythingThatFits() throws Exception {
    OutputTail tail = OutputTail.start(stream("short"), 16, "test");
    assertEquals("short", tail.await(5_000));
  }

  @Test
  void keepsOnlyTheLastBytesAndMarksTheCut() throws Exception {
    OutputTail tail = OutputTail.start(stream("0123456789abcdefXYZ"), 8, "test");
    assertEquals("...bcdefXYZ", tail.await(5_000));
  }

  private static ByteArrayInputStream stream(String text) {
    return new ByteArrayInputStream(text.getBytes(StandardCharsets.UTF_8));
  }
}
