package dev.segmentledger.core.internal;

import dev.segmentledger.core.Reason;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.nio.file.SecureDirectoryStream;
import java.nio.file.attribute.BasicFileAttributeView;
import java.nio.file.attribute.BasicFileAttributes;
import java.util.Objects;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.BiConsumer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The allowed root as the {@link PathGuard} holds it: a directory stream open on it (where the
 * platform offers {@link SecureDirectoryStream}s) and its file key (device and inode), and what
 * happens when the directory at the root's path is replaced while the ledger runs. Thread-safe.
 *
 * <p><b>Same root.</b> Before every check and open, {@link #current} reads the root path's
 * attributes without following a final symlink ({@code lstat}). If it is a directory with the held
 * file key, the held stream is used: the path still leads to the held directory.
 *
 * <p><b>Replaced.</b> Otherwise the root was renamed away, deleted, re-created or remounted, and
 * judging a file through the held stream would judge it against a tree that is no longer at the
 * root's path. The root is then <em>re-opened</em> if that is safe: the root path is a directory,
 * not a symlink, and resolving it ({@code realpath}) gives the root path itself, so that no
 * component of it is a symlink; the boundary then means what it meant at start, the tree at the
 * configured path. If the held directory was a mount point (on another device than its parent),
 * the new one must be one too: a directory on its parent's device is the bare mount point left by
 * an unmount (lazy, or a remount that failed), where every row registered before would be missing.
 * The new stream is opened first (if it cannot be, say with too many open files, the held root is
 * kept and the next call tries again), then the path is checked again and its file key
 * compared with the opened stream's ({@code fstat}), so the stream is the directory the link-free
 * path named after it was opened. The old stream is closed (a walk in flight on it fails and takes
 * the full check), and the re-opening is reported ({@code onReopened}: a WARN line and the
 * listeners' {@code onAllowedRootReopened}). From then on every file, including rows registered
 * before, is judged against the new directory. Anything else (a symlink at the root's path or on
 * the way to it, nothing there, not a directory, a bare mount point) is refused with
 * {@link Reason#ROOT_REPLACED}, logged once until the root is usable again; if the held directory
 * comes back to the path, it is used again without a re-opening. A held root that was a mount
 * point stays refused while its path is a bare directory: remount it, or restart the ledger to take
 * the directory as it is.
 *
 * <p>A platform without file keys (they are {@code null}) cannot tell directories apart: the held
 * root is then used as it is.
 */
final class HeldRoot implements AutoCloseable {
  private static final Logger log = LoggerFactory.getLogger(HeldRoot.class);

  private final Path root;
  private final BiConsumer<Path, String> onReopened;
  private final Directories directories;
  /** Whether a refusal was logged since the root was last usable: once per replacement, not per file. */
  private final AtomicBoolean refusalLogged = new AtomicBoolean();
  private volatile Held held;
  private boolean closed; // guarded by this

  /** What the held root asks of the file system besides attributes: a seam for tests. */
  interface Directories {
    /** The file system's own: {@link NoFollowOpener#openSecureDirectory}, and {@code unix:dev}. */
    Directories SYSTEM = new Directories() {
      @Override
      public SecureDirectoryStream<Path> open(Path directory) {
        return NoFollowOpener.openSecureDirectory(directory);
      }

      @Override
      public Object deviceOf(Path path) {
        try {
          return Files.getAttribute(path, "unix:dev", LinkOption.NOFOLLOW_LINKS);
        } catch (IOException | UnsupportedOperationException | IllegalArgumentException e) {
          return null;
        }
      }
    };

    /** A secure stream open on {@code directory}, or {@code null} if none could be opened. */
    SecureDirectoryStream<Path> open(Path directory);

    /** The device {@code path} is on (a final symlink not followed), or {@code null} if unknown. */
    Object deviceOf(Path path);
  }

  /**
   * The directory held: its stream ({@code null} where none could be opened), its file key, and
   * whether it was a mount point (on another device than its parent directory).
   */
  private record Held(SecureDirectoryStream<Path> stream, Object fileKey, boolean mountPoint) {
  }

  /**
   * @param root the allowed root, a real path naming a directory
   * @param onReopened told the root and what changed after a replaced root was re-opened
   */
  HeldRoot(Path root, BiConsumer<Path, String> onReopened) {
    this(root, onReopened, Directories.SYSTEM);
  }

  /** For tests: {@code directories} opens directory streams and reads devices. */
  HeldRoot(Path root, BiConsumer<Path, String> onReopened, Directories directories) {
    this.root = root;
    this.onReopened = Objects.requireNonNull(onReopened, "onReopened");
    this.directories = directories;
    SecureDirectoryStream<Path> stream = directories.open(root);
    BasicFileAttributes attributes = stream != null ? attributesOf(stream) : attributesOf(root);
    this.held = new Held(stream, attributes == null ? null : attributes.fileKey(), isMountPoint() == Boolean.TRUE);
  }

  /**
   * The held root stream, once the root path is known to lead to the held directory (re-opening a
   * replaced root if safe); {@code null} if there is none: walks then start from a freshly opened
   * root, which must have {@link #fileKey}.
   *
   * @throws FileRejectedException {@link Reason#ROOT_REPLACED}, if the root was replaced and is not
   *     safe to re-open
   */
  SecureDirectoryStream<Path> current() throws FileRejectedException {
    Held now = held;
    if (now.fileKey() == null || isHeld(now, attributesOf(root))) {
      if (refusalLogged.get()) {
        refusalLogged.set(false);
      }
      return now.stream();
    }
    return reopenOrRefuse();
  }

  /** The held directory's file key ({@code null} if the platform has none). */
  Object fileKey() {
    return held.fileKey();
  }

  /**
   * {@code rejected}, unless the root was re-opened since its key was {@code heldKey}: a verdict
   * reached across a re-opening compared one tree with the other, so it is ROOT_REPLACED (retried).
   */
  FileRejectedException unlessReopenedSince(Object heldKey, FileRejectedException rejected) {
    if (Objects.equals(heldKey, fileKey()) || rejected.reason() == Reason.ROOT_REPLACED) {
      return rejected;
    }
    return new FileRejectedException(Reason.ROOT_REPLACED, "the allowed root " + PrintableText.escape(root)
        + " was re-opened while the file was opened (" + rejected.reason() + ": " + rejected.getMessage() + ")");
  }

  private static boolean isHeld(Held held, BasicFileAttributes attributes) {
    return attributes != null && attributes.isDirectory() && held.fileKey().equals(attributes.fileKey());
  }

  private synchronized SecureDirectoryStream<Path> reopenOrRefuse() throws FileRejectedException {
    Held before = held;
    BasicFileAttributes attributes = attributesOf(root);
    if (isHeld(before, attributes)) {
      return before.stream(); // re-opened by another thread meanwhile, or the held directory is back
    }
    String unsafe = whyNotSafe(before, attributes);
    if (unsafe == null) {
      Held reopened = openSafely(before);
      if (reopened != null) {
        held = reopened;
        NoFollowOpener.closeQuietly(before.stream());
        refusalLogged.set(false);
        onReopened.accept(root, "the directory at its path was " + before.fileKey() + ", is now "
            + reopened.fileKey());
        return reopened.stream();
      }
      unsafe = "changed while being re-opened, or no directory stream could be opened on it";
    }
    String detail = "the allowed root " + PrintableText.escape(root) + " " + unsafe
        + ": it is not the directory the ledger opened";
    if (refusalLogged.compareAndSet(false, true)) {
      log.warn("{}; files below it are refused (ROOT_REPLACED) until the held directory is back at that path, or"
          + " a directory reached without any symlink is (mounted again, if the root was a mount point)", detail);
    }
    throw new FileRejectedException(Reason.ROOT_REPLACED, detail);
  }

  /**
   * Why the directory now at the root's path must not be taken in place of {@code before}, or
   * {@code null} if it may: it is a directory, not a symlink, a mount point if {@code before} was
   * one (else it is the bare directory left under an unmounted filesystem, where every row
   * registered before would be missing), and the root path is its own real path.
   */
  private String whyNotSafe(Held before, BasicFileAttributes attributes) {
    if (attributes == null) {
      return "is missing or cannot be read";
    }
    if (attributes.isSymbolicLink()) {
      return "is now a symlink";
    }
    if (!attributes.isDirectory()) {
      return "is no longer a directory";
    }
    if (before.mountPoint() && isMountPoint() == Boolean.FALSE) {
      return "is no longer a mount point (the directory under an unmounted filesystem)";
    }
    try {
      Path real = root.toRealPath();
      return real.equals(root) ? null : "now leads through a symlink (to " + PrintableText.escape(real) + ")";
    } catch (IOException e) {
      return "cannot be resolved (" + e.getClass().getSimpleName() + ")";
    }
  }

  /**
   * Opens the directory at the root's path, then checks that the path is still safe and still names
   * the opened directory; {@code null} if not, or if no stream could be opened where {@code before}
   * had one (too many open files, say: the held root is kept and the next call tries again). Once
   * closed, holds no stream.
   */
  private Held openSafely(Held before) {
    SecureDirectoryStream<Path> stream = closed ? null : directories.open(root);
    if (stream == null && before.stream() != null && !closed) {
      return null;
    }
    BasicFileAttributes opened = stream == null ? null : attributesOf(stream);
    BasicFileAttributes after = attributesOf(root);
    boolean sameDirectory = stream == null || (opened != null && after != null
        && Objects.equals(opened.fileKey(), after.fileKey()));
    if (!sameDirectory || whyNotSafe(before, after) != null) {
      NoFollowOpener.closeQuietly(stream);
      return null;
    }
    return new Held(stream, after.fileKey(), isMountPoint() == Boolean.TRUE);
  }

  /** Whether the root's path is on another device than its parent directory; {@code null} if unknown. */
  private Boolean isMountPoint() {
    Path parent = root.getParent();
    Object device = directories.deviceOf(root);
    Object parentDevice = parent == null ? null : directories.deviceOf(parent);
    return device == null || parentDevice == null ? null : !device.equals(parentDevice);
  }

  /** Closes the held stream; later walks from it throw {@code ClosedDirectoryStreamException}. */
  @Override
  public synchronized void close() {
    closed = true;
    NoFollowOpener.closeQuietly(held.stream());
  }

  /** The attributes of {@code path} ({@code lstat}: a final symlink not followed), or {@code null} if unreadable. */
  private static BasicFileAttributes attributesOf(Path path) {
    try {
      return Files.readAttributes(path, BasicFileAttributes.class, LinkOption.NOFOLLOW_LINKS);
    } catch (IOException e) {
      return null;
    }
  }

  /** The attributes of the directory {@code stream} is open on ({@code fstat}), or {@code null} if unreadable. */
  private static BasicFileAttributes attributesOf(SecureDirectoryStream<Path> stream) {
    try {
      return stream.getFileAttributeView(BasicFileAttributeView.class).readAttributes();
    } catch (IOException | RuntimeException e) {
      return null;
    }
  }
}
