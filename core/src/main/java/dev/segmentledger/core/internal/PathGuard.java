package dev.segmentledger.core.internal;

import dev.segmentledger.core.Reason;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.channels.FileChannel;
import java.nio.channels.SeekableByteChannel;
import java.nio.file.AccessDeniedException;
import java.nio.file.ClosedDirectoryStreamException;
import java.nio.file.DirectoryStream;
import java.nio.file.FileSystemException;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.SecureDirectoryStream;
import java.nio.file.StandardOpenOption;
import java.nio.file.attribute.BasicFileAttributeView;
import java.nio.file.attribute.BasicFileAttributes;
import java.util.ArrayDeque;
import java.util.Deque;
import java.util.Objects;
import java.util.Set;

/**
 * The file boundary (docs/design.md, principle 7). Thread-safe.
 *
 * <p><b>Check.</b> The allowed root is resolved once, at construction, to its real path. A file
 * is accepted only if its real path (every symlink, {@code ..} and relative part resolved by the
 * operating system, never lexically) lies inside the root <em>as a path</em> ({@link
 * Path#startsWith(Path)} compares whole name elements, so {@code /rec-evil} is not inside {@code
 * /rec}), and if {@code lstat} of that real path reports a regular file. Symlinks that stay inside
 * the root are followed; anything else is refused with a named {@link Reason}.
 *
 * <p><b>Open.</b> {@link #open} repeats the check, then compares the size with the registered one
 * <em>before</em> opening, and opens the checked real path without following any symlink: where
 * the platform offers a {@link SecureDirectoryStream} (Linux), it walks from the root directory
 * one name at a time with {@code openat(..., O_NOFOLLOW)}, so a symlink swapped in for any
 * component after the check, intermediate or final, makes the open fail instead of redirecting
 * it; elsewhere it opens the real path with {@link LinkOption#NOFOLLOW_LINKS}, which protects only
 * the final component. After opening it verifies that every component of the checked path is
 * still a directory and the name still denotes the file that was checked (same file key, that is
 * device and inode), and reads the size from the open channel ({@code fstat}). A failed open is
 * named by checking the path afresh (a symlink swapped in that points out of the root is
 * OUTSIDE_ROOT); if the path is unchanged the open itself failed (UNREADABLE).
 *
 * <p><b>Open by the registered real path.</b> A row stores the real path its file was checked
 * under, so the upload usually opens a path that is absolute, normalized and below the root.
 * Such a path is opened without resolving it again: the walk starts from a directory stream on
 * the root held open for the guard's lifetime, the final name's attributes are read relative to
 * its directory ({@code fstatat}, no symlink followed) and must be a regular file of the
 * registered size before it is opened, and the checks after the open are the same as above.
 * Whatever fails on the way is named by a fresh {@link #check}. Any other path takes the full
 * check first.
 *
 * <p><b>What Java cannot close.</b> Java has no {@code O_NONBLOCK} open and no {@code fstat} of an
 * open channel's file key. Hence: (1) the file key (and that every component is still a directory)
 * is checked by name just before and just after the open, not on the descriptor, so a regular file
 * swapped in and back out between those two checks is not seen; with the walk above that file still lies below the root, and with the plain
 * fallback an intermediate directory swapped for a symlink in the same window could point
 * elsewhere. (2) A FIFO swapped in for the regular file between the check and the open blocks the
 * opening worker until a writer appears (only {@code lstat}-verified regular files are ever
 * opened, so this needs an adversary racing that window). (3) A directory on the path renamed
 * to outside the root after the walk opened it, a hard link, or a mount inside the root are not
 * symlinks and are not detected. The design bounds what such a race can achieve: the descriptor
 * must be a regular file of exactly the registered size ({@code fstat}), no more than the
 * registered number of bytes is ever read, the size is read again after the PUT, and the confirm
 * is a compare-and-set on that size. Protection against these requires that no adversary can
 * write inside the allowed root; the checks make mistakes and symlink games inside it harmless.
 */
final class PathGuard implements AutoCloseable {
  private static final String LOOP_MARKER = "symbolic link";

  private final Path root;
  private final Runnable beforeOpen;
  /** The root, open for the walks of {@link #open}; {@code null} where the platform has no secure streams. */
  private final SecureDirectoryStream<Path> rootStream;

  PathGuard(Path allowedRoot) {
    this(allowedRoot, () -> { });
  }

  /** For tests: {@code beforeOpen} runs between the re-check and the open, to stage a race there. */
  PathGuard(Path allowedRoot, Runnable beforeOpen) {
    try {
      this.root = allowedRoot.toRealPath();
    } catch (IOException e) {
      throw new UncheckedIOException("allowed root " + allowedRoot + " cannot be resolved", e);
    }
    if (!Files.isDirectory(root)) {
      throw new IllegalArgumentException("allowed root " + allowedRoot + " is not a directory");
    }
    this.beforeOpen = beforeOpen;
    this.rootStream = openRootStream(root);
  }

  private static SecureDirectoryStream<Path> openRootStream(Path root) {
    try {
      DirectoryStream<Path> stream = Files.newDirectoryStream(root);
      if (stream instanceof SecureDirectoryStream<Path> secure) {
        return secure;
      }
      stream.close();
    } catch (IOException e) {
      // no held root: every open walks from a freshly opened root
    }
    return null;
  }

  /** Closes the directory stream held on the root. */
  @Override
  public void close() {
    closeQuietly(rootStream);
  }

  Path root() {
    return root;
  }

  /** {@code file} made absolute against the root, as given (not resolved): for messages and rejected rows. */
  Path absolute(Path file) {
    return root.resolve(file);
  }

  /**
   * Checks {@code file} (relative paths are taken from the root) and returns its real path, size
   * and file key.
   *
   * @throws FileRejectedException with the reason, if the file must not be uploaded
   */
  Checked check(Path file) throws FileRejectedException {
    Path real = realPath(file);
    if (!real.startsWith(root)) {
      throw new FileRejectedException(Reason.OUTSIDE_ROOT, show(file) + " resolves outside the allowed root");
    }
    BasicFileAttributes attributes = attributes(file, real);
    if (!attributes.isRegularFile()) {
      throw new FileRejectedException(Reason.NOT_REGULAR_FILE, show(file) + " is " + kind(attributes)
          + ", not a regular file");
    }
    return new Checked(real, attributes.size(), attributes.fileKey());
  }

  /**
   * Re-checks {@code file} and opens it for reading, verifying that the opened file is the one
   * checked and has exactly {@code registeredSize} bytes. Never opens anything that was not a
   * regular file inside the root an instant before.
   *
   * @throws FileRejectedException with the reason, if the file must not be uploaded
   */
  VerifiedFile open(Path file, long registeredSize) throws FileRejectedException {
    Path path = absolute(file);
    if (rootStream != null && path.startsWith(root) && !path.equals(root) && path.equals(path.normalize())) {
      try {
        return openBelowRoot(file, root.relativize(path), registeredSize);
      } catch (ClosedDirectoryStreamException e) {
        // the guard was closed (the ledger is shutting down): take the full path below
      }
    }
    return openChecked(file, registeredSize);
  }

  /**
   * Opens {@code relative} (normalized, below the root) by walking from the held root stream
   * without following any symlink, after reading the final name's attributes through its
   * directory. Failures are named by a fresh check.
   */
  private VerifiedFile openBelowRoot(Path file, Path relative, long registeredSize) throws FileRejectedException {
    Deque<AutoCloseable> directories = new ArrayDeque<>();
    FileChannel channel = null;
    try {
      SecureDirectoryStream<Path> directory = rootStream;
      for (int i = 0; i < relative.getNameCount() - 1; i++) {
        directory = directory.newDirectoryStream(relative.getName(i), LinkOption.NOFOLLOW_LINKS);
        directories.push(directory);
      }
      Path name = relative.getFileName();
      BasicFileAttributes before = directory.getFileAttributeView(name, BasicFileAttributeView.class,
          LinkOption.NOFOLLOW_LINKS).readAttributes();
      if (!before.isRegularFile()) {
        throw changed(file);
      }
      requireSize(show(file), before.size(), registeredSize);
      beforeOpen.run();
      SeekableByteChannel opened = directory.newByteChannel(name,
          Set.of(StandardOpenOption.READ, LinkOption.NOFOLLOW_LINKS));
      if (!(opened instanceof FileChannel fileChannel)) {
        opened.close();
        return openChecked(file, registeredSize);
      }
      channel = fileChannel;
      VerifiedFile verified = verifyOpened(file, channel,
          new Checked(root.resolve(relative), before.size(), before.fileKey()), registeredSize);
      channel = null;
      return verified;
    } catch (AccessDeniedException e) {
      throw new FileRejectedException(Reason.UNREADABLE, "permission denied opening " + show(file));
    } catch (IOException e) {
      throw failedBelowRoot(file, e);
    } finally {
      closeQuietly(channel);
      directories.forEach(PathGuard::closeQuietly);
    }
  }

  /**
   * Names a failed open of a registered real path: what a fresh check finds (missing, outside the
   * root through a symlink swapped in, not a regular file), or, if the path now passes the check
   * only through a symlink, NOT_REGULAR_FILE (it changed); if it is unchanged, UNREADABLE.
   */
  private FileRejectedException failedBelowRoot(Path file, IOException cause) {
    Checked now;
    try {
      now = check(file);
    } catch (FileRejectedException e) {
      return e;
    }
    if (!now.realPath().equals(absolute(file))) {
      return new FileRejectedException(Reason.NOT_REGULAR_FILE, show(file) + " changed while being opened");
    }
    return new FileRejectedException(Reason.UNREADABLE, "cannot open " + show(file) + ": "
        + cause.getClass().getSimpleName());
  }

  /** The full open: check (resolving the path), then walk from a freshly opened root. */
  private VerifiedFile openChecked(Path file, long registeredSize) throws FileRejectedException {
    Checked checked = check(file);
    requireSize(show(file), checked.size(), registeredSize);
    beforeOpen.run();
    Deque<AutoCloseable> directories = new ArrayDeque<>();
    FileChannel channel = null;
    try {
      channel = openWithoutFollowing(checked.realPath(), directories);
      VerifiedFile verified = verifyOpened(file, channel, checked, registeredSize);
      channel = null;
      return verified;
    } catch (AccessDeniedException e) {
      throw new FileRejectedException(Reason.UNREADABLE, "permission denied opening " + show(file));
    } catch (IOException e) {
      throw openFailed(file, checked, e);
    } finally {
      closeQuietly(channel);
      directories.forEach(PathGuard::closeQuietly);
    }
  }

  /**
   * The checks after an open: the path still leads through directories to the file that was
   * checked, and the open file ({@code fstat}) has the registered size.
   */
  private VerifiedFile verifyOpened(Path file, FileChannel channel, Checked checked, long registeredSize)
      throws FileRejectedException, IOException {
    if (!stillAsChecked(checked)) {
      throw changed(file);
    }
    requireSize(show(file), channel.size(), registeredSize);
    return new VerifiedFile(channel, registeredSize, show(file));
  }

  /**
   * Names why a file that passed the check could not be opened. If the path is no longer what
   * was checked (O_NOFOLLOW met a symlink, a component stopped being a directory, the file was
   * deleted or replaced), a fresh check names it, or else it {@linkplain Reason#NOT_REGULAR_FILE
   * changed while being opened}; if the path is unchanged, the open itself failed: UNREADABLE.
   */
  private FileRejectedException openFailed(Path file, Checked checked, IOException cause) {
    if (stillAsChecked(checked)) {
      return new FileRejectedException(Reason.UNREADABLE, "cannot open " + show(file) + ": "
          + cause.getClass().getSimpleName());
    }
    return changed(file);
  }

  /** A fresh check's reason for a path that changed while being opened, or NOT_REGULAR_FILE. */
  private FileRejectedException changed(Path file) {
    try {
      check(file);
    } catch (FileRejectedException now) {
      return now; // for example OUTSIDE_ROOT: a symlink swapped in points out of the root
    }
    return new FileRejectedException(Reason.NOT_REGULAR_FILE, show(file) + " changed while being opened");
  }

  /** Whether every component of the checked real path is still a directory and the file the same one. */
  private boolean stillAsChecked(Checked checked) {
    Path relative = root.relativize(checked.realPath());
    Path current = root;
    try {
      for (int i = 0; i < relative.getNameCount() - 1; i++) {
        current = current.resolve(relative.getName(i));
        if (!Files.readAttributes(current, BasicFileAttributes.class, LinkOption.NOFOLLOW_LINKS).isDirectory()) {
          return false;
        }
      }
      BasicFileAttributes file = Files.readAttributes(checked.realPath(), BasicFileAttributes.class,
          LinkOption.NOFOLLOW_LINKS);
      return file.isRegularFile() && Objects.equals(file.fileKey(), checked.fileKey());
    } catch (IOException e) {
      return false;
    }
  }

  /**
   * Opens {@code real} (a real path below the root) for reading without following any symlink.
   * Directory streams opened on the way are pushed onto {@code opened} for the caller to close.
   */
  private FileChannel openWithoutFollowing(Path real, Deque<AutoCloseable> opened) throws IOException {
    Path relative = root.relativize(real);
    DirectoryStream<Path> top = Files.newDirectoryStream(root);
    opened.push(top);
    if (!(top instanceof SecureDirectoryStream<Path> directory)) {
      return FileChannel.open(real, StandardOpenOption.READ, LinkOption.NOFOLLOW_LINKS);
    }
    for (int i = 0; i < relative.getNameCount() - 1; i++) {
      directory = directory.newDirectoryStream(relative.getName(i), LinkOption.NOFOLLOW_LINKS);
      opened.push(directory);
    }
    SeekableByteChannel channel = directory.newByteChannel(relative.getFileName(),
        Set.of(StandardOpenOption.READ, LinkOption.NOFOLLOW_LINKS));
    if (channel instanceof FileChannel fileChannel) {
      return fileChannel;
    }
    channel.close();
    return FileChannel.open(real, StandardOpenOption.READ, LinkOption.NOFOLLOW_LINKS);
  }

  private Path realPath(Path file) throws FileRejectedException {
    try {
      return absolute(file).toRealPath();
    } catch (NoSuchFileException e) {
      throw new FileRejectedException(Reason.MISSING_FILE, "no such file: " + show(file));
    } catch (AccessDeniedException e) {
      throw new FileRejectedException(Reason.UNREADABLE, "permission denied resolving " + show(file));
    } catch (FileSystemException e) {
      if (e.getReason() != null && e.getReason().contains(LOOP_MARKER)) {
        // ELOOP: a symlink loop or chain too long to resolve never names a regular file.
        throw new FileRejectedException(Reason.NOT_REGULAR_FILE, show(file) + " is a symlink loop");
      }
      // ENOTDIR (a component is not a directory), ENAMETOOLONG, EIO: the file cannot be reached now.
      throw new FileRejectedException(Reason.UNREADABLE, "cannot resolve " + show(file) + ": "
          + show(e.getReason()));
    } catch (IOException e) {
      throw new FileRejectedException(Reason.UNREADABLE, "cannot resolve " + show(file) + ": "
          + e.getClass().getSimpleName());
    }
  }

  private static BasicFileAttributes attributes(Path file, Path real) throws FileRejectedException {
    try {
      return Files.readAttributes(real, BasicFileAttributes.class, LinkOption.NOFOLLOW_LINKS);
    } catch (NoSuchFileException e) {
      throw new FileRejectedException(Reason.MISSING_FILE, "no such file: " + show(file));
    } catch (IOException e) {
      throw new FileRejectedException(Reason.UNREADABLE, "cannot read attributes of " + show(file) + ": "
          + e.getClass().getSimpleName());
    }
  }

  /** Rejects a size other than the registered one, naming which way it differs. */
  static void requireSize(String shownName, long actual, long registered) throws FileRejectedException {
    if (actual > registered) {
      throw new FileRejectedException(Reason.FILE_GREW, shownName + " has " + actual + " bytes, registered with "
          + registered + ": it was still being written or was appended to");
    }
    if (actual < registered) {
      throw new FileRejectedException(Reason.FILE_SHRANK, shownName + " has " + actual + " bytes, registered with "
          + registered + ": it was truncated or replaced");
    }
  }

  private static String kind(BasicFileAttributes attributes) {
    if (attributes.isDirectory()) {
      return "a directory";
    }
    if (attributes.isSymbolicLink()) {
      return "a symlink"; // only if it was swapped in between resolving and lstat
    }
    return "a FIFO, socket or device";
  }

  /**
   * {@code value} for messages, logs and the row's last error: control characters (a newline in a
   * file name could forge a log line) are escaped as {@code \\uXXXX}.
   */
  static String show(Object value) {
    String text = String.valueOf(value);
    if (text.chars().noneMatch(c -> Character.isISOControl(c) || c == 0x2028 || c == 0x2029)) {
      return text;
    }
    StringBuilder out = new StringBuilder(text.length());
    text.codePoints().forEach(cp -> {
      if (Character.isISOControl(cp) || cp == 0x2028 || cp == 0x2029) {
        out.append(String.format("\\u%04x", cp));
      } else {
        out.appendCodePoint(cp);
      }
    });
    return out.toString();
  }

  private static void closeQuietly(AutoCloseable closeable) {
    if (closeable == null) {
      return;
    }
    try {
      closeable.close();
    } catch (Exception ignored) {
      // nothing was read through it; the outcome is decided already
    }
  }

  /** A file that passed the checks: its real path, its size and its file key (may be null). */
  record Checked(Path realPath, long size, Object fileKey) {}
}
