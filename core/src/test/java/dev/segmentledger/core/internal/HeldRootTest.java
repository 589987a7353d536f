package dev.segmentledger.core.internal;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertThrows;

import dev.segmentledger.core.Reason;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.nio.file.SecureDirectoryStream;
import java.nio.file.attribute.BasicFileAttributes;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The held root's re-opening rules that need the file system staged: a mount point and its
 * unmounting (the devices are the test's, through {@link HeldRoot.Directories}, so no mount and no
 * root privilege are needed), and a directory stream that cannot be opened.
 */
class HeldRootTest {
  private static final Long PARENT_DEVICE = 1L;

  @TempDir Path temp;
  private Path root;
  private final List<String> reopenings = new CopyOnWriteArrayList<>();
  /** The device the test says the root's path is on; the parent is on {@link #PARENT_DEVICE}. */
  private volatile Long rootDevice = 2L;
  /** Whether opening a directory stream fails, as with too many open files. */
  private volatile boolean openFails;
  private HeldRoot held;

  @BeforeEach
  void setUp() throws IOException {
    root = Files.createDirectories(temp.resolve("rec")).toRealPath();
  }

  @AfterEach
  void tearDown() {
    if (held != null) {
      held.close();
    }
  }

  /**
   * The root was a mount point; after a lazy unmount (or a failed remount) its path is the bare
   * directory under it, on its parent's device. Re-opening it would judge every row registered
   * before against an empty directory (MISSING_FILE, terminal), so it is refused as ROOT_REPLACED
   * (retried); once a filesystem is mounted there again, it is re-opened.
   */
  @Test
  void theBareDirectoryLeftByUnmountingARootThatWasAMountPointIsNotReopened() throws Exception {
    held = open();
    Files.move(root, temp.resolve("unmounted"));
    Files.createDirectory(root);
    rootDevice = PARENT_DEVICE;
    FileRejectedException e = assertThrows(FileRejectedException.class, held::current);
    assertEquals(Reason.ROOT_REPLACED, e.reason(), e.getMessage());
    assertEquals(List.of(), reopenings, "a bare mount point is not re-opened");

    rootDevice = 3L; // mounted again
    assertNotNull(held.current(), "the remounted root is re-opened");
    assertEquals(1, reopenings.size(), reopenings.toString());
    assertEquals(fileKeyOf(root), held.fileKey());
  }

  /** A root that was not a mount point (on its parent's device) is re-opened when re-created there. */
  @Test
  void aRecreatedRootThatWasNotAMountPointIsReopened() throws Exception {
    rootDevice = PARENT_DEVICE;
    held = open();
    Files.move(root, temp.resolve("old"));
    Files.createDirectory(root);
    assertNotNull(held.current());
    assertEquals(1, reopenings.size(), reopenings.toString());
  }

  /**
   * The new directory stream cannot be opened (too many open files): the re-opening is not taken
   * without a stream; the held root stays as it was, the file is refused as ROOT_REPLACED, and the
   * next call tries again.
   */
  @Test
  void aReopeningWhoseStreamCannotBeOpenedKeepsTheHeldRootAndIsTriedAgain() throws Exception {
    held = open();
    Object before = held.fileKey();
    Files.move(root, temp.resolve("old"));
    Files.createDirectory(root);
    openFails = true;
    FileRejectedException e = assertThrows(FileRejectedException.class, held::current);
    assertEquals(Reason.ROOT_REPLACED, e.reason(), e.getMessage());
    assertEquals(before, held.fileKey(), "the held root unchanged");
    assertEquals(List.of(), reopenings);

    openFails = false;
    assertNotNull(held.current(), "re-opened on the next call, with a stream");
    assertNotEquals(before, held.fileKey());
    assertEquals(1, reopenings.size(), reopenings.toString());
  }

  private HeldRoot open() {
    return new HeldRoot(root, (reopened, change) -> reopenings.add(change), new HeldRoot.Directories() {
      @Override
      public SecureDirectoryStream<Path> open(Path directory) {
        return openFails ? null : HeldRoot.Directories.SYSTEM.open(directory);
      }

      @Override
      public Object deviceOf(Path path) {
        return path.equals(root) ? rootDevice : PARENT_DEVICE;
      }
    });
  }

  private static Object fileKeyOf(Path path) throws IOException {
    return Files.readAttributes(path, BasicFileAttributes.class, LinkOption.NOFOLLOW_LINKS).fileKey();
  }
}
