package dev.segmentledger.core.internal;

import dev.segmentledger.core.Reason;
import dev.segmentledger.core.internal.PrintableText;
import java.io.IOException;
import java.nio.file.AccessDeniedException;
import java.nio.file.FileSystemException;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.attribute.BasicFileAttributes;

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
