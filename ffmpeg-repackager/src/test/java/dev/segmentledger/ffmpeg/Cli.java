package dev.segmentledger.ffmpeg;

import static org.junit.jupiter.api.Assertions.fail;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.TimeUnit;

/** Runs ffmpeg tools from tests and insists that they are installed. Also used by integration-tests. */
public final class Cli {
  public static final Path FFMPEG = Path.of("ffmpeg");
  public static final Path FFPROBE = Path.of("ffprobe");

  private Cli() {}

  public record Result(int exit, String stdout, String stderr) {}

  /**
   * Fails (never skips) when ffmpeg or ffprobe is missing: these tests are the only proof that
   * the repackager's output plays.
   */
  public static void requireFfmpeg() {
    for (Path tool : List.of(FFMPEG, FFPROBE)) {
      try {
        if (run(List.of(tool.toString(), "-version")).exit() == 0) {
          continue;
        }
      } catch (IOException e) {
        // not installed: fall through
      }
      fail(tool + " is not installed or not on PATH; the ffmpeg-repackager tests need it: "
          + "apt-get install -y ffmpeg");
    }
  }

  /** Runs {@code command} to completion (at most 60 s), capturing its output in files. */
  public static Result run(List<String> command) throws IOException {
    Path out = Files.createTempFile("cli", ".out");
    Path err = Files.createTempFile("cli", ".err");
    try {
      Process process = new ProcessBuilder(command)
          .redirectInput(ProcessBuilder.Redirect.from(Path.of("/dev/null").toFile()))
          .redirectOutput(out.toFile())
          .redirectError(err.toFile())
          .start();
      if (!process.waitFor(60, TimeUnit.SECONDS)) {
        process.destroyForcibly();
        fail(command + " did not finish within 60 s");
      }
      return new Result(process.exitValue(), Files.readString(out), Files.readString(err));
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IOException("interrupted running " + command, e);
    } finally {
      Files.deleteIfExists(out);
      Files.deleteIfExists(err);
    }
  }
}
