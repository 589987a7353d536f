package dev.segmentledger.core.internal;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import dev.segmentledger.core.Reason;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * What the guard does when the kernel refuses {@code openat2}: at start (the first open of the root,
 * the probe) it opens by the Java 17 walk and says why in the INFO line; at a later open the file
 * fails with the guard's named reason and the guard keeps {@code openat2}. The kernel's answers are
 * staged through {@link BeneathOpener.Errnos}. Needs a JDK 22 or later on Linux (the tests run with
 * native access there); skipped elsewhere, where there is no {@code openat2} to refuse.
 */
class Openat2FallbackTest {
  private static final int EPERM = 1;
  private static final int EIO = 5;
  private static final int ENOSYS = 38;
  private static final String WALK = "files are opened by walking from the allowed root: ";

  @TempDir Path temp;
  private Path root;
  /** The lines the guards built here would log at start (the INFO line, logged once per JVM). */
  private final List<String> lines = new CopyOnWriteArrayList<>();
  private final List<PathGuard> guards = new ArrayList<>();

  @BeforeEach
  void setUp() throws IOException {
    assumeTrue(Runtime.version().feature() >= 22 && System.getProperty("os.name").equals("Linux")
        && !"false".equals(System.getProperty(BeneathOpener.ENABLED_PROPERTY)), "openat2 needs JDK 22+ on Linux");
    root = Files.createDirectories(temp.resolve("rec"));
  }

  @AfterEach
  void closeGuards() {
    guards.forEach(PathGuard::close);
  }

  @ParameterizedTest(name = "errno {0}")
  @ValueSource(ints = {ENOSYS, EPERM})
  void openat2RefusedAtStartOpensByTheWalkAndTheLineNamesTheRefusal(int errno) throws Exception {
    PathGuard guard = guard((atStart, kernel) -> atStart ? errno : kernel);
    assertFalse(guard.opensBeneath(), "openat2 refused at start: the walk");
    assertEquals(1, lines.size(), lines.toString());
    String line = lines.get(0);
    assertTrue(line.startsWith(WALK + "openat2 failed on the allowed root: "), line);
    assertTrue(line.contains(errno == ENOSYS ? "ENOSYS" : "EPERM"), line);
    Path file = Files.writeString(Files.createDirectories(root.resolve("b/720p")).resolve("1.ts"), "inside");
    String identity = guard.check(file).identity();
    try (VerifiedFile verified = guard.open(file, 6, identity)) {
      assertEquals("inside", new String(verified.openStream().readAllBytes()));
    }
  }

  /**
   * A symlink out of the root, {@code ..} out of it, and a registered directory swapped for a
   * symlink out of the root: the walk chosen at start refuses each with the reason {@code openat2}
   * gives.
   */
  @ParameterizedTest(name = "errno {0}")
  @ValueSource(ints = {ENOSYS, EPERM})
  void afterARefusalAtStartHostilePathsAreRefusedAsWithOpenat2(int errno) throws Exception {
    PathGuard walk = guard((atStart, kernel) -> atStart ? errno : kernel);
    PathGuard openat2 = guard(BeneathOpener.Errnos.KERNEL);
    assertFalse(walk.opensBeneath());
    assertTrue(openat2.opensBeneath());
    Path outside = Files.createDirectories(temp.resolve("outside"));
    Files.writeString(outside.resolve("a.ts"), "secret");
    Path link = Files.createSymbolicLink(root.resolve("link"), outside);
    Path registered = Files.writeString(Files.createDirectories(root.resolve("b")).resolve("a.ts"), "inside");
    walk.check(registered);
    Files.move(root.resolve("b"), temp.resolve("b-away"));
    Files.createSymbolicLink(root.resolve("b"), outside);
    for (Path hostile : List.of(link.resolve("a.ts"), root.resolve("../outside/a.ts"), registered)) {
      Reason withOpenat2 = openReason(openat2, hostile);
      assertEquals(Reason.OUTSIDE_ROOT, withOpenat2, hostile.toString());
      assertEquals(withOpenat2, openReason(walk, hostile), hostile.toString());
    }
  }

  /**
   * The existing contract for a failed open of an unchanged path (OpenFailures): UNREADABLE, which
   * is retried. The guard does not turn to the walk, for that file or later ones.
   */
  @ParameterizedTest(name = "errno {0}")
  @ValueSource(ints = {EPERM, EIO, ENOSYS})
  void anErrnoAtALaterOpenFailsThatFileAndTheGuardKeepsOpenat2(int errno) throws Exception {
    AtomicInteger staged = new AtomicInteger();
    AtomicInteger laterCalls = new AtomicInteger();
    PathGuard guard = guard((atStart, kernel) -> {
      if (atStart) {
        return kernel;
      }
      laterCalls.incrementAndGet();
      return staged.get() != 0 ? staged.get() : kernel;
    });
    assertTrue(guard.opensBeneath());
    assertEquals(List.of("files are opened with openat2 from the allowed root"), lines);
    Path file = Files.writeString(Files.createDirectories(root.resolve("b/720p")).resolve("1.ts"), "inside");
    String identity = guard.check(file).identity();

    staged.set(errno);
    FileRejectedException e = assertThrows(FileRejectedException.class, () -> guard.open(file, 6, identity));
    assertEquals(Reason.UNREADABLE, e.reason(), e.getMessage());
    assertTrue(e.getMessage().startsWith("cannot open " + file), e.getMessage());
    assertEquals(1, laterCalls.get(), "one openat2, no retry by the walk");

    staged.set(0);
    assertTrue(guard.opensBeneath());
    try (VerifiedFile verified = guard.open(file, 6, identity)) {
      assertEquals("inside", new String(verified.openStream().readAllBytes()));
    }
    assertEquals(2, laterCalls.get(), "the next open is openat2 again");
    assertEquals(1, lines.size(), "no other line: " + lines);
  }

  @Test
  void withoutAStagedRefusalTheGuardOpensWithOpenat2() {
    assertTrue(guard(BeneathOpener.Errnos.KERNEL).opensBeneath());
    assertEquals(List.of("files are opened with openat2 from the allowed root"), lines);
  }

  /** A guard on the root whose {@code openat2} calls see {@code errnos}, its start line added to {@link #lines}. */
  private PathGuard guard(BeneathOpener.Errnos errnos) {
    PathGuard guard = new PathGuard(root, () -> { }, (reopened, change) -> { },
        (realRoot, key) -> BeneathOpener.forRoot(realRoot, key, errnos, lines::add));
    guards.add(guard);
    return guard;
  }

  private static Reason openReason(PathGuard guard, Path file) {
    FileRejectedException e = assertThrows(FileRejectedException.class, () -> guard.open(file, 6));
    return e.reason();
  }
}
