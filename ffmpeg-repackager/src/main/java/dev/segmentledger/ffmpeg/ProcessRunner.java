package dev.segmentledger.ffmpeg;

import dev.segmentledger.core.Printable;
import dev.segmentledger.core.spi.RepackageException;
import java.io.IOException;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Runs an external program from an argument list (never through a shell) with a timeout, and
 * parses its standard output while it runs ({@link OutputParser}); a result comes only from an
 * output read to its end. Every failure becomes a {@link RepackageException} carrying the
 * program's stderr tail, escaped by {@link Printable} (its line breaks too). Thread-safe.
 */
final class ProcessRunner {
  /** How much of stderr a failure message keeps. */
  static final int STDERR_TAIL_BYTES = 8 * 1024;
  /** How much standard output {@link #run(List)} keeps; a longer output fails the run. */
  static final int TEXT_LIMIT_BYTES = 64 * 1024;

  private static final Logger log = LoggerFactory.getLogger(ProcessRunner.class);
  private static final long DRAIN_GRACE_MILLIS = 2_000;

  private final Duration timeout;

  ProcessRunner(Duration timeout) {
    this.timeout = timeout;
  }

  /** Runs {@code command} to completion and returns its standard output, which must be short. */
  String run(List<String> command) throws RepackageException {
    return run(command, OutputParser.text(TEXT_LIMIT_BYTES));
  }

  /**
   * Runs {@code command} to completion, feeding its standard output to {@code stdout} line by line
   * as it is written, and returns the parser's result.
   *
   * @throws RepackageException if the program cannot be started, exits non-zero, runs past the
   *     timeout (it is then killed), its output is cut or refused by the parser, or the calling
   *     thread is interrupted (the interrupt flag is restored and the program killed)
   */
  <T> T run(List<String> command, OutputParser<T> stdout) throws RepackageException {
    String program = command.get(0);
    log.debug("running {}", command);
    Process process = start(command);
    OutputLines<T> output = OutputLines.start(process.getInputStream(), stdout, "ffmpeg-stdout");
    OutputTail stderr = OutputTail.start(process.getErrorStream(), STDERR_TAIL_BYTES, "ffmpeg-stderr");
    try {
      if (!process.waitFor(timeout.toMillis(), TimeUnit.MILLISECONDS)) {
        kill(process);
        throw new RepackageException(program + " timed out after " + timeout + "; process killed; stderr: "
            + Printable.escape(stderr.await(DRAIN_GRACE_MILLIS)));
      }
      String errors = stderr.await(DRAIN_GRACE_MILLIS);
      int exit = process.exitValue();
      if (exit != 0) {
        throw new RepackageException(program + " exited with " + exit + "; stderr: " + Printable.escape(errors.strip()));
      }
      return output.result(DRAIN_GRACE_MILLIS, program);
    } catch (InterruptedException e) {
      kill(process);
      Thread.currentThread().interrupt();
      throw new RepackageException(program + " interrupted; process killed", e);
    }
  }

  private static Process start(List<String> command) throws RepackageException {
    Process process;
    try {
      process = new ProcessBuilder(command).start();
    } catch (IOException e) {
      throw new RepackageException(
          "cannot run " + command.get(0) + " (is it installed and executable?): " + e.getMessage(), e);
    }
    try {
      process.getOutputStream().close(); // the programs never read stdin
    } catch (IOException e) {
      log.debug("closing stdin of {} failed", command.get(0), e);
    }
    return process;
  }

  private static void kill(Process process) {
    process.descendants().forEach(ProcessHandle::destroyForcibly);
    process.destroyForcibly();
  }
}
