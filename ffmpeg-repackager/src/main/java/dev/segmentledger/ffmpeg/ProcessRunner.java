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
 * Runs an external program from an argument list (never through a shell) with a deadline. Every
 * failure becomes a {@link RepackageException} carrying the program's stderr tail, escaped by
 * {@link Printable} (its line breaks too). Thread-safe.
 */
final class ProcessRunner {
  /** How much of stderr a failure message keeps. */
  static final int STDERR_TAIL_BYTES = 8 * 1024;

  private static final Logger log = LoggerFactory.getLogger(ProcessRunner.class);
  private static final int STDOUT_LIMIT_BYTES = 64 * 1024;
  private static final long DRAIN_GRACE_MILLIS = 2_000;

  private final Duration timeout;

  ProcessRunner(Duration timeout) {
    this.timeout = timeout;
  }

  /**
   * Runs {@code command} to completion and returns its standard output (at most 64 KiB).
   *
   * @throws RepackageException if the program cannot be started, exits non-zero, runs past the
   *     timeout (it is then killed) or the calling thread is interrupted (the interrupt flag is
   *     restored and the program killed)
   */
  String run(List<String> command) throws RepackageException {
    log.debug("running {}", command);
    Process process = start(command);
    OutputTail stdout = OutputTail.start(process.getInputStream(), STDOUT_LIMIT_BYTES, "ffmpeg-stdout");
    OutputTail stderr = OutputTail.start(process.getErrorStream(), STDERR_TAIL_BYTES, "ffmpeg-stderr");
    try {
      if (!process.waitFor(timeout.toMillis(), TimeUnit.MILLISECONDS)) {
        kill(process);
        throw new RepackageException(
            program(command) + " timed out after " + timeout + "; stderr: "
                + Printable.escape(stderr.await(DRAIN_GRACE_MILLIS)));
      }
      String errors = stderr.await(DRAIN_GRACE_MILLIS);
      int exit = process.exitValue();
      if (exit != 0) {
        throw new RepackageException(program(command) + " exited with " + exit + "; stderr: "
            + Printable.escape(errors.strip()));
      }
      return stdout.await(DRAIN_GRACE_MILLIS);
    } catch (InterruptedException e) {
      kill(process);
      Thread.currentThread().interrupt();
      throw new RepackageException(program(command) + " interrupted; process killed", e);
    }
  }

  private static Process start(List<String> command) throws RepackageException {
    Process process;
    try {
      process = new ProcessBuilder(command).start();
    } catch (IOException e) {
      throw new RepackageException(
          "cannot run " + program(command) + " (is it installed and executable?): " + e.getMessage(), e);
    }
    try {
      process.getOutputStream().close(); // the programs never read stdin
    } catch (IOException e) {
      log.debug("closing stdin of {} failed", program(command), e);
    }
    return process;
  }

  private static void kill(Process process) {
    process.descendants().forEach(ProcessHandle::destroyForcibly);
    process.destroyForcibly();
  }

  private static String program(List<String> command) {
    return command.get(0);
  }
}
