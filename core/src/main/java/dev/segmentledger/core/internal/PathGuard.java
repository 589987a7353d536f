package dev.segmentledger.core.internal;

import dev.segmentledger.core.internal.BoundaryCheck.Checked;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.channels.FileChannel;
import java.nio.file.AccessDeniedException;
import java.nio.file.ClosedDirectoryStreamException;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.nio.file.SecureDirectoryStream;
import java.util.function.BiConsumer;
import java.util.function.BiFunction;

/**
 * The file boundary (docs/design.md, principle 7 and "The file boundary"). Thread-safe.
 *
 * <p><b>Check.</b> The allowed root is resolved once, at construction, to its real path. A file
 * is accepted only if its real path (every symlink, {@code ..} and relative part resolved by the
 * operating system, never lexically) lies inside the root <em>as a path</em> ({@link
 * Path#startsWith(Path)} compares whole name elements, so {@code /rec-evil} is not inside {@code
 * /rec}), and if {@code lstat} of that real path reports a regular file. Symlinks that stay inside
 * the root are followed; anything else is refused with a named {@link Reason}. An absolute,
 * normalized path below the root is first read through the stream held on the root, no symlink
 * followed: if no component is a symlink it is its own real path (saving a {@code readlink} per
 * component); if any is, it is resolved as above.
 *
 * <p><b>Root.</b> Every check and open first makes sure the root's path still leads to the directory
 * held ({@link HeldRoot}: one {@code lstat}, file keys compared). A root replaced while running
 * (renamed away, re-created, remounted) is re-opened if the path now names a directory without any
 * symlink on the way, and files are then judged against it; otherwise every file is refused with
 * ROOT_REPLACED, so that nothing is judged against a tree no longer at the root's path, nor read
 * through a symlink put in the root's place. An open during which the root was re-opened is
 * refused as ROOT_REPLACED (retried) whatever it met: it may have compared one tree with the other.
 *
 * <p><b>Open.</b> {@link #open} repeats the check, compares the size with the registered one
 * <em>before</em> opening, and opens the real path without following any symlink: with a {@link
 * SecureDirectoryStream} (Linux) one name at a time from the root ({@code openat(..., O_NOFOLLOW)}),
 * so a symlink swapped in for any component makes the open fail instead of redirecting it;
 * elsewhere with {@link LinkOption#NOFOLLOW_LINKS} (the final component only). It then verifies
 * that every component is still a directory and the name the checked file (same file key), and
 * reads the size from the open channel ({@code fstat}). A failed open is
 * named by checking the path afresh (a symlink swapped in that points out of the root is
 * OUTSIDE_ROOT); if the path is unchanged the open itself failed (UNREADABLE).
 *
 * <p><b>Open by the registered real path.</b> A row stores the real path its file was checked
 * under, so the upload usually opens a path that is absolute, normalized and below the root, without
 * resolving it again. With a {@link BeneathOpener} (JDK 22 or later, Linux 5.6 or later, native
 * access enabled) that is one {@code openat2} from a descriptor on the held root that refuses any
 * symlink, escape or mount crossing, and the type, size and identity are read on the descriptor
 * before a channel is opened on it: gaps (1) and (2) below and (3)'s mount do not arise. Otherwise the walk starts
 * from the stream held on the root, the final name's attributes ({@code fstatat}, no symlink
 * followed) must be a regular file of the registered size before it is opened, and the checks after
 * the open are as above. Whatever fails is named by a fresh {@link #check}; other paths take the
 * full check first.
 *
 * <p><b>What Java 17 cannot close.</b> It has no {@code O_NONBLOCK} open and no {@code fstat} of a
 * channel's file key. Hence: (1) the file key (and that every component is still a directory) is
 * checked by name just before and after the open, so a regular file swapped in and back out
 * between those checks is not seen (with the walk it still lies below the root; with the plain
 * fallback an intermediate symlink swapped in then could point elsewhere). (2) A FIFO swapped in
 * between the check and the open blocks the worker until a writer appears. (3) A directory on the
 * path renamed out of the root after the walk opened it, a hard link, or a mount inside the root
 * are not detected. The design bounds what such a race achieves: the descriptor must be a regular
 * file of exactly the registered size, no more than that is read, the size is read again after the
 * PUT, and the confirm is a compare-and-set on it. Protection against these requires that no
 * adversary can write inside the root; the checks make mistakes and symlink games harmless.
 *
 * <p><b>Where.</b> The check is {@link BoundaryCheck}'s; the root held and its replacement are
 * {@link HeldRoot}'s; the walk is {@link NoFollowOpener}'s, {@code openat2} {@link BeneathOpener}'s; the registered size, emptiness, identity and
 * name rules are {@link RegisteredFile}'s; every failed open is named in one place, {@link OpenFailures}.
 */
final class PathGuard implements AutoCloseable {
  private final Path root;
  private final Runnable beforeOpen;
  private final BoundaryCheck boundary;
  private final NoFollowOpener opener;
  private final HeldRoot heldRoot;
  private final BeneathOpener beneath;
  private final OpenFailures failures;

  /** A guard that tells {@code onRootReopened} the root and what changed when it re-opens a replaced root. */
  PathGuard(Path allowedRoot, BiConsumer<Path, String> onRootReopened) {
    this(allowedRoot, () -> { }, onRootReopened, BeneathOpener::forRoot);
  }

  /**
   * For tests: {@code beforeOpen} runs between the re-check and the open, to stage a race there;
   * {@code openers} makes the {@link BeneathOpener} for the real root and its file key ({@code null}: the Java 17 open).
   */
  PathGuard(Path allowedRoot, Runnable beforeOpen, BiConsumer<Path, String> onRootReopened, BiFunction<Path, Object, BeneathOpener> openers) {
    try {
      this.root = allowedRoot.toRealPath();
    } catch (IOException e) {
      throw new UncheckedIOException("allowed root " + allowedRoot + " cannot be resolved", e);
    }
    if (!Files.isDirectory(root)) {
      throw new IllegalArgumentException("allowed root " + allowedRoot + " is not a directory");
    }
    this.beforeOpen = beforeOpen;
    this.boundary = new BoundaryCheck(root);
    this.opener = new NoFollowOpener(root);
    this.heldRoot = new HeldRoot(root, onRootReopened);
    this.failures = new OpenFailures(this::check, boundary, this::absolute);
    this.beneath = openers.apply(root, heldRoot.fileKey());
  }

  /** Closes the directory stream and descriptor held on the root. */
  @Override
  public void close() {
    heldRoot.close();
    NoFollowOpener.closeQuietly(beneath);
  }

  /** Whether registered paths are opened with {@code openat2} ({@link BeneathOpener}). */
  boolean opensBeneath() {
    return beneath != null;
  }

  Path root() {
    return root;
  }

  /** The held root's stream ({@link HeldRoot#current}): where {@link LocalFileRemover} starts its walks. */
  SecureDirectoryStream<Path> heldRootStream() throws FileRejectedException {
    return heldRoot.current();
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
    SecureDirectoryStream<Path> held = heldRoot.current();
    Path path = absolute(file);
    if (held != null && plainBelowRoot(path)) {
      Checked linkFree = BoundaryCheck.checkLinkFree(held, path, boundary.belowRoot(path));
      if (linkFree != null) {
        return linkFree;
      }
    }
    return boundary.check(file);
  }

  /**
   * Whether {@code path} is absolute, normalized (no {@code .} or {@code ..}) and below the root:
   * the form of a registered real path, and of what recorders usually register.
   */
  private boolean plainBelowRoot(Path path) {
    return path.startsWith(root) && !path.equals(root) && path.equals(path.normalize());
  }

  /** {@link RegisteredFile#requireRepresentable} of {@code file} (relative paths are taken from the root). */
  void requireRepresentable(Path file, Path realPath) {
    RegisteredFile.requireRepresentable(absolute(file), realPath, PrintableText.escape(file));
  }

  /**
   * Re-checks {@code file} and opens it for reading, verifying that the opened file is the one
   * checked and has exactly {@code registeredSize} bytes. Never opens anything that was not a
   * regular file inside the root an instant before.
   *
   * @throws FileRejectedException with the reason, if the file must not be uploaded
   */
  VerifiedFile open(Path file, long registeredSize) throws FileRejectedException {
    return open(file, registeredSize, null);
  }

  /**
   * {@link #open(Path, long)}, with the same rules as at registration: after the boundary checks,
   * the file must meet the {@link RegisteredFile} rules (not registered empty, the registered size,
   * the registered identity unless {@code registeredIdentity} is {@code null}).
   */
  VerifiedFile open(Path file, long registeredSize, String registeredIdentity) throws FileRejectedException {
    RegisteredFile registered = new RegisteredFile(PrintableText.escape(file), registeredSize, registeredIdentity);
    Object heldKey = heldRoot.fileKey(); // read first: a re-opening from here on is seen
    try {
      SecureDirectoryStream<Path> held = heldRoot.current();
      Path path = absolute(file);
      if (held != null && plainBelowRoot(path)) {
        VerifiedFile opened = beneath == null ? null
            : openBeneath(file, boundary.belowRoot(path), heldRoot.fileKey(), registered);
        if (opened != null) {
          return opened;
        }
        try {
          return openRegisteredPath(held, file, boundary.belowRoot(path), registered);
        } catch (ClosedDirectoryStreamException e) {
          // the guard was closed, or the root re-opened: take the full path below
        }
      }
      return openChecked(file, registered);
    } catch (FileRejectedException e) {
      throw heldRoot.unlessReopenedSince(heldKey, e);
    }
  }

  /**
   * Opens {@code relative} (normalized, below the root) by walking from the held root stream,
   * after reading the final name's attributes through its directory, without resolving it again.
   */
  private VerifiedFile openRegisteredPath(SecureDirectoryStream<Path> held, Path file, Path relative,
      RegisteredFile registered) throws FileRejectedException {
    Checked[] seen = new Checked[1];
    FileChannel channel = null;
    try {
      channel = opener.openFromHeldRoot(held, relative, before -> {
        if (!before.isRegularFile()) {
          throw failures.whyNotOpened(file, null, null);
        }
        seen[0] = Checked.of(root.resolve(relative), before);
        registered.requireMatches(seen[0].size(), seen[0].identity());
        beforeOpen.run();
      });
      VerifiedFile verified = verifyOpened(file, channel, seen[0], registered);
      channel = null;
      return verified;
    } catch (AccessDeniedException e) {
      throw OpenFailures.permissionDenied(file);
    } catch (IOException e) {
      throw failures.whyNotOpened(file, null, e);
    } finally {
      NoFollowOpener.closeQuietly(channel);
    }
  }

  /**
   * Opens {@code relative} with {@code openat2} from the root directory with key {@code rootKey},
   * admitting only a regular file of the registered size and identity, while the root's path still
   * leads to that directory; {@code null} if the opener does not hold it (the walk then opens).
   */
  private VerifiedFile openBeneath(Path file, Path relative, Object rootKey, RegisteredFile registered)
      throws FileRejectedException {
    FileChannel channel = null;
    try {
      beforeOpen.run();
      channel = beneath.open(relative, rootKey, (regularFile, size, identity) -> {
        if (!regularFile) {
          throw failures.whyNotOpened(file, null, null);
        }
        registered.requireMatches(size, identity);
      });
      if (channel == null) {
        return null;
      } else if (heldRoot.current() != null && !rootKey.equals(heldRoot.fileKey())) {
        throw failures.whyNotOpened(file, null, null); // the root was replaced during the open: retried
      }
      VerifiedFile verified = new VerifiedFile(channel, registered.size(), registered.shownName());
      channel = null;
      return verified;
    } catch (AccessDeniedException e) {
      throw OpenFailures.permissionDenied(file);
    } catch (IOException e) {
      throw failures.whyNotOpened(file, null, e);
    } finally {
      NoFollowOpener.closeQuietly(channel);
    }
  }

  /** The full open: check (resolving the path), then walk from a freshly opened root. */
  private VerifiedFile openChecked(Path file, RegisteredFile registered) throws FileRejectedException {
    Checked checked = check(file);
    registered.requireMatches(checked.size(), checked.identity());
    beforeOpen.run();
    FileChannel channel = null;
    try {
      channel = opener.openFromFreshRoot(boundary.belowRoot(checked.realPath()), heldRoot.fileKey());
      VerifiedFile verified = verifyOpened(file, channel, checked, registered);
      channel = null;
      return verified;
    } catch (AccessDeniedException e) {
      throw OpenFailures.permissionDenied(file);
    } catch (IOException e) {
      throw failures.whyNotOpened(file, checked, e);
    } finally {
      NoFollowOpener.closeQuietly(channel);
    }
  }

  /**
   * The checks after an open: the path still leads through directories to the file that was
   * checked, and the open file ({@code fstat}) has the registered size.
   */
  private VerifiedFile verifyOpened(Path file, FileChannel channel, Checked checked, RegisteredFile registered)
      throws FileRejectedException, IOException {
    if (!boundary.stillAsChecked(checked)) {
      throw failures.whyNotOpened(file, null, null);
    }
    VerifiedFile.requireSize(registered.shownName(), channel.size(), registered.size());
    return new VerifiedFile(channel, registered.size(), registered.shownName());
  }
}
