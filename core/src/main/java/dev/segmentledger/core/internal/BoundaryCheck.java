package dev.segmentledger.core.internal;

import dev.segmentledger.core.Reason;
import dev.segmentledger.core.internal.PrintableText;
import java.io.IOException;
import java.nio.file.AccessDeniedException;
import java.nio.file.ClosedDirectoryStreamException;
import java.nio.file.FileSystemException;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.SecureDirectoryStream;
import java.nio.file.attribute.BasicFileAttributes;
import java.util.Objects;

/**
 * The check of the {@link PathGuard}: a path is accepted only if the operating system resolves it
 * (every symlink, {@code ..} and relative part, never lexically) to a real path inside the root,
 * compared as whole name elements, and {@code lstat} of that real path reports a regular file.
 * Every refusal carries its named {@link Reason}. Thread-safe (stateless but for the root).
 */
final class BoundaryCheck {
  private static final String LOOP_MARKER = "symbolic link";

  private final Path root;

  /** @param root the allowed root, a real path */
  BoundaryCheck(Path root) {
    this.root = root;
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
    return Checked.of(real, attributes);
  }

  /**
   * The check of a plain path (absolute, normalized, below the root; {@code relative} is its part
   * below the root) without resolving it: each directory on it, read through the held root stream
   * {@code heldRoot} without following a symlink, is a directory, and the final name is a regular
   * file. Then no component is a symlink and the path is its own real path: resolving it ({@link
   * #check}) would return it unchanged, at the cost of a {@code readlink} per component of the
   * whole path from {@code /}. Returns {@code null} if any component is anything else (a symlink,
   * missing, not a directory, unreadable) or the stream is closed: the resolving check then decides
   * and names it. The two agree on every path (PathGuardTest); like the resolving check, this one is
   * a moment's answer, which the upload's open repeats.
   */
  static Checked checkLinkFree(SecureDirectoryStream<Path> heldRoot, Path path, Path relative) {
    try {
      for (int names = 1; names < relative.getNameCount(); names++) {
        if (!NoFollowOpener.attributesBelow(heldRoot, relative.subpath(0, names)).isDirectory()) {
          return null;
        }
      }
      BasicFileAttributes attributes = NoFollowOpener.attributesBelow(heldRoot, relative);
      return attributes.isRegularFile() ? Checked.of(path, attributes) : null;
    } catch (IOException | ClosedDirectoryStreamException e) {
      return null;
    }
  }

  private Path realPath(Path file) throws FileRejectedException {
    try {
      return root.resolve(file).toRealPath();
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
   * {@code path} relative to the root: its names after the root's when it lies below the root (the
   * same path as {@code root.relativize(path)}, which costs more: it looks for "." and ".." in
   * both), else {@code root.relativize(path)}.
   */
  Path belowRoot(Path path) {
    int rootNames = root.getNameCount();
    return path.startsWith(root) && path.getNameCount() > rootNames
        ? path.subpath(rootNames, path.getNameCount()) : root.relativize(path);
  }

  /** Whether every component of the checked real path is still a directory and the file the same one. */
  boolean stillAsChecked(Checked checked) {
    Path relative = belowRoot(checked.realPath());
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

  private static String show(Object value) {
    return PrintableText.escape(value);
  }

  /**
   * A file that passed the checks: its real path, its size, its file key and its
   * {@linkplain RegisteredFile#identityOf identity} (both may be null).
   */
  record Checked(Path realPath, long size, Object fileKey, String identity) {
    /** {@code realPath} with the size, file key and identity of {@code attributes}, read from it without following a link. */
    static Checked of(Path realPath, BasicFileAttributes attributes) {
      return new Checked(realPath, attributes.size(), attributes.fileKey(), RegisteredFile.identityOf(attributes));
    }
  }
}
