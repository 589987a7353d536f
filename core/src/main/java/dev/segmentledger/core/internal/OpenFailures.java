package dev.segmentledger.core.internal;

import dev.segmentledger.core.Reason;
import dev.segmentledger.core.internal.BoundaryCheck.Checked;
import java.io.IOException;
import java.nio.file.FileSystemException;
import java.nio.file.Path;
import java.util.function.UnaryOperator;

/**
 * Names why the {@link PathGuard} did not open a file: the one place that does, for every way of
 * opening (the full check and walk, the walk from the held root, {@code openat2}). Thread-safe
 * (stateless but for the guard's check).
 */
final class OpenFailures {
  /** The guard's check of a file, resolving it afresh. */
  interface FreshCheck {
    Checked check(Path file) throws FileRejectedException;
  }

  private final FreshCheck freshCheck;
  private final BoundaryCheck boundary;
  private final UnaryOperator<Path> absolute;

  /** {@code absolute} makes a file as given absolute against the root, without resolving it. */
  OpenFailures(FreshCheck freshCheck, BoundaryCheck boundary, UnaryOperator<Path> absolute) {
    this.freshCheck = freshCheck;
    this.boundary = boundary;
    this.absolute = absolute;
  }

  /**
   * Names why {@code file} was not opened. If the open failed ({@code cause}) on a path that is
   * unchanged, the open itself failed: UNREADABLE. Unchanged means still as {@code checked} where a
   * check preceded the open, and otherwise that a fresh check resolves it to itself. Else a fresh
   * check names what it is now (missing, outside the root through a symlink swapped in, not a
   * regular file), and if it passes, the path changed while being opened: NOT_REGULAR_FILE. Without
   * a {@code cause}, the open met something else than was checked (not a regular file, another file).
   */
  FileRejectedException whyNotOpened(Path file, Checked checked, IOException cause) {
    if (cause != null && checked != null && boundary.stillAsChecked(checked)) {
      return unreadable(file, cause);
    }
    try {
      Checked now = freshCheck.check(file);
      if (cause != null && checked == null && now.realPath().equals(absolute.apply(file))) {
        return unreadable(file, cause);
      }
    } catch (FileRejectedException e) {
      return e; // for example OUTSIDE_ROOT: a symlink swapped in points out of the root
    }
    return new FileRejectedException(Reason.NOT_REGULAR_FILE, show(file) + " changed while being opened");
  }

  static FileRejectedException permissionDenied(Path file) {
    return new FileRejectedException(Reason.UNREADABLE, "permission denied opening " + show(file));
  }

  private static FileRejectedException unreadable(Path file, IOException cause) {
    return new FileRejectedException(Reason.UNREADABLE, "cannot open " + show(file) + ": "
        + cause.getClass().getSimpleName() + reasonOf(cause));
  }

  /** The reason a {@link FileSystemException} gives (an errno's name, the system's text), if any. */
  private static String reasonOf(IOException cause) {
    return cause instanceof FileSystemException f && f.getReason() != null ? " (" + show(f.getReason()) + ")" : "";
  }

  private static String show(Object value) {
    return PrintableText.escape(value);
  }
}
