package dev.segmentledger.ffmpeg;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.segmentledger.core.spi.RepackageException;
import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.PipedInputStream;
import java.io.PipedOutputStream;
import java.io.SequenceInputStream;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/** A parser gets a result only from an output read to its end; a cut output fails and says so. */
class OutputLinesTest {
  @Test
  void everyLineReachesTheParser() throws Exception {
    OutputLines<List<String>> lines = OutputLines.start(stream("a\nb\r\n\nc"), collector(), "test");
    assertEquals(List.of("a", "b", "", "c"), lines.result(5_000, "prog"));
  }

  @Test
  void anOutputCutByAReadFailureIsNeverParsed() {
    InputStream failing = new SequenceInputStream(stream("1.0,0.1\n"), new InputStream() {
      @Override
      public int read() throws IOException {
        throw new IOException("Stream closed");
      }
    });
    OutputLines<List<String>> lines = OutputLines.start(failing, collector(), "test");

    RepackageException e = assertThrows(RepackageException.class, () -> lines.result(5_000, "ffprobe"));

    assertTrue(e.getMessage().contains("the output of ffprobe was cut"), e.getMessage());
    assertTrue(e.getMessage().contains("never parsed"), e.getMessage());
  }

  @Test
  void anOutputThatDoesNotEndIsNeverParsed() throws Exception {
    try (PipedOutputStream writer = new PipedOutputStream()) {
      PipedInputStream open = new PipedInputStream(writer);
      writer.write("1.0,0.1\n".getBytes(StandardCharsets.UTF_8));
      OutputLines<List<String>> lines = OutputLines.start(open, collector(), "test");

      RepackageException e = assertThrows(RepackageException.class, () -> lines.result(50, "ffprobe"));

      assertTrue(e.getMessage().contains("the output of ffprobe did not end within 50 ms"), e.getMessage());
    }
  }

  @Test
  void aRefusedLineFailsWithTheParsersReasonAndTheRestIsDrained() {
    OutputParser<String> refusing = new OutputParser<>() {
      @Override
      public void line(String line) throws RepackageException {
        throw new RepackageException("no numbers here: " + line);
      }

      @Override
      public String result() {
        return "never";
      }
    };
    OutputLines<String> lines = OutputLines.start(stream("first\nsecond\n"), refusing, "test");

    RepackageException e = assertThrows(RepackageException.class, () -> lines.result(5_000, "ffprobe"));

    assertEquals("cannot use the output of ffprobe: no numbers here: first", e.getMessage());
  }

  @Test
  void theTextParserRefusesAnOutputLongerThanItKeeps() throws Exception {
    assertEquals("0123\n", OutputLines.start(stream("0123"), OutputParser.text(5), "test").result(5_000, "p"));
    OutputLines<String> tooLong = OutputLines.start(stream("0123\n4"), OutputParser.text(5), "test");

    RepackageException e = assertThrows(RepackageException.class, () -> tooLong.result(5_000, "ffprobe"));

    assertTrue(e.getMessage().contains("longer than the 5 kept"), e.getMessage());
    assertTrue(e.getMessage().contains("a cut output is never parsed"), e.getMessage());
  }

  private static OutputParser<List<String>> collector() {
    return new OutputParser<>() {
      private final List<String> lines = new ArrayList<>();

      @Override
      public void line(String line) {
        lines.add(line);
      }

      @Override
      public List<String> result() {
        return lines;
      }
    };
  }

  private static InputStream stream(String text) {
    return new ByteArrayInputStream(text.getBytes(StandardCharsets.UTF_8));
  }
}
