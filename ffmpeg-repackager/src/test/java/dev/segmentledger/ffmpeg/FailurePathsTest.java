package dev.segmentledger.ffmpeg;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.segmentledger.core.spi.RepackageException;
import dev.segmentledger.testkit.TestMedia;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Arrays;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.atomic.AtomicBoolean;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Every failure becomes a RepackageException that says why, and never leaves a partial target. */
class FailurePathsTest {
  @TempDir Path dir;

  @BeforeAll
  static void ffmpegInstalled() {
    Cli.requireFfmpeg();
  }

  @Test
  void nonMediaFileFailsWithFfmpegsStderrAndKeepsTheOldTarget() throws Exception {
    Path original = Files.writeString(dir.resolve("notes.ts"), "this is not a transport stream\n");
    Path target = Files.writeString(dir.resolve("0000000000.m4s"), "previous content");
    FfmpegRepackager repackager = FfmpegRepackager.builder().build();

    RepackageException e = assertThrows(RepackageException.class, () -> repackager.segment(original, 0, target));

    assertTrue(e.getMessage().contains("Invalid data found when processing input"), e.getMessage());
    assertTrue(e.getMessage().contains("exited with"), e.getMessage());
    assertEquals("previous content", Files.readString(target));
    assertEquals(sorted(original, target), sortedFiles(), "no temporary files left behind");
  }

  @Test
  void missingBinaryIsNamed() throws Exception {
    Path original = Files.writeString(dir.resolve("chunk.ts"), "x");
    Path missing = dir.resolve("no-such-ffmpeg");
    FfmpegRepackager repackager = FfmpegRepackager.builder().ffmpeg(missing).build();

    RepackageException e = assertThrows(RepackageException.class, () -> repackager.init(original, dir.resolve("init.mp4")));

    // ffprobe is looked up beside the configured ffmpeg, so that is the first binary that is missing
    assertTrue(e.getMessage().contains(dir.resolve("ffprobe").toString()), e.getMessage());
    assertTrue(e.getMessage().contains("cannot run"), e.getMessage());
  }

  @Test
  void missingFfmpegBinaryIsNamed() throws Exception {
    Path original = TestMedia.recordChunks(Cli.FFMPEG, dir.resolve("rec"), Duration.ofSeconds(1), Duration.ofSeconds(1)).get(0);
    FfmpegRepackager repackager = FfmpegRepackager.builder()
        .ffmpeg(Path.of("segment-ledger-no-such-ffmpeg")).ffprobe(Cli.FFPROBE).build();

    RepackageException e = assertThrows(RepackageException.class, () -> repackager.segment(original, 0, dir.resolve("0.m4s")));

    assertTrue(e.getMessage().contains("cannot run segment-ledger-no-such-ffmpeg"), e.getMessage());
    assertTrue(Files.notExists(dir.resolve("0.m4s")));
  }

  @Test
  void failedRemuxLeavesNeitherTargetNorTemporaryFile() throws Exception {
    Path original = TestMedia.recordChunks(Cli.FFMPEG, dir.resolve("rec"), Duration.ofSeconds(1), Duration.ofSeconds(1)).get(0);
    Path target = dir.resolve("0000000000.m4s");
    FfmpegRepackager repackager = FfmpegRepackager.builder()
        .ffmpeg(Path.of("/bin/false")).ffprobe(Cli.FFPROBE).build(); // probe succeeds, remux exits 1

    RepackageException e = assertThrows(RepackageException.class, () -> repackager.segment(original, 0, target));

    assertTrue(e.getMessage().contains("/bin/false exited with 1"), e.getMessage());
    assertEquals(sorted(dir.resolve("rec")), sortedFiles(), "neither target nor temporary files");
  }

  @Test
  void missingOriginalIsReported() {
    FfmpegRepackager repackager = FfmpegRepackager.builder().build();
    Path original = dir.resolve("gone.ts");

    RepackageException e = assertThrows(RepackageException.class, () -> repackager.segment(original, 0, dir.resolve("0.m4s")));

    assertTrue(e.getMessage().contains(original.toString()), e.getMessage());
  }

  @Test
  void hangingProcessIsKilledAtTheTimeout() throws Exception {
    Path fifo = fifo(); // ffprobe blocks opening a FIFO that nobody writes
    FfmpegRepackager repackager = FfmpegRepackager.builder().timeout(Duration.ofMillis(300)).build();

    RepackageException e = assertThrows(RepackageException.class, () -> repackager.segment(fifo, 0, dir.resolve("0.m4s")));

    assertTrue(e.getMessage().contains("timed out after PT0.3S"), e.getMessage());
  }

  @Test
  void interruptKillsTheProcessAndRestoresTheFlag() throws Exception {
    Path fifo = fifo();
    FfmpegRepackager repackager = FfmpegRepackager.builder().timeout(Duration.ofMinutes(5)).build();
    AtomicBoolean flagRestored = new AtomicBoolean();
    CompletableFuture<RepackageException> failure = new CompletableFuture<>();
    Thread worker = new Thread(() -> {
      try {
        repackager.segment(fifo, 0, dir.resolve("0.m4s"));
        failure.completeExceptionally(new AssertionError("segment() returned"));
      } catch (RepackageException e) {
        flagRestored.set(Thread.currentThread().isInterrupted());
        failure.complete(e);
      }
    });
    worker.start();
    worker.interrupt(); // whether it is already waiting or not, the flag makes the wait fail
    worker.join(Duration.ofSeconds(30).toMillis());

    // "cancelled: the thread was interrupted; process killed", or, if the interrupt came first,
    // "cancelled before it started: the thread is interrupted"
    String message = failure.get().getMessage();
    assertTrue(message.contains("ffprobe cancelled") && message.contains("interrupted"), message);
    assertTrue(flagRestored.get(), "interrupt flag restored");
  }

  @Test
  void builderRejectsNonPositiveTimeout() {
    assertThrows(IllegalArgumentException.class, () -> FfmpegRepackager.builder().timeout(Duration.ZERO));
  }

  @Test
  void theTimeoutIsExposed() {
    assertEquals(Optional.of(Duration.ofMinutes(2)), FfmpegRepackager.builder().build().timeout());
    assertEquals(Optional.of(Duration.ofSeconds(30)),
        FfmpegRepackager.builder().timeout(Duration.ofSeconds(30)).build().timeout());
  }

  private Path fifo() throws Exception {
    Path fifo = dir.resolve("live.ts");
    Cli.Result made = Cli.run(List.of("mkfifo", fifo.toString()));
    assertEquals(0, made.exit(), made.stderr());
    return fifo;
  }

  private static List<Path> sorted(Path... files) {
    return Arrays.stream(files).sorted().toList();
  }

  private List<Path> sortedFiles() throws Exception {
    try (var files = Files.list(dir)) {
      return files.sorted().toList();
    }
  }
}
