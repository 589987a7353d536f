package dev.segmentledger.ffmpeg;

import dev.segmentledger.core.Printable;
import dev.segmentledger.core.spi.RepackageException;
import java.io.IOException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Runs an external program from an argument list (never through a shell) with a timeout, and
 * parses its standard output while it runs ({@link OutputParser}); a result comes only from an
 * output read to its end. Every failure becomes a {@link RepackageException} carrying the
 * program's stderr tail, escaped by {@link Printable} (its line breaks too).
 *
 * <p><b>Cancellation.</b> An interrupt of the thread waiting here destroys the program and every
 * process it started, waits (briefly) until they are gone, restores the interrupt flag and fails
 * with a message saying the run was cancelled; an interrupt before the start starts nothing. The
 * caller deletes the files the program was writing. Thread-safe.
 */
final class ProcessRunner {
  /** How much of stderr a failure message keeps. */
  static final int STDERR_TAIL_BYTES = 8 * 1024;
  /** How many characters of standard output {@link #run(List)} keeps; a longer output fails the run. */
  static final int TEXT_LIMIT_CHARS = 64 * 1024;

  private static final Logger log = LoggerFactory.getLogger(ProcessRunner.class);
  private static final long DRAIN_GRACE_MILLIS = 2_000;
  private static final long KILL_GRACE_MILLIS = 5_000;

  private final Duration timeout;

  ProcessRunner(Duration timeout) {
    this.timeout = timeout;
  }

  /** Runs {@code command} to completion and returns its standard output, which must be short. */
  String run(List<String> command) throws RepackageException {
    return run(command, OutputParser.text(TEXT_LIMIT_CHARS));
  }

  /**
   * Runs {@code command} to completion, feeding its standard output to {@code stdout} line by line
   * as it is written, and returns the parser's result.
   *
   * @throws RepackageException if the program cannot be started, exits non-zero, runs past the
   *     timeout (it is then killed), its output is cut or refused by the parser, or the calling
   *     thread is interrupted (the program is killed and the interrupt flag restored)
   */
  <T> T run(List<String> command, OutputParser<T> stdout) throws RepackageException {
    String program = command.get(0);
    if (Thread.currentThread().isInterrupted()) {
      throw new RepackageException(program + " cancelled before it started: the thread is interrupted");
    }
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
      throw new RepackageException(program + " cancelled: the thread was interrupted; process killed", e);
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

  /**
   * Destroys the program and every process it started (those first, so none is started anew),
   * then waits up to {@link #KILL_GRACE_MILLIS} until all of them are gone. An interrupt during
   * that wait ends it and is kept on the thread.
   */
  private static void kill(Process process) {
    List<ProcessHandle> tree = new ArrayList<>(process.descendants().toList());
    tree.add(process.toHandle());
    tree.forEach(ProcessHandle::destroyForcibly);
    CompletableFuture<?>[] exits = tree.stream().map(ProcessHandle::onExit).toArray(CompletableFuture[]::new);
    try {
      CompletableFuture.allOf(exits).get(KILL_GRACE_MILLIS, TimeUnit.MILLISECONDS);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    } catch (ExecutionException | TimeoutException e) {
      log.warn("{} or a process it started was still running {} ms after it was killed: {}",
          process.info().command().orElse("the program"), KILL_GRACE_MILLIS, tree);
    }
  }
}
