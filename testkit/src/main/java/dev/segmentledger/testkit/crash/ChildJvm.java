package dev.segmentledger.testkit.crash;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.function.Predicate;

/**
 * A Java main class running in a child JVM on this JVM's class path, for crash tests: the
 * parent waits for a line the child prints, kills it with SIGKILL, and starts another on the
 * same database and bucket. Every line the child prints is kept (and echoed with a prefix).
 * Not thread-safe: one test thread drives it.
 */
public final class ChildJvm implements AutoCloseable {
  private final Process process;
  private final List<String> lines = new CopyOnWriteArrayList<>();
  private final BlockingQueue<String> unread = new LinkedBlockingQueue<>();
  private final Thread reader;

  private ChildJvm(Process process, String name) {
    this.process = process;
    this.reader = new Thread(() -> pump(name), "child-jvm-" + name);
    reader.setDaemon(true);
    reader.start();
  }

  /**
   * JVM options for a child that lives a second or two, as the recorders of the crash matrix and
   * the crash soak do: the C1 compiler only, the serial collector, no perf-data file. Such a child
   * spends most of its life loading and compiling classes; with these options a 2-core machine
   * shared with other work starts it in well under half the time (the C2 compiler threads and
   * G1's worker threads no longer compete for the cores). Class data sharing stays at the JDK's
   * default ({@code -Xshare:auto}). Not for children whose throughput is measured or that run for
   * minutes: their hot code then stays at C1 quality.
   */
  public static final List<String> SHORT_LIVED =
      List.of("-XX:TieredStopAtLevel=1", "-XX:+UseSerialGC", "-XX:-UsePerfData");

  /**
   * Starts {@code mainClass} with {@code args} in a new JVM with this JVM's class path and
   * {@code -Xmx256m}; standard error is merged into standard out.
   */
  public static ChildJvm start(Class<?> mainClass, List<String> args) {
    return start(mainClass, args, List.of());
  }

  /**
   * As {@link #start(Class, List)}, with {@code jvmOptions} (for example {@link #SHORT_LIVED})
   * placed before the class path.
   */
  public static ChildJvm start(Class<?> mainClass, List<String> args, List<String> jvmOptions) {
    Objects.requireNonNull(mainClass, "mainClass");
    List<String> command = new ArrayList<>();
    command.add(Path.of(System.getProperty("java.home"), "bin", "java").toString());
    command.add("-Xmx256m");
    command.addAll(jvmOptions);
    command.add("-cp");
    command.add(System.getProperty("java.class.path"));
    command.add(mainClass.getName());
    command.addAll(args);
    try {
      Process process = new ProcessBuilder(command).redirectErrorStream(true).start();
      return new ChildJvm(process, mainClass.getSimpleName() + "-" + process.pid());
    } catch (IOException e) {
      throw new UncheckedIOException("cannot start a child JVM for " + mainClass.getName(), e);
    }
  }

  private void pump(String name) {
    try (BufferedReader in = new BufferedReader(
        new InputStreamReader(process.getInputStream(), StandardCharsets.UTF_8))) {
      for (String line = in.readLine(); line != null; line = in.readLine()) {
        lines.add(line);
        unread.add(line);
        System.out.println("[" + name + "] " + line);
      }
    } catch (IOException e) {
      // the child died; what it printed is kept
    }
  }

  /**
   * Waits for a line matching {@code match}; returns it.
   *
   * @throws AssertionError if the child exits or the timeout passes first
   */
  public String awaitLine(Predicate<String> match, Duration timeout) throws InterruptedException {
    long deadline = System.nanoTime() + timeout.toNanos();
    while (true) {
      long left = deadline - System.nanoTime();
      String line = unread.poll(Math.max(0, Math.min(left, TimeUnit.MILLISECONDS.toNanos(200))), TimeUnit.NANOSECONDS);
      if (line != null && match.test(line)) {
        return line;
      }
      if (line == null && !process.isAlive() && unread.isEmpty()) {
        throw new AssertionError("child exited with " + process.exitValue() + " before the expected line; output:\n"
            + String.join("\n", lines));
      }
      if (left <= 0) {
        throw new AssertionError("no expected line from the child within " + timeout + "; output:\n"
            + String.join("\n", lines));
      }
    }
  }

  /** Waits for the {@linkplain CrashHooks#MARKER crash marker}; returns the line. */
  public String awaitCrashPoint(Duration timeout) throws InterruptedException {
    return awaitLine(line -> line.startsWith(CrashHooks.MARKER), timeout);
  }

  /** Kills the child with SIGKILL (no shutdown hooks run) and waits for it to be gone. */
  public int killHard() throws InterruptedException {
    process.destroyForcibly();
    return process.waitFor();
  }

  /** Waits for the child to exit by itself; returns its exit code. */
  public int awaitExit(Duration timeout) throws InterruptedException {
    if (!process.waitFor(timeout.toMillis(), TimeUnit.MILLISECONDS)) {
      process.destroyForcibly();
      throw new AssertionError("child did not exit within " + timeout + "; output:\n" + String.join("\n", lines));
    }
    reader.join(TimeUnit.SECONDS.toMillis(5));
    return process.exitValue();
  }

  /**
   * Waits at most {@code timeout} for the child to exit by itself; returns whether it did (a child
   * still running is left running).
   */
  public boolean exitsWithin(Duration timeout) throws InterruptedException {
    return process.waitFor(timeout.toMillis(), TimeUnit.MILLISECONDS);
  }

  /** Every line the child printed so far. */
  public List<String> output() {
    return List.copyOf(lines);
  }

  /** Whether the child is still running. */
  public boolean isAlive() {
    return process.isAlive();
  }

  /** The child's process id. */
  public long pid() {
    return process.pid();
  }

  /** Kills the child if it is still running. */
  @Override
  public void close() {
    process.destroyForcibly();
  }
}
