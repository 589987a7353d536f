package dev.segmentledger.core.internal;

import dev.segmentledger.core.LocalFileRefusal;
import java.io.IOException;
import java.nio.file.ClosedDirectoryStreamException;
import java.nio.file.LinkOption;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.SecureDirectoryStream;
import java.nio.file.attribute.BasicFileAttributeView;
import java.nio.file.attribute.BasicFileAttributes;
import java.util.ArrayDeque;
import java.util.Deque;
import java.util.Objects;

/**
 * Deletes one file below a directory inside the allowed root, never following a link: the one
 * deletion of the ledger. Thread-safe (stateless but for the guard and the directory).
 *
 * <p>The file must be an absolute, normalized path strictly below {@code directory} (itself inside
 * the allowed root). The walk starts from the directory stream the {@link PathGuard} holds on the
 * root (so a root replaced by a symlink is refused, {@link HeldRoot}) and opens each directory on
 * the way by name with {@code openat(..., O_NOFOLLOW)}: a symlink swapped in for any directory makes
 * the walk fail instead of leading elsewhere. Each name on the way is first read without following a
 * link ({@code fstatat}) and opened only if it is a directory: the open has no {@code O_DIRECTORY}
 * or {@code O_NONBLOCK}, and would wait forever on a FIFO. (A FIFO swapped in between that read and
 * the open still blocks; only the file's owner can do it, on the ledger's own playback tree.) The final name's attributes are read through its
 * directory ({@code fstatat}, no link followed); only a regular file of the recorded size (and file
 * identity, where one is recorded) is removed, with {@code unlinkat} on that same directory, which
 * removes a name and never follows it. The one race left: a name swapped between that {@code fstatat}
 * and the {@code unlinkat} is removed itself (a link, not its target), and it lies in the same
 * directory below the root, so nothing outside the root can be deleted. A platform without secure
 * directory streams deletes nothing ({@link LocalFileRefusal#NO_SECURE_DIRECTORY_STREAMS}).
 */
final class LocalFileRemover {
  private final PathGuard guard;
  private final Path directory;

  /**
   * What a removal did: deleted (with its size), gone already, refused with a reason, or left for a
   * later sweep without a refusal ({@code later}: the row changed since it was read, for example).
   */
  record Removal(boolean deleted, long bytes, LocalFileRefusal refusal, String detail, boolean later) {
    static final Removal GONE = new Removal(false, 0, null, "gone already", false);

    static Removal refused(LocalFileRefusal refusal, String detail) {
      return new Removal(false, 0, refusal, detail, false);
    }

    /** Nothing deleted, nothing refused: the file is looked at again by a later sweep. */
    static Removal later(String detail) {
      return new Removal(false, 0, null, detail, true);
    }

    /** Whether the file is no longer the ledger's concern: deleted, gone, or refused for good. */
    boolean done() {
      return !later && (refusal == null || refusal.isFinal());
    }
  }

  /**
   * Asked right before the unlink, once the file was found to be the recorded one: {@code null} to
   * delete it, or what to answer instead (the row changed since it was read, another row needs the
   * file). Runs on the caller's thread.
   */
  @FunctionalInterface
  interface LastCheck {
    LastCheck NONE = () -> null;

    Removal refusal();
  }

  /**
   * A directory on the way is missing: that says nothing of the file (a sub-mount not mounted yet
   * hides it), so the row is left for a later sweep. Only the file found gone in its directory is
   * {@link Removal#GONE}.
   */
  private static final Removal MISSING_DIRECTORY = Removal.later("a directory on the way to it is missing");

  /** @param directory the only directory below which files are removed; inside the guard's root */
  LocalFileRemover(PathGuard guard, Path directory) {
    this.guard = Objects.requireNonNull(guard, "guard");
    this.directory = guard.absolute(directory).normalize();
    if (!this.directory.startsWith(guard.root())) {
      throw new IllegalArgumentException("directory " + directory + " must lie inside the allowed root " + guard.root());
    }
  }

  Path directory() {
    return directory;
  }

  /**
   * Removes {@code file} if it is a regular file of {@code size} bytes (and identity
   * {@code identity}, unless {@code null}); never throws for the file system.
   */
  Removal remove(Path file, long size, String identity) {
    return remove(file, size, identity, LastCheck.NONE);
  }

  /** As {@link #remove(Path, long, String)}, with {@code lastCheck} asked right before the unlink. */
  Removal remove(Path file, long size, String identity, LastCheck lastCheck) {
    if (!file.isAbsolute() || !file.equals(file.normalize()) || !file.startsWith(directory) || file.equals(directory)) {
      return Removal.refused(LocalFileRefusal.OUTSIDE_OUTPUT_DIRECTORY, "not below " + directory);
    }
    SecureDirectoryStream<Path> root;
    try {
      root = guard.heldRootStream();
    } catch (FileRejectedException e) {
      return Removal.refused(LocalFileRefusal.ROOT_REPLACED, e.getMessage());
    }
    if (root == null) {
      return Removal.refused(LocalFileRefusal.NO_SECURE_DIRECTORY_STREAMS, "no secure directory streams here");
    }
    Deque<AutoCloseable> opened = new ArrayDeque<>();
    try {
      return removeBelow(root, guard.root().relativize(file), size, identity, lastCheck, opened);
    } catch (ClosedDirectoryStreamException e) {
      return Removal.refused(LocalFileRefusal.ROOT_REPLACED, "the allowed root was re-opened during the walk");
    } finally {
      opened.forEach(NoFollowOpener::closeQuietly);
    }
  }

  private static Removal removeBelow(SecureDirectoryStream<Path> root, Path relative, long size, String identity,
      LastCheck lastCheck, Deque<AutoCloseable> opened) {
    SecureDirectoryStream<Path> dir = root;
    for (int i = 0; i < relative.getNameCount() - 1; i++) {
      Path name = relative.getName(i);
      Removal notADirectory = notADirectory(dir, name);
      if (notADirectory != null) {
        return notADirectory; // opening a FIFO there would wait for a writer forever
      }
      try {
        dir = dir.newDirectoryStream(name, LinkOption.NOFOLLOW_LINKS);
        opened.push(dir);
      } catch (NoSuchFileException e) {
        return MISSING_DIRECTORY;
      } catch (IOException e) {
        return whyNotWalked(dir, name, e);
      }
    }
    Path name = relative.getFileName();
    BasicFileAttributes attributes;
    try {
      attributes = dir.getFileAttributeView(name, BasicFileAttributeView.class, LinkOption.NOFOLLOW_LINKS)
          .readAttributes();
    } catch (NoSuchFileException e) {
      return Removal.GONE;
    } catch (IOException e) {
      return Removal.refused(LocalFileRefusal.FAILED, "cannot read its attributes: " + e.getClass().getSimpleName());
    }
    Removal refused = refusal(attributes, size, identity);
    if (refused == null) {
      refused = lastCheck.refusal();
    }
    if (refused != null) {
      return refused;
    }
    try {
      dir.deleteFile(name);
      return new Removal(true, attributes.size(), null, "deleted", false);
    } catch (NoSuchFileException e) {
      return Removal.GONE;
    } catch (IOException e) {
      return Removal.refused(LocalFileRefusal.FAILED, "cannot delete it: " + e.getClass().getSimpleName());
    }
  }

  /** Why the final name's {@code attributes} are not those of the recorded file; {@code null} if they are. */
  private static Removal refusal(BasicFileAttributes attributes, long size, String identity) {
    if (attributes.isSymbolicLink()) {
      return Removal.refused(LocalFileRefusal.SYMLINK, "a symbolic link stands at its name");
    }
    if (!attributes.isRegularFile()) {
      return Removal.refused(LocalFileRefusal.NOT_REGULAR_FILE, "not a regular file");
    }
    if (attributes.size() != size) {
      return Removal.refused(LocalFileRefusal.NOT_THE_RECORDED_FILE, attributes.size() + " bytes, recorded " + size);
    }
    String actual = RegisteredFile.identityOf(attributes);
    if (identity != null && !identity.equals(actual)) {
      return Removal.refused(LocalFileRefusal.NOT_THE_RECORDED_FILE, "identity " + actual + ", recorded " + identity);
    }
    return null;
  }

  /**
   * Why {@code name} in {@code dir}, read without following a link, is not a directory to walk
   * into; {@code null} if it is one. Read before opening it: {@code newDirectoryStream} opens the
   * name without {@code O_DIRECTORY} or {@code O_NONBLOCK}, and the open of a FIFO would block.
   */
  private static Removal notADirectory(SecureDirectoryStream<Path> dir, Path name) {
    BasicFileAttributes attributes;
    try {
      attributes = dir.getFileAttributeView(name, BasicFileAttributeView.class, LinkOption.NOFOLLOW_LINKS)
          .readAttributes();
    } catch (NoSuchFileException e) {
      return MISSING_DIRECTORY;
    } catch (IOException e) {
      return Removal.refused(LocalFileRefusal.FAILED, "cannot read the attributes of the directory "
          + PrintableText.escape(name) + " on the way: " + e.getClass().getSimpleName());
    }
    if (attributes.isSymbolicLink()) {
      return Removal.refused(LocalFileRefusal.SYMLINK, "the directory " + PrintableText.escape(name)
          + " on the way is a symbolic link");
    }
    if (!attributes.isDirectory()) {
      return Removal.refused(LocalFileRefusal.NOT_REGULAR_FILE, PrintableText.escape(name)
          + " on the way is not a directory (" + (attributes.isRegularFile() ? "a regular file" : "a FIFO, socket or device")
          + ")");
    }
    return null;
  }

  /** Names why the directory {@code name}, a directory when read just before, could not be opened. */
  private static Removal whyNotWalked(SecureDirectoryStream<Path> dir, Path name, IOException cause) {
    Removal changed = notADirectory(dir, name);
    return changed != null ? changed : Removal.refused(LocalFileRefusal.FAILED, "cannot open the directory "
        + PrintableText.escape(name) + ": " + cause.getClass().getSimpleName());
  }
}
