package dev.segmentledger.core.internal;

import dev.segmentledger.core.Reason;
import dev.segmentledger.core.UnsupportedFileNameException;
import java.nio.file.InvalidPathException;
import java.nio.file.Path;
import java.nio.file.attribute.BasicFileAttributes;
import java.time.Instant;

/**
 * What the ledger registered of a file, and the rules the file must still meet when it is opened
 * for upload: the same as at registration (not empty), plus the registered size and identity; and
 * the rule for the name it is registered under ({@link #requireRepresentable}).
 * {@code shownName} is the file as shown in messages (escaped); {@code identity} may be null (not
 * checked). Immutable.
 */
record RegisteredFile(String shownName, long size, String identity) {

  /**
   * The identity of a file as the ledger records it at registration and requires at upload: its
   * file key (device and inode) and modification time. {@code null} where the platform has no
   * file keys. A rewrite in place or a replacement changes it, unless it happens within the file
   * system's timestamp granularity of the registration (a few milliseconds on Linux).
   */
  static String identityOf(BasicFileAttributes attributes) {
    Object key = attributes.fileKey();
    return key == null ? null : identityOf(key.toString(), attributes.lastModifiedTime().toInstant());
  }

  /** {@link #identityOf(BasicFileAttributes)} of a file key's text and a modification time. */
  static String identityOf(String fileKey, Instant lastModified) {
    return fileKey + "@" + InstantText.of(lastModified);
  }

  /**
   * Refuses a file registered empty: the same rule at registration and at every upload, so that a
   * re-opened EMPTY_FILE row never uploads an empty object.
   */
  static void requireNotEmpty(String shownName, long registeredSize) throws FileRejectedException {
    if (registeredSize == 0) {
      throw new FileRejectedException(Reason.EMPTY_FILE, shownName + " is empty");
    }
  }

  /**
   * Refuses, in this order, a file registered empty ({@link Reason#EMPTY_FILE}), one whose size
   * differs from the registered one ({@link Reason#FILE_GREW}, {@link Reason#FILE_SHRANK}), and one
   * whose identity is not the registered one ({@link Reason#FILE_CHANGED}).
   */
  void requireMatches(long actualSize, String actualIdentity) throws FileRejectedException {
    requireNotEmpty(shownName, size);
    VerifiedFile.requireSize(shownName, actualSize, size);
    if (identity != null && !identity.equals(actualIdentity)) {
      throw new FileRejectedException(Reason.FILE_CHANGED, shownName + " has its registered size but is not the"
          + " registered file any more (rewritten in place or replaced): registered " + identity + ", now "
          + actualIdentity);
    }
  }

  /**
   * Refuses a path that does not survive the trip to text and back: the ledger stores paths as
   * text, so a name whose bytes are not valid in the platform's file name encoding (for example
   * byte 0xFF under UTF-8) would be stored with U+FFFD in its place and, read back, name another
   * file, or none. Checked on the path as given ({@code given}, absolute) and on its real path
   * (a symlink may lead to such a name); {@code shownName} is the file as shown in messages.
   *
   * @throws UnsupportedFileNameException if either does not round-trip
   */
  static void requireRepresentable(Path given, Path realPath, String shownName) {
    // A real path equal to the path given (the usual registration) is not decoded twice.
    for (Path path : new Path[] {given, given.equals(realPath) ? null : realPath}) {
      if (path != null && !roundTrips(path)) {
        throw new UnsupportedFileNameException(shownName, System.getProperty("sun.jnu.encoding", "unknown"));
      }
    }
  }

  private static boolean roundTrips(Path path) {
    try {
      return path.equals(path.getFileSystem().getPath(path.toString()));
    } catch (InvalidPathException e) {
      return false; // the decoded text has characters the encoding cannot map back
    }
  }
}
