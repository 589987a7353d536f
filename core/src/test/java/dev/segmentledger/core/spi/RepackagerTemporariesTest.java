package dev.segmentledger.core.spi;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.FileTime;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** A repackager's temporary files, through {@link Repackager}'s static helpers and the deprecated former names. */
class RepackagerTemporariesTest {
  private static final Duration GRACE = Duration.ofMinutes(4);

  @TempDir Path dir;

  @Test
  void aTemporaryIsAHiddenSiblingNamedAfterItsTarget() throws Exception {
    Path target = dir.resolve("0000000007.m4s");
    Path temp = Repackager.createTemporaryBeside(target);
    Path other = Repackager.createTemporaryBeside(target);

    assertEquals(dir, temp.getParent());
    assertNotEquals(temp, other);
    assertTrue(temp.getFileName().toString().matches("\\.0000000007\\.m4s\\.\\d+\\.segment-ledger-partial"), temp::toString);
    assertTrue(Repackager.isTemporaryOf(temp, target));
    assertFalse(Repackager.isTemporaryOf(temp, dir.resolve("0000000008.m4s")));
    assertFalse(Repackager.isTemporaryOf(temp, dir.resolve("0000000007")));
    assertEquals(0, Files.size(temp));
  }

  @Test
  void noOutputNameOfTheLedgerIsEverTakenForATemporary() {
    for (String name : List.of("0000000007.m4s", "init.mp4", "0000000007.ts", "x.segment-ledger-partial",
        ".segment-ledger-partial", ".hidden", "playback")) {
      assertFalse(Repackager.isTemporary(dir.resolve(name)), name);
    }
    assertThrows(IllegalArgumentException.class,
        () -> Repackager.createTemporaryBeside(dir.resolve(".a.1.segment-ledger-partial")));
    assertThrows(IllegalArgumentException.class,
        () -> Repackager.cleanTemporariesBeside(dir.resolve(".a.1.segment-ledger-partial"), GRACE));
  }

  /**
   * A killed run left temporaries: the target's own (fresh, from the run being redone), another
   * target's fresh one (a live run elsewhere) and another's old one. Outputs and look-alikes stay.
   */
  @Test
  void cleaningRemovesTheTargetsLeftoversAndOldOnesOnlyAndNeverAnOutput() throws Exception {
    Path target = dir.resolve("0000000007.m4s");
    Path own = Files.writeString(dir.resolve(".0000000007.m4s.123.segment-ledger-partial"), "half");
    Path ownOld = old(Files.writeString(dir.resolve(".0000000007.m4s.9.segment-ledger-partial"), "half"));
    Path othersFresh = Files.writeString(dir.resolve(".0000000008.m4s.456.segment-ledger-partial"), "live");
    Path othersOld = old(Files.writeString(dir.resolve(".init.mp4.789.segment-ledger-partial"), "dead"));
    List<Path> kept = List.of(
        old(Files.writeString(target, "previous output")),
        old(Files.writeString(dir.resolve("0000000006.m4s"), "output")),
        old(Files.writeString(dir.resolve("init.mp4"), "output")),
        old(Files.writeString(dir.resolve(".hidden.tmp"), "someone else's")),
        old(Files.writeString(dir.resolve("0000000006.m4s.segment-ledger-partial"), "not hidden")),
        old(Files.createDirectory(dir.resolve(".d.1.segment-ledger-partial"))),
        Files.createSymbolicLink(dir.resolve(".0000000007.m4s.5.segment-ledger-partial"), dir.resolve("init.mp4")),
        othersFresh);

    assertEquals(3, Repackager.cleanTemporariesBeside(target, GRACE));

    for (Path gone : List.of(own, ownOld, othersOld)) {
      assertFalse(Files.exists(gone), gone::toString);
    }
    try (Stream<Path> files = Files.list(dir)) {
      assertEquals(kept.stream().sorted().toList(), files.sorted().toList());
    }
    assertEquals("previous output", Files.readString(target));
    assertEquals(0, Repackager.cleanTemporariesBeside(dir.resolve("missing/0000000001.m4s"), GRACE));
  }

  private static Path old(Path file) throws Exception {
    Files.setLastModifiedTime(file, FileTime.from(Instant.now().minus(GRACE).minusSeconds(60)));
    return file;
  }

  @Test
  @SuppressWarnings("deprecation")
  void theFormerNamesStillNameAndCleanTheSameFiles() throws Exception {
    Path target = dir.resolve("0000000009.m4s");
    Path temp = RepackagerTemporaryFiles.createBeside(target);
    assertTrue(Repackager.isTemporaryOf(temp, target));
    assertTrue(RepackagerTemporaryFiles.isTemporaryOf(temp, target));
    assertEquals(Repackager.TEMPORARY_SUFFIX, RepackagerTemporaryFiles.SUFFIX);
    assertEquals(1, RepackagerTemporaryFiles.cleanBeside(target, GRACE));
    assertFalse(Files.exists(temp));
  }
}
