package dev.segmentledger.testkit;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Locale;
import java.util.Objects;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;

/**
 * A helper for tests and demos: records a synthetic live broadcast with ffmpeg, the way a recorder
 * would, as consecutive MPEG-TS chunks, for the ffmpeg repackager to work on.
 *
 * <p>The broadcast is a 640x360 25 fps test pattern with a 440 Hz tone, encoded as H.264
 * (libx264 {@code ultrafast}, a keyframe every 2 s and at every chunk start) and mono AAC, split
 * into chunks of a fixed duration with continuous timestamps, as a recorder closing one file every
 * few seconds produces. Nothing is downloaded: ffmpeg generates the media. A 60-second broadcast
 * takes a few seconds to record.
 */
public final class TestMedia {
  private static final int FRAME_RATE = 25;
  private static final String CHUNK_PREFIX = "chunk";
  private static final int STDERR_TAIL_BYTES = 8 * 1024;

  private TestMedia() {}

  /**
   * Records {@code total} of broadcast into {@code dir} as chunks of {@code chunk} each
   * ({@code chunk00000.ts}, {@code chunk00001.ts}, ...), using {@code ffmpeg} (a path or a name on
   * {@code PATH}).
   *
   * @return the chunks in sequence order
   * @throws IOException if ffmpeg cannot be started, fails (the message carries its stderr tail)
   *     or times out, or if {@code dir} cannot be written
   */
  public static List<Path> recordChunks(Path ffmpeg, Path dir, Duration total, Duration chunk)
      throws IOException {
    Objects.requireNonNull(ffmpeg, "ffmpeg");
    requirePositive("total", total);
    requirePositive("chunk", chunk);
    Files.createDirectories(dir);
    String chunkSeconds = seconds(chunk);
    runFfmpeg(ffmpeg, List.of(
        ffmpeg.toString(), "-nostdin", "-hide_banner", "-loglevel", "error", "-y",
        "-f", "lavfi", "-i", "testsrc=size=640x360:rate=" + FRAME_RATE,
        "-f", "lavfi", "-i", "sine=frequency=440:sample_rate=48000",
        "-t", seconds(total),
        "-map", "0:v", "-map", "1:a",
        "-c:v", "libx264", "-preset", "ultrafast", "-pix_fmt", "yuv420p",
        "-g", String.valueOf(2 * FRAME_RATE), "-keyint_min", String.valueOf(2 * FRAME_RATE), "-sc_threshold", "0",
        "-force_key_frames", "expr:gte(t,n_forced*" + chunkSeconds + ")",
        "-c:a", "aac", "-b:a", "64k", "-ac", "1",
        "-map_metadata", "-1", "-fflags", "+bitexact", "-flags", "+bitexact",
        "-f", "segment", "-segment_time", chunkSeconds, "-segment_format", "mpegts",
        "-reset_timestamps", "0",
        dir.resolve(CHUNK_PREFIX + "%05d.ts").toString()), total.multipliedBy(2).plusMinutes(1));
    try (Stream<Path> files = Files.list(dir)) {
      return files
          .filter(f -> f.getFileName().toString().matches(CHUNK_PREFIX + "\\d{5}\\.ts"))
          .sorted()
          .toList();
    }
  }

  private static void runFfmpeg(Path ffmpeg, List<String> command, Duration timeout) throws IOException {
    Path stderr = Files.createTempFile("test-media", ".stderr");
    try {
      Process process = new ProcessBuilder(command)
          .redirectInput(ProcessBuilder.Redirect.from(Path.of("/dev/null").toFile()))
          .redirectOutput(ProcessBuilder.Redirect.DISCARD)
          .redirectError(stderr.toFile())
          .start();
      if (!process.waitFor(timeout.toMillis(), TimeUnit.MILLISECONDS)) {
        process.destroyForcibly();
        throw new IOException("recording test media with " + ffmpeg + " timed out after " + timeout);
      }
      if (process.exitValue() != 0) {
        throw new IOException("recording test media with " + ffmpeg + " failed: exit " + process.exitValue()
            + "; stderr: " + tail(stderr));
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IOException("interrupted recording test media with " + ffmpeg, e);
    } finally {
      Files.deleteIfExists(stderr);
    }
  }

  private static String tail(Path file) throws IOException {
    byte[] bytes = Files.readAllBytes(file);
    int from = Math.max(0, bytes.length - STDERR_TAIL_BYTES);
    return new String(bytes, from, bytes.length - from, StandardCharsets.UTF_8).strip();
  }

  private static void requirePositive(String name, Duration value) {
    Objects.requireNonNull(value, name);
    if (value.isNegative() || value.isZero()) {
      throw new IllegalArgumentException(name + " must be positive, got " + value);
    }
  }

  private static String seconds(Duration duration) {
    return String.format(Locale.ROOT, "%.3f", duration.toNanos() / 1e9);
  }
}
