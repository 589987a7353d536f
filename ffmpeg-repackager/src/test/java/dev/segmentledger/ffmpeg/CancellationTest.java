package dev.segmentledger.ffmpeg;

import static java.nio.file.StandardWatchEventKinds.ENTRY_CREATE;
import static java.nio.file.StandardWatchEventKinds.ENTRY_MODIFY;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.segmentledger.core.spi.RepackageException;
import dev.segmentledger.core.spi.RepackagedFile;
import dev.segmentledger.core.spi.Repackager;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.WatchEvent;
import java.nio.file.WatchKey;
import java.nio.file.WatchService;
import java.nio.file.attribute.PosixFilePermissions;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.stream.Stream;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The engine cancels a stalled or taken-over attempt by interrupting its worker thread, and
 * watches the growth of the repackager's temporaries as its progress. A call writes only its target
 * and temporaries of it; an interrupt during a long remux ends ffmpeg and the processes it
 * started, deletes the temporaries, keeps the interrupt flag and says the call was cancelled.
 */
class CancellationTest {
  private static final long EVENT_WAIT_SECONDS = 30;

  @TempDir static Path work;
  private static Path original;
  /** The real ffmpeg reading its input at 4x real time, as the child of a shell. */
  private static Path slowFfmpeg;

  @TempDir Path dir;

  @BeforeAll
  static void recordALongOriginal() throws IOException {
    Cli.requireFfmpeg();
    original = LongOriginals.recordTs(work.resolve("ten-minutes.ts"), Duration.ofMinutes(10));
    slowFfmpeg = Files.writeString(work.resolve("ffmpeg-at-4x"), """
        #!/bin/sh
        %s -readrate 4 "$@"
        """.formatted(Cli.FFMPEG));
    Files.setPosixFilePermissions(slowFfmpeg, PosixFilePermissions.fromString("rwx------"));
  }

  @Test
  void anInterruptDuringALongRemuxKillsTheProcessTreeAndLeavesNoTemporary() throws Exception {
    FfmpegRepackager repackager = FfmpegRepackager.builder().ffmpeg(slowFfmpeg).ffprobe(Cli.FFPROBE)
        .timeout(Duration.ofMinutes(5)).build();
    Path target = dir.resolve("0000000000.m4s");
    CompletableFuture<RepackageException> failure = new CompletableFuture<>();
    AtomicBoolean flagRestored = new AtomicBoolean();
    Thread worker = new Thread(() -> {
      try {
        repackager.segment(original, 0, target);
        failure.completeExceptionally(new AssertionError("segment() returned"));
      } catch (RepackageException e) {
        flagRestored.set(Thread.currentThread().isInterrupted());
        failure.complete(e);
      }
    }, "cancelled-worker");

    List<ProcessHandle> run;
    try (WatchService watcher = dir.getFileSystem().newWatchService()) {
      dir.register(watcher, ENTRY_MODIFY);
      worker.start();
      awaitGrowth(watcher, target, 2); // ffmpeg writes its output progressively, fragment by fragment
      run = ProcessHandle.current().descendants()
          .filter(p -> p.info().commandLine().orElse("").contains(dir.toString())).toList();
      assertEquals(2, run.size(), "the shell and its ffmpeg child: " + describe(run));
      worker.interrupt();
    }
    RepackageException e = failure.get(EVENT_WAIT_SECONDS, TimeUnit.SECONDS);
    worker.join();

    assertTrue(e.getMessage().contains(slowFfmpeg + " cancelled: the thread was interrupted; process killed"),
        e.getMessage());
    assertTrue(flagRestored.get(), "interrupt flag restored");
    assertEquals(List.of(), run.stream().filter(ProcessHandle::isAlive).toList(), "no process of the run is left");
    assertEquals(List.of(), files(), "neither a temporary nor the target");
  }

  @Test
  void aCallCreatesNothingButItsTargetAndTemporariesOfIt() throws Exception {
    FfmpegRepackager repackager = FfmpegRepackager.builder().ffmpeg(Cli.FFMPEG).timeout(Duration.ofMinutes(1)).build();
    Path target = dir.resolve("0000000000.m4s");
    Path init = dir.resolve("init.mp4");
    Set<String> created = new TreeSet<>();
    try (WatchService watcher = dir.getFileSystem().newWatchService()) {
      dir.register(watcher, ENTRY_CREATE);
      RepackagedFile segment = repackager.segment(original, 0, target);
      repackager.init(original, init);
      Path marker = Files.createFile(dir.resolve("marker")); // events arrive in order: after it, none is missing
      for (Path name = null; !marker.getFileName().equals(name); ) {
        WatchKey key = watcher.poll(EVENT_WAIT_SECONDS, TimeUnit.SECONDS);
        assertNotNull(key, "no event within " + EVENT_WAIT_SECONDS + " s");
        for (WatchEvent<?> event : key.pollEvents()) {
          name = (Path) event.context();
          created.add(name.toString());
        }
        key.reset();
      }
      assertTrue(segment.sizeBytes() > 1_000_000, segment.toString());
    }
    created.remove("marker");

    List<String> others = created.stream().filter(name -> !name.equals(target.getFileName().toString())
        && !name.equals(init.getFileName().toString())
        && !Repackager.isTemporaryOf(dir.resolve(name), target)
        && !Repackager.isTemporaryOf(dir.resolve(name), init)).toList();
    assertEquals(List.of(), others, "created: " + created);
    // the segment: ffmpeg's remuxed file and the copy that became the target; the same for the init
    assertEquals(6, created.size(), "created: " + created);
    assertEquals(Stream.of(target, init, dir.resolve("marker")).sorted().toList(), files());
  }

  /** Waits until a temporary of {@code target} has been seen at {@code sizes} different sizes. */
  private void awaitGrowth(WatchService watcher, Path target, int sizes) throws Exception {
    Set<Long> seen = new TreeSet<>();
    while (seen.size() < sizes) {
      WatchKey key = watcher.poll(EVENT_WAIT_SECONDS, TimeUnit.SECONDS);
      assertNotNull(key, "a temporary of " + target + " did not grow within " + EVENT_WAIT_SECONDS + " s; seen " + seen);
      for (WatchEvent<?> event : key.pollEvents()) {
        Path file = dir.resolve((Path) event.context());
        if (Repackager.isTemporaryOf(file, target) && Files.exists(file) && Files.size(file) > 0) {
          seen.add(Files.size(file));
        }
      }
      key.reset();
    }
  }

  private List<Path> files() throws IOException {
    try (Stream<Path> files = Files.list(dir)) {
      return files.sorted().toList();
    }
  }

  private static List<String> describe(List<ProcessHandle> processes) {
    List<String> described = new ArrayList<>();
    processes.forEach(p -> described.add(p.pid() + " " + p.info().commandLine().orElse("?")));
    return described;
  }
}
