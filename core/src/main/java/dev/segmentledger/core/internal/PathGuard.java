package dev.segmentledger.core.internal;

import dev.segmentledger.core.Reason;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.channels.FileChannel;
import java.nio.file.AccessDeniedException;
import java.nio.file.FileSystemException;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.nio.file.attribute.BasicFileAttributes;

/**
 * The file boundary. The allowed root is resolved once to its real path; a file is accepted only
 * if its real path (symlinks, {@code ..} and relative parts resolved) lies inside the root as a
 * path, not as a string prefix, and is a regular file. The check runs at registration and again
 * when the file is opened for upload, where the file is opened without following a final symlink
 * and verified to be the same regular file that was checked. Thread-safe.
 */
final class PathGuard {
  private final Path root;

  PathGuard(Path allowedRoot) {
    try {
      this.root = allowedRoot.toRealPath();
    } catch (IOException e) {
      throw new UncheckedIOException("allowed root " + allowedRoot + " cannot be resolved", e);
    }
    if (!Files.isDirectory(root)) {
      throw new IllegalArgumentException("allowed root " + allowedRoot + " is not a directory");
    }
  }

  Path root() {
    return root;
  }

  /** The absolute, normalised form of {@code file}, relative paths taken from the root. */
  Path absolute(Path file) {
    return root.resolve(file).normalize();
  }

  /**
   * Checks {@code file} and returns its real path and size.
   *
   * @throws FileRejectedException with the reason if the file must not be uploaded
   */
  Checked check(Path file) throws FileRejectedException {
    Path real;
    try {
      real = absolute(file).toRealPath();
    } catch (NoSuchFileException e) {
      throw new FileRejectedException(Reason.MISSING_FILE, "no such file: " + file);
    } catch (FileSystemException e) {
      // ELOOP (symlink loop), ENOTDIR and similar: the path cannot name a file we may read.
      throw new FileRejectedException(Reason.NOT_REGULAR_FILE, "cannot resolve " + file + ": " + e.getReason());
    } catch (IOException e) {
      throw new FileRejectedException(Reason.UNREADABLE, "cannot resolve " + file + ": " + e);
    }
    if (!real.startsWith(root)) {
      throw new FileRejectedException(Reason.OUTSIDE_ROOT, file + " resolves outside the allowed root");
    }
    BasicFileAttributes attributes;
    try {
      attributes = Files.readAttributes(real, BasicFileAttributes.class, LinkOption.NOFOLLOW_LINKS);
    } catch (NoSuchFileException e) {
      throw new FileRejectedException(Reason.MISSING_FILE, "no such file: " + file);
    } catch (IOException e) {
      throw new FileRejectedException(Reason.UNREADABLE, "cannot read attributes of " + file + ": " + e);
    }
    if (!attributes.isRegularFile()) {
      throw new FileRejectedException(Reason.NOT_REGULAR_FILE, file + " is not a regular file");
    }
    return new Checked(real, attributes.size(), attributes.fileKey());
  }

  /**
   * Re-checks {@code file} and opens it for reading, verifying that the opened file is the one
   * checked and has {@code expectedSize} bytes.
   */
  VerifiedFile open(Path file, long expectedSize) throws FileRejectedException {
    Checked checked = check(file);
    FileChannel channel;
    try {
      channel = FileChannel.open(checked.realPath(), StandardOpenOption.READ, LinkOption.NOFOLLOW_LINKS);
    } catch (NoSuchFileException e) {
      throw new FileRejectedException(Reason.MISSING_FILE, "no such file: " + file);
    } catch (AccessDeniedException e) {
      throw new FileRejectedException(Reason.UNREADABLE, "permission denied: " + file);
    } catch (IOException e) {
      throw new FileRejectedException(Reason.UNREADABLE, "cannot open " + file + ": " + e);
    }
    try {
      Object keyAfterOpen = Files.readAttributes(checked.realPath(), BasicFileAttributes.class,
          LinkOption.NOFOLLOW_LINKS).fileKey();
      if (checked.fileKey() != null && !checked.fileKey().equals(keyAfterOpen)) {
        throw new FileRejectedException(Reason.NOT_REGULAR_FILE, file + " was replaced while being opened");
      }
      long size = channel.size();
      if (size != expectedSize) {
        throw new FileRejectedException(Reason.SIZE_MISMATCH,
            file + " has " + size + " bytes, registered with " + expectedSize);
      }
      return new VerifiedFile(channel, expectedSize);
    } catch (FileRejectedException | RuntimeException e) {
      closeQuietly(channel);
      throw e;
    } catch (IOException e) {
      closeQuietly(channel);
      throw new FileRejectedException(Reason.UNREADABLE, "cannot verify " + file + ": " + e);
    }
  }

  private static void closeQuietly(FileChannel channel) {
    try {
      channel.close();
    } catch (IOException ignored) {
      // nothing was read; the rejection is what matters
    }
  }

  /** A file that passed the checks. */
  record Checked(Path realPath, long size, Object fileKey) {}
}
