package dev.segmentledger.core.internal;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import dev.segmentledger.core.Reason;
import java.io.IOException;
import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class PathGuardTest {
  @TempDir Path temp;
  private Path root;
  private PathGuard guard;

  @BeforeEach
  void setUp() throws IOException {
    root = Files.createDirectories(temp.resolve("rec"));
    guard = new PathGuard(root);
  }

  @Test
  void acceptsARegularFileInsideTheRoot() throws Exception {
    Path file = Files.writeString(root.resolve("a.ts"), "hello");
    PathGuard.Checked checked = guard.check(file);
    assertEquals(file.toRealPath(), checked.realPath());
    assertEquals(5, checked.size());
  }

  @Test
  void resolvesRelativePathsAgainstTheRoot() throws Exception {
    Files.writeString(root.resolve("a.ts"), "x");
    assertEquals(root.resolve("a.ts").toRealPath(), guard.check(Path.of("a.ts")).realPath());
  }

  @Test
  void refusesDotDotEscape() throws Exception {
    Files.writeString(temp.resolve("secret"), "x");
    assertReason(Reason.OUTSIDE_ROOT, root.resolve("../secret"));
  }

  @Test
  void refusesSiblingDirectorySharingTheRootsNameAsPrefix() throws Exception {
    Path sibling = Files.createDirectories(temp.resolve("rec-evil"));
    assertReason(Reason.OUTSIDE_ROOT, Files.writeString(sibling.resolve("a.ts"), "x"));
  }

  @Test
  void refusesSymlinkToOutside() throws Exception {
    Path outside = Files.writeString(temp.resolve("outside.ts"), "x");
    assertReason(Reason.OUTSIDE_ROOT, Files.createSymbolicLink(root.resolve("link.ts"), outside));
  }

  @Test
  void refusesDirectoriesAndMissingFiles() throws Exception {
    assertReason(Reason.NOT_REGULAR_FILE, Files.createDirectories(root.resolve("dir")));
    assertReason(Reason.MISSING_FILE, root.resolve("nope.ts"));
  }

  @Test
  void refusesSymlinkLoop() throws Exception {
    Files.createSymbolicLink(root.resolve("a"), root.resolve("b"));
    Files.createSymbolicLink(root.resolve("b"), root.resolve("a"));
    assertReason(Reason.NOT_REGULAR_FILE, root.resolve("a"));
  }

  @Test
  void openVerifiesTheRegisteredSizeAndReadsExactlyIt() throws Exception {
    Path file = Files.writeString(root.resolve("a.ts"), "hello");
    FileRejectedException e = assertThrows(FileRejectedException.class, () -> guard.open(file, 4));
    assertEquals(Reason.FILE_GREW, e.reason());
    try (VerifiedFile verified = guard.open(file, 5); InputStream in = verified.openStream();
        InputStream again = verified.openStream()) {
      assertEquals("hello", new String(in.readAllBytes()));
      assertEquals("hello", new String(again.readAllBytes()));
    }
  }

  @Test
  void refusesARootThatDoesNotExist() {
    assertThrows(RuntimeException.class, () -> new PathGuard(temp.resolve("missing")));
  }

  private void assertReason(Reason expected, Path file) {
    FileRejectedException e = assertThrows(FileRejectedException.class, () -> guard.check(file));
    assertEquals(expected, e.reason(), e.getMessage());
  }
}
