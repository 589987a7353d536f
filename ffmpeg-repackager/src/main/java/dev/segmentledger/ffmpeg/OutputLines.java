package dev.segmentledger.ffmpeg;

import dev.segmentledger.core.Printable;
import dev.segmentledger.core.spi.RepackageException;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStream;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;

/**
 * Drains a program's standard output on its own thread, handing each line to an {@link
 * OutputParser} as it arrives, so a long output neither blocks the program on a full pipe nor
 * fills the heap. The parser's result is handed out only for an output read to its end; an output
 * that was cut (the stream failed, or did not end in time) fails with a message that says so.
 */
final class OutputLines<T> {
  private final OutputParser<T> parser;
  private final Thread drainer;
  // written by the drainer, read after join()
  private boolean ended;
  private IOException readFailure;
  private RepackageException refusal;

  private OutputLines(InputStream in, OutputParser<T> parser, String threadName) {
    this.parser = parser;
    this.drainer = new Thread(() -> drain(in), threadName);
    this.drainer.setDaemon(true);
  }

  /** Starts draining {@code in} into {@code parser}; the stream is closed when it ends. */
  static <T> OutputLines<T> start(InputStream in, OutputParser<T> parser, String threadName) {
    OutputLines<T> lines = new OutputLines<>(in, parser, threadName);
    lines.drainer.start();
    return lines;
  }

  private void drain(InputStream in) {
    try (BufferedReader reader = new BufferedReader(new InputStreamReader(in, StandardCharsets.UTF_8))) {
      String line;
      while ((line = reader.readLine()) != null) {
        if (refusal == null) {
          parse(line);
        } // after a refusal the rest is only drained, so the program never blocks on the pipe
      }
      ended = true;
    } catch (IOException e) {
      readFailure = e; // the program went away (killed): what was read is not the whole output
    }
  }

  private void parse(String line) {
    try {
      parser.line(line);
    } catch (RepackageException e) {
      refusal = e;
    } catch (RuntimeException e) {
      refusal = new RepackageException("unexpected line '" + Printable.escape(line) + "': " + Printable.escape(e), e);
    }
  }

  /**
   * Waits up to {@code millis} for the output to end and returns what the parser read from it.
   *
   * @throws RepackageException if the output did not end in time or could not be read to its end
   *     (it is then incomplete and not parsed), or if the parser refused it
   */
  T result(long millis, String program) throws RepackageException, InterruptedException {
    drainer.join(millis);
    if (drainer.isAlive()) {
      throw new RepackageException("the output of " + program + " did not end within " + millis
          + " ms after it exited; an incomplete output is never parsed");
    }
    if (readFailure != null || !ended) {
      String why = readFailure == null ? "reading stopped early" : Printable.escape(readFailure);
      throw new RepackageException("the output of " + program + " was cut (" + why
          + "); an incomplete output is never parsed", readFailure);
    }
    try {
      if (refusal != null) {
        throw refusal;
      }
      return parser.result();
    } catch (RepackageException e) {
      throw new RepackageException("cannot use the output of " + program + ": " + e.getMessage(), e);
    }
  }
}
