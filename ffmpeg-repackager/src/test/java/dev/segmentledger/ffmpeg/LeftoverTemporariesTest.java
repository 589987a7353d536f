package dev.segmentledger.ffmpeg;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;

import dev.segmentledger.testkit.TestMedia;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.FileTime;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A process killed while repackaging leaves its temporary files beside the target. The re-run of
 * that target (the next process's) removes them, and old ones of other targets; outputs stay.
 */
class LeftoverTemporariesTest {
  @TempDir static Path work;
  private static Path original;

  @TempDir Path dir;

  @BeforeAll
  static void recordAChunk() throws Exception {
    Cli.requireFfmpeg();
    original = TestMedia.recordChunks(Cli.FFMPEG, work, Duration.ofSeconds(2), Duration.ofSeconds(2)).get(0);
  }

  @Test
  void theReRunAfterAKillRemovesWhatTheKilledRunLeftAndKeepsEveryOutput() throws Exception {
    FfmpegRepackager repackager = FfmpegRepackager.builder().timeout(Duration.ofMinutes(1)).build();
    Path earlier = dir.resolve("0000000006.m4s");
    repackager.segment(original, 6, earlier);
    byte[] earlierBytes = Files.readAllBytes(earlier);
    // What a SIGKILL during the runs of segment 7 and of the init leaves: half-written temporaries.
    Path killedRemux = leftover(".0000000007.m4s.1234567890.segment-ledger-partial");
    Path killedWrite = leftover(".0000000007.m4s.42.segment-ledger-partial");
    Path otherFresh = leftover(".0000000009.m4s.77.segment-ledger-partial"); // may be a live run elsewhere
    Path otherOld = leftover(".init.mp4.5.segment-ledger-partial");
    Files.setLastModifiedTime(otherOld, FileTime.from(Instant.now().minus(Duration.ofMinutes(3))));

    Path target = dir.resolve("0000000007.m4s");
    repackager.segment(original, 7, target);

    assertEquals(Stream.of(earlier, target, otherFresh).sorted().toList(), files(),
        "killed run's and old temporaries gone");
    assertArrayEquals(earlierBytes, Files.readAllBytes(earlier), "an output is never touched");
    assertEquals(List.of(), Stream.of(killedRemux, killedWrite, otherOld).filter(Files::exists).toList());

    Path init = dir.resolve("init.mp4");
    leftover(".init.mp4.6.segment-ledger-partial");
    repackager.init(original, init);
    assertEquals(Stream.of(earlier, target, otherFresh, init).sorted().toList(), files());
  }

  private Path leftover(String name) throws Exception {
    return Files.write(dir.resolve(name), new byte[64 * 1024]);
  }

  private List<Path> files() throws Exception {
    try (Stream<Path> files = Files.list(dir)) {
      return files.sorted().toList();
    }
  }
}
