package dev.segmentledger.core.internal;

import java.io.IOException;
import java.nio.file.DirectoryStream;
import java.nio.file.FileAlreadyExistsException;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.attribute.BasicFileAttributes;
import java.nio.file.attribute.FileAttribute;
import java.nio.file.attribute.PosixFileAttributeView;
import java.nio.file.attribute.PosixFilePermission;
import java.nio.file.attribute.PosixFilePermissions;
import java.security.SecureRandom;
import java.time.Duration;
import java.time.Instant;
import java.util.Objects;
import java.util.Set;

/**
 * The naming and cleaning of a repackager's temporary files: what {@link
 * dev.segmentledger.core.spi.Repackager}'s static helpers do (see there), and what the engine reads
 * when it measures a run's progress. Thread-safe, stateless.
 */
public final class RepackagerTemporaries {
  /** The ending of every temporary file name. */
  public static final String SUFFIX = ".segment-ledger-partial";

  private static final SecureRandom RANDOM = new SecureRandom();
  private static final FileAttribute<Set<PosixFilePermission>> OWNER_ONLY =
      PosixFilePermissions.asFileAttribute(PosixFilePermissions.fromString("rw-------"));

  private RepackagerTemporaries() {}

  /** Whether {@code file}'s name is that of a repackager's temporary file. */
  public static boolean isTemporary(Path file) {
    Path name = file.getFileName();
    if (name == null) {
      return false;
    }
    String text = name.toString();
    return text.startsWith(".") && text.endsWith(SUFFIX) && text.length() > 1 + SUFFIX.length();
  }

  /** Whether {@code file}'s name is that of a temporary file of {@code target}. */
  public static boolean isTemporaryOf(Path file, Path target) {
    Path name = file.getFileName();
    if (name == null || !isTemporary(file)) {
      return false;
    }
    String text = name.toString();
    String prefix = prefix(target);
    if (!text.startsWith(prefix) || text.length() <= prefix.length() + SUFFIX.length()) {
      return false;
    }
    String random = text.substring(prefix.length(), text.length() - SUFFIX.length());
    return random.chars().allMatch(c -> c >= '0' && c <= '9');
  }

  /**
   * Creates a new empty temporary file beside {@code target} (readable and writable by the owner
   * only, where the file system has POSIX permissions).
   *
   * @throws IllegalArgumentException if {@code target}'s own name is that of a temporary file
   * @throws IOException if the file cannot be created
   */
  public static Path createBeside(Path target) throws IOException {
    Path absolute = requireOutputName(target);
    Path dir = absolute.getParent();
    boolean posix = Files.getFileStore(dir).supportsFileAttributeView(PosixFileAttributeView.class);
    while (true) {
      Path file = dir.resolve(prefix(absolute) + Long.toUnsignedString(RANDOM.nextLong()) + SUFFIX);
      try {
        return posix ? Files.createFile(file, OWNER_ONLY) : Files.createFile(file);
      } catch (FileAlreadyExistsException e) {
        // another name
      }
    }
  }

  /**
   * Removes, from {@code target}'s directory, the temporary files of {@code target} and those of
   * other targets last modified more than {@code othersOlderThan} ago. Only regular files are
   * removed, never followed through a symlink; what cannot be listed or removed is left (a missing
   * directory has nothing to remove).
   *
   * @return how many files were removed
   * @throws IllegalArgumentException if {@code target}'s own name is that of a temporary file
   */
  public static int cleanBeside(Path target, Duration othersOlderThan) {
    Objects.requireNonNull(othersOlderThan, "othersOlderThan");
    Path absolute = requireOutputName(target);
    Instant oldest = Instant.now().minus(othersOlderThan);
    int removed = 0;
    try (DirectoryStream<Path> files = Files.newDirectoryStream(absolute.getParent(),
        RepackagerTemporaries::isTemporary)) {
      for (Path file : files) {
        if (removable(file, absolute, oldest)) {
          removed += deleted(file);
        }
      }
    } catch (IOException | RuntimeException e) {
      // nothing (more) to remove here; the next run in this directory tries again
    }
    return removed;
  }

  private static boolean removable(Path file, Path target, Instant oldest) {
    try {
      BasicFileAttributes attributes = Files.readAttributes(file, BasicFileAttributes.class, LinkOption.NOFOLLOW_LINKS);
      return attributes.isRegularFile()
          && (isTemporaryOf(file, target) || attributes.lastModifiedTime().toInstant().isBefore(oldest));
    } catch (IOException e) {
      return false;
    }
  }

  private static int deleted(Path file) {
    try {
      Files.delete(file);
      return 1;
    } catch (NoSuchFileException e) {
      return 0; // removed by someone else meanwhile
    } catch (IOException e) {
      return 0;
    }
  }

  /** The bytes of the temporary files of {@code target} (0 if none): a repackager's progress. */
  static long bytesOf(Path target) {
    Path dir = target.getParent();
    if (dir == null) {
      return 0;
    }
    long bytes = 0;
    try (DirectoryStream<Path> files = Files.newDirectoryStream(dir, file -> isTemporaryOf(file, target))) {
      for (Path file : files) {
        bytes += Files.isRegularFile(file, LinkOption.NOFOLLOW_LINKS) ? Files.size(file) : 0;
      }
    } catch (IOException | RuntimeException e) {
      // gone meanwhile, or not yet there: no progress seen in it
    }
    return bytes;
  }

  private static Path requireOutputName(Path target) {
    Path absolute = target.toAbsolutePath();
    if (isTemporary(absolute)) {
      throw new IllegalArgumentException("a target may not be named like a temporary file: " + target);
    }
    return absolute;
  }

  private static String prefix(Path target) {
    return "." + target.getFileName() + ".";
  }
}
