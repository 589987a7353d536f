package dev.segmentledger.core.internal;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.segmentledger.core.Printable;
import dev.segmentledger.core.Reason;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.net.UnixDomainSocketAddress;
import java.nio.channels.ServerSocketChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.nio.file.attribute.BasicFileAttributes;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class PathGuardTest {
  @TempDir Path temp;
  private Path root;
  private PathGuard guard;
  /** What {@link #guard} reported re-opening: the change of each re-opened root. */
  private final List<String> reopenings = new CopyOnWriteArrayList<>();

  @BeforeEach
  void setUp() throws IOException {
    root = Files.createDirectories(temp.resolve("rec"));
    guard = new PathGuard(root, () -> { }, (reopened, change) -> reopenings.add(change), openers());
  }

  @Test
  void opensWithOpenat2OnJava22AndLaterOnLinux() {
    boolean offered = Runtime.version().feature() >= 22 && System.getProperty("os.name").equals("Linux")
        && !"false".equals(System.getProperty(BeneathOpener.ENABLED_PROPERTY));
    assertEquals(openBeneath() && offered, guard.opensBeneath(),
        "on Linux with JDK 22 or later the tests run with native access, and the kernel must offer openat2");
  }

  @Test
  void acceptsARegularFileInsideTheRoot() throws Exception {
    Path file = Files.writeString(root.resolve("a.ts"), "hello");
    BoundaryCheck.Checked checked = guard.check(file);
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
    assertThrows(RuntimeException.class, () -> new PathGuard(temp.resolve("missing"), (r, c) -> { }));
  }

  @Test
  void followsSymlinkChainsThatStayInsideTheRoot() throws Exception {
    Path target = Files.writeString(Files.createDirectories(root.resolve("d")).resolve("a.ts"), "abc");
    Files.createSymbolicLink(root.resolve("one"), root.resolve("two"));
    Files.createSymbolicLink(root.resolve("two"), Path.of("d/a.ts"));
    assertEquals(target.toRealPath(), guard.check(root.resolve("one")).realPath());
  }

  @Test
  void resolvesDotDotAfterSymlinksNotLexically() throws Exception {
    // link/.. is the parent of the link's target (outside), not the root.
    Path outside = Files.createDirectories(temp.resolve("out/inner"));
    Files.writeString(temp.resolve("out/a.ts"), "x");
    Files.writeString(root.resolve("a.ts"), "x");
    Files.createSymbolicLink(root.resolve("link"), outside);
    assertReason(Reason.OUTSIDE_ROOT, root.resolve("link/../a.ts"));
  }

  @Test
  void refusesFifosAndSocketsWithoutOpeningThem() throws Exception {
    Path fifo = root.resolve("pipe.ts");
    assertEquals(0, new ProcessBuilder("mkfifo", fifo.toString()).start().waitFor());
    assertReason(Reason.NOT_REGULAR_FILE, fifo);
    assertOpenReason(Reason.NOT_REGULAR_FILE, fifo, 0); // would block forever if it were opened
    Path socket = root.resolve("socket.ts");
    try (ServerSocketChannel server = ServerSocketChannel.open(java.net.StandardProtocolFamily.UNIX)) {
      server.bind(UnixDomainSocketAddress.of(socket));
      assertReason(Reason.NOT_REGULAR_FILE, socket);
    }
  }

  @Test
  void aRegisteredFileGoneOrReplacedByAFifoIsRefusedAtOpenWithoutBlocking() throws Exception {
    Path file = Files.writeString(Files.createDirectories(root.resolve("cam")).resolve("a.ts"), "inside");
    String registered = guard.check(file).identity();
    Files.delete(file);
    FileRejectedException gone = assertThrows(FileRejectedException.class, () -> guard.open(file, 6, registered));
    assertEquals(Reason.MISSING_FILE, gone.reason(), gone.getMessage());
    assertEquals(0, new ProcessBuilder("mkfifo", file.toString()).start().waitFor());
    FileRejectedException fifo = assertThrows(FileRejectedException.class, () -> guard.open(file, 6, registered));
    assertEquals(Reason.NOT_REGULAR_FILE, fifo.reason(), fifo.getMessage());
  }

  @Test
  void opensNamesBeyondAsciiAsTheyWereRegistered() throws Exception {
    Path file = Files.writeString(Files.createDirectories(root.resolve("caméra")).resolve("séance-ü.ts"), "inside");
    String registered = guard.check(file).identity();
    try (VerifiedFile verified = guard.open(file, 6, registered)) {
      assertEquals("inside", new String(verified.openStream().readAllBytes()));
    }
  }

  @Test
  void aRegularFileUsedAsADirectoryIsUnreadable() throws Exception {
    Files.writeString(root.resolve("plain"), "x");
    assertReason(Reason.UNREADABLE, root.resolve("plain/a.ts"));
  }

  @Test
  void controlCharactersInNamesAreEscapedInMessages() {
    FileRejectedException e = assertThrows(FileRejectedException.class,
        () -> guard.check(root.resolve("evil\nINFO forged line.ts")));
    assertEquals(Reason.MISSING_FILE, e.reason());
    assertFalse(e.getMessage().contains("\n"), e.getMessage());
    assertTrue(e.getMessage().contains("evil\\u000aINFO"), e.getMessage());
  }

  @Test
  void bidiControlsLineSeparatorsAndNelInNamesAreEscapedInMessages() {
    FileRejectedException e = assertThrows(FileRejectedException.class,
        () -> guard.check(root.resolve("a\u202est.\u2028x\u0085y\u2066z.ts")));
    assertEquals(Reason.MISSING_FILE, e.reason());
    assertTrue(e.getMessage().contains("a\\u202est.\\u2028x\\u0085y\\u2066z.ts"), e.getMessage());
    e.getMessage().codePoints().forEach(cp -> assertTrue(Printable.isSafe(cp), e.getMessage()));
  }

  @Test
  void aFinalSymlinkSwappedInBetweenCheckAndOpenIsRefused() throws Exception {
    Path file = Files.writeString(root.resolve("a.ts"), "inside");
    Path outside = Files.writeString(temp.resolve("secret.ts"), "secret");
    PathGuard racing = racing(swap(() -> {
      Files.delete(file);
      Files.createSymbolicLink(file, outside);
    }));
    assertRaceReason(Reason.OUTSIDE_ROOT, racing, file, 6);
  }

  @Test
  void anIntermediateDirectorySwappedForASymlinkBetweenCheckAndOpenIsRefused() throws Exception {
    Path dir = Files.createDirectories(root.resolve("b1"));
    Path file = Files.writeString(dir.resolve("a.ts"), "inside");
    Path outside = Files.createDirectories(temp.resolve("elsewhere"));
    Files.writeString(outside.resolve("a.ts"), "secret");
    PathGuard racing = racing(swap(() -> {
      Files.move(dir, root.resolve("moved"));
      Files.createSymbolicLink(dir, outside);
    }));
    assertRaceReason(Reason.OUTSIDE_ROOT, racing, file, 6);
  }

  @Test
  void theOpenWalkNeverFollowsAnIntermediateSymlinkEvenToTheSameFile() throws Exception {
    // A hard link makes the redirected file identical by device and inode, so only the
    // O_NOFOLLOW walk (not the file key comparison) can notice the symlink.
    Path dir = Files.createDirectories(root.resolve("b1"));
    Path file = Files.writeString(dir.resolve("a.ts"), "inside");
    Path other = Files.createDirectories(root.resolve("other"));
    Files.createLink(other.resolve("a.ts"), file);
    PathGuard racing = racing(swap(() -> {
      Files.move(dir, root.resolve("moved"));
      Files.createSymbolicLink(dir, other);
    }));
    assertRaceReason(Reason.NOT_REGULAR_FILE, racing, file, 6);
  }

  /**
   * The walk checks the name, then opens it, then sees another file there (NOT_REGULAR_FILE);
   * openat2 checks the descriptor it opened, which is the replacement: not the registered file
   * (FILE_CHANGED). Either way the replacement is not uploaded in the registered file's place.
   */
  @Test
  void aFileReplacedBetweenCheckAndOpenIsRefusedEvenWithTheSameSize() throws Exception {
    Path file = Files.writeString(root.resolve("a.ts"), "inside");
    String registered = guard.check(file).identity();
    Path replacement = Files.writeString(root.resolve("b.ts"), "other!");
    PathGuard racing = racing(swap(() -> Files.move(replacement, file,
        java.nio.file.StandardCopyOption.REPLACE_EXISTING)));
    FileRejectedException e = assertThrows(FileRejectedException.class, () -> racing.open(file, 6, registered));
    assertEquals(racing.opensBeneath() ? Reason.FILE_CHANGED : Reason.NOT_REGULAR_FILE, e.reason(), e.getMessage());
  }

  @Test
  void theSizeIsReadAgainFromTheOpenFileAfterTheUpload() throws Exception {
    Path file = Files.writeString(root.resolve("a.ts"), "hello");
    try (VerifiedFile verified = guard.open(file, 5)) {
      Files.writeString(file, " world", StandardOpenOption.APPEND);
      assertEquals("hello", new String(verified.openStream().readAllBytes()), "reads the registered bytes only");
      FileRejectedException e = assertThrows(FileRejectedException.class, verified::verifyUnchanged);
      assertEquals(Reason.FILE_GREW, e.reason());
    }
    try (VerifiedFile verified = guard.open(Files.writeString(file, "hello"), 5)) {
      Files.writeString(file, "he");
      FileRejectedException e = assertThrows(FileRejectedException.class, verified::verifyUnchanged);
      assertEquals(Reason.FILE_SHRANK, e.reason());
    }
  }

  @Test
  void aRegisteredRealPathNowReachedThroughASymlinkInsideTheRootIsRefused() throws Exception {
    Path dir = Files.createDirectories(root.resolve("b1")).toRealPath();
    Path file = Files.writeString(dir.resolve("a.ts"), "inside");
    Path real = file.toRealPath();
    Path other = Files.createDirectories(root.resolve("other"));
    Files.move(file, other.resolve("a.ts"));
    Files.createSymbolicLink(real, other.resolve("a.ts"));
    assertOpenReason(Reason.NOT_REGULAR_FILE, real, 6);
  }

  @Test
  void pathsWithDotDotOrOutsideTheRootTakeTheFullCheckOnOpen() throws Exception {
    Path dir = Files.createDirectories(root.resolve("b1"));
    Files.writeString(dir.resolve("a.ts"), "inside");
    try (VerifiedFile verified = guard.open(root.resolve("b1/../b1/a.ts"), 6)) {
      assertEquals("inside", new String(verified.openStream().readAllBytes()));
    }
    Path outside = Files.writeString(temp.resolve("secret.ts"), "secret");
    assertOpenReason(Reason.OUTSIDE_ROOT, root.resolve("../secret.ts"), 6);
    assertOpenReason(Reason.OUTSIDE_ROOT, outside, 6);
  }

  /**
   * The check of a plain path below the root reads it through the held root without resolving
   * it; on every kind of path it must give what resolving gives: the same real path, size, file
   * key and identity, or the same reason. A link-free check that followed an intermediate symlink
   * would return the link's path instead of its target's real path.
   */
  @Test
  void theLinkFreeCheckAgreesWithTheResolvingCheckOnEveryKindOfPath() throws Exception {
    Path base = root.toRealPath();
    Path outside = Files.createDirectories(temp.resolve("outdir"));
    Files.writeString(outside.resolve("x.ts"), "outside");
    Files.writeString(base.resolve("a.ts"), "hello");
    Files.writeString(Files.createDirectories(base.resolve("d/e")).resolve("b.ts"), "nested");
    Files.writeString(base.resolve("empty.ts"), "");
    Files.createSymbolicLink(base.resolve("ln"), Path.of("d"));
    Files.createSymbolicLink(base.resolve("fl.ts"), Path.of("a.ts"));
    Files.createSymbolicLink(base.resolve("out.ts"), outside.resolve("x.ts"));
    Files.createSymbolicLink(base.resolve("od"), outside);
    Files.createSymbolicLink(base.resolve("dangling.ts"), Path.of("missing.ts"));
    Files.createSymbolicLink(base.resolve("loop1"), Path.of("loop2"));
    Files.createSymbolicLink(base.resolve("loop2"), Path.of("loop1"));
    assertEquals(0, new ProcessBuilder("mkfifo", base.resolve("pipe.ts").toString()).start().waitFor());
    String[] names = {"a.ts", "d/e/b.ts", "empty.ts", "ln/e/b.ts", "fl.ts", "out.ts", "od/x.ts", "d", "d/e",
        "nope.ts", "nodir/x.ts", "a.ts/x", "pipe.ts", "dangling.ts", "loop1", "d/../a.ts", "ln/../a.ts"};
    BoundaryCheck resolving = new BoundaryCheck(guard.root());
    assertEquals(base.resolve("d/e/b.ts"), guard.check(base.resolve("ln/e/b.ts")).realPath());
    for (boolean closed : new boolean[] {false, true}) {
      if (closed) {
        guard.close(); // no held root: every check resolves
      }
      for (String name : names) {
        Path path = Path.of(base + "/" + name); // as given: Path.of keeps "..", resolve would too
        assertEquals(outcome(resolving::check, path), outcome(guard::check, path),
            name + (closed ? " (closed guard)" : ""));
      }
    }
  }

  private interface Check {
    BoundaryCheck.Checked check(Path file) throws FileRejectedException;
  }

  /** The check's result, or the reason it refused the file. */
  private static Object outcome(Check check, Path file) {
    try {
      return check.check(file);
    } catch (FileRejectedException e) {
      return e.reason();
    }
  }

  @Test
  void aClosedGuardStillOpensThroughTheFullCheck() throws Exception {
    Path file = Files.writeString(root.resolve("a.ts"), "hello");
    guard.close();
    try (VerifiedFile verified = guard.open(file.toRealPath(), 5)) {
      assertEquals("hello", new String(verified.openStream().readAllBytes()));
    }
    assertOpenReason(Reason.FILE_SHRANK, file.toRealPath(), 6);
  }

  /**
   * The allowed root renamed away and a symlink to a directory outside put at its path: the held
   * root still holds the old tree, but the path now leads outside. Nothing is accepted or opened
   * below it, by any form of path, and the reason names the root. Once the held directory is back
   * at the path, files are accepted again.
   */
  @Test
  void aRootReplacedByASymlinkToADirectoryOutsideIsRefusedAsReplaced() throws Exception {
    Path inside = Files.writeString(Files.createDirectories(root.resolve("b/720p")).resolve("2.ts"), "inside");
    Path elsewhere = Files.createDirectories(temp.resolve("elsewhere"));
    Files.writeString(Files.createDirectories(elsewhere.resolve("b/720p")).resolve("2.ts"), "secret");
    Path old = Files.move(root, temp.resolve("rec-old"));
    Files.createSymbolicLink(root, elsewhere);
    for (Path file : new Path[] {inside, Path.of("b/720p/2.ts"), root.resolve("b/../b/720p/2.ts")}) {
      assertReason(Reason.ROOT_REPLACED, file);
      assertOpenReason(Reason.ROOT_REPLACED, file, 6);
    }
    Files.delete(root);
    Files.move(old, root);
    assertEquals(inside, guard.check(inside).realPath(), "the held directory is back at the root's path");
    assertEquals(List.of(), reopenings, "a symlink is never re-opened, nor the held directory come back");
  }

  /** The root replaced by a symlink between the check and the open: the open never walks from it. */
  @Test
  void aRootReplacedBetweenCheckAndOpenIsRefused() throws Exception {
    Files.writeString(Files.createDirectories(root.resolve("b1")).resolve("a.ts"), "inside");
    Path elsewhere = Files.createDirectories(temp.resolve("elsewhere"));
    Files.writeString(Files.createDirectories(elsewhere.resolve("b1")).resolve("a.ts"), "secret");
    PathGuard racing = racing(swap(() -> {
      Files.move(root, temp.resolve("rec-old"));
      Files.createSymbolicLink(root, elsewhere);
    }));
    assertRaceReason(Reason.ROOT_REPLACED, racing, root.resolve("b1/../b1/a.ts"), 6);
  }

  /**
   * The root re-created between the check and the open, with a file of the same name and size in
   * the new tree: the open met another file than it checked, but the verdict was reached across a
   * re-opening of the root, so it is ROOT_REPLACED (retried), never the file's terminal reason.
   * The next open judges the file against the new root alone.
   */
  @Test
  void aRootReopenedWhileAFileIsOpenedIsRetriedNotRejected() throws Exception {
    Path file = Files.writeString(Files.createDirectories(root.resolve("b1")).resolve("a.ts"), "inside");
    for (Path form : new Path[] {file, root.resolve("b1/../b1/a.ts")}) {
      boolean[] swapped = {false};
      PathGuard racing = racing(swap(() -> {
        if (!swapped[0]) {
          swapped[0] = true;
          Files.move(root, temp.resolve("rec-old-" + form.getNameCount()));
          Files.writeString(Files.createDirectories(root.resolve("b1")).resolve("a.ts"), "remade");
        }
      }));
      assertRaceReason(Reason.ROOT_REPLACED, racing, form, 6);
      racing.open(form, 6).close();
      racing.close();
    }
  }

  /** The root's path reached through a symlinked parent is not a safe root, even if it is a real directory there. */
  @Test
  void aRootPathLeadingThroughASymlinkedParentIsRefusedAsReplaced() throws Exception {
    Path parent = Files.createDirectories(temp.resolve("p"));
    Path nested = Files.createDirectories(parent.resolve("rec"));
    Path file = Files.writeString(nested.resolve("a.ts"), "inside");
    PathGuard nestedGuard = new PathGuard(nested, () -> { }, (reopened, change) -> { }, openers());
    Path other = Files.createDirectories(temp.resolve("q/rec"));
    Files.writeString(other.resolve("a.ts"), "secret");
    Files.move(parent, temp.resolve("p-old"));
    Files.createSymbolicLink(parent, temp.resolve("q"));
    FileRejectedException e = assertThrows(FileRejectedException.class, () -> nestedGuard.check(file));
    assertEquals(Reason.ROOT_REPLACED, e.reason(), e.getMessage());
    e = assertThrows(FileRejectedException.class, () -> nestedGuard.open(file, 6));
    assertEquals(Reason.ROOT_REPLACED, e.reason(), e.getMessage());
    nestedGuard.close();
  }

  /** A root renamed away with nothing in its place: refused as replaced (retried), not as a missing file (terminal). */
  @Test
  void aRootGoneFromItsPathIsRefusedAsReplaced() throws Exception {
    Path file = Files.writeString(root.resolve("a.ts"), "inside");
    Files.move(root, temp.resolve("rec-old"));
    assertReason(Reason.ROOT_REPLACED, file);
    assertOpenReason(Reason.ROOT_REPLACED, file, 6);
  }

  /**
   * The root re-created at its path (renamed away, a new directory made): the guard re-opens it, so
   * a new file is checked and opened in the new tree, and a file of the same name is never judged
   * against the old one: a row registered before the change meets the new file as another file.
   */
  @Test
  void aRecreatedRootIsReopenedAndNothingIsJudgedAgainstTheOldTree() throws Exception {
    Path file = Files.writeString(Files.createDirectories(root.resolve("b/720p")).resolve("2.ts"), "old tree");
    String registeredBefore = guard.check(file).identity();
    Files.move(root, temp.resolve("rec-old"));
    Files.writeString(Files.createDirectories(root.resolve("b/720p")).resolve("2.ts"), "new tree");
    Path fresh = Files.writeString(root.resolve("b/720p/3.ts"), "fresh");

    BoundaryCheck.Checked checked = guard.check(file);
    assertEquals(Files.readAttributes(file, BasicFileAttributes.class).fileKey(), checked.fileKey(),
        "checked in the new tree");
    try (VerifiedFile verified = guard.open(file, 8, checked.identity())) {
      assertEquals("new tree", new String(verified.openStream().readAllBytes()));
    }
    try (VerifiedFile verified = guard.open(fresh, 5)) {
      assertEquals("fresh", new String(verified.openStream().readAllBytes()), "a file only in the new tree");
    }
    FileRejectedException e = assertThrows(FileRejectedException.class, () -> guard.open(file, 8, registeredBefore));
    assertEquals(Reason.FILE_CHANGED, e.reason(), e.getMessage());
    assertEquals(1, reopenings.size(), "re-opened once, reported once: " + reopenings);
  }

  /**
   * Whether the guards under test open registered paths with {@code openat2} where the JDK (22 or
   * later) and kernel offer it; {@link PathGuardWalkTest} runs every test with the Java 17 walk.
   */
  boolean openBeneath() {
    return true;
  }

  /** What the guards under test make their {@link BeneathOpener} with: none for the walk. */
  private java.util.function.BiFunction<Path, Object, BeneathOpener> openers() {
    return openBeneath() ? BeneathOpener::forRoot : (realRoot, rootKey) -> null;
  }

  /** A guard on the root that runs {@code beforeOpen} between the re-check and the open. */
  private PathGuard racing(Runnable beforeOpen) {
    return new PathGuard(root, beforeOpen, (reopened, change) -> { }, openers());
  }

  private interface IoAction {
    void run() throws IOException;
  }

  private static Runnable swap(IoAction action) {
    return () -> {
      try {
        action.run();
      } catch (IOException e) {
        throw new UncheckedIOException(e);
      }
    };
  }

  private static void assertRaceReason(Reason expected, PathGuard racing, Path file, long size) {
    FileRejectedException e = assertThrows(FileRejectedException.class, () -> racing.open(file, size));
    assertEquals(expected, e.reason(), e.getMessage());
  }

  private void assertOpenReason(Reason expected, Path file, long size) {
    FileRejectedException e = assertThrows(FileRejectedException.class, () -> guard.open(file, size));
    assertEquals(expected, e.reason(), e.getMessage());
  }

  private void assertReason(Reason expected, Path file) {
    FileRejectedException e = assertThrows(FileRejectedException.class, () -> guard.check(file));
    assertEquals(expected, e.reason(), e.getMessage());
  }
}
