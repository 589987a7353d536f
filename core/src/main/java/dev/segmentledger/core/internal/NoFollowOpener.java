package dev.segmentledger.core.internal;

import java.io.IOException;
import java.nio.channels.FileChannel;
import java.nio.channels.SeekableByteChannel;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.nio.file.SecureDirectoryStream;
import java.nio.file.StandardOpenOption;
import java.nio.file.attribute.BasicFileAttributeView;
import java.nio.file.attribute.BasicFileAttributes;
import java.util.ArrayDeque;
import java.util.Deque;
import java.util.Set;

/**
 * Opens a file below a root directory for reading without following any symlink: the one walk of
 * the {@link PathGuard}. Where the platform offers a {@link SecureDirectoryStream} (Linux), it
 * walks from the root one name at a time with {@code openat(..., O_NOFOLLOW)}, so a symlink swapped
 * in for any component, intermediate or final, makes the open fail instead of redirecting it;
 * elsewhere it opens the path with {@link LinkOption#NOFOLLOW_LINKS}, which protects only the final
 * component. The walk starts from a stream on the root held open for the opener's lifetime, or from
 * a freshly opened one. It checks nothing else: the guard decides what may be opened. Thread-safe.
 */
final class NoFollowOpener implements AutoCloseable {
  private final Path root;
  /** The root, open for walks; {@code null} where the platform has no secure streams. */
  private final SecureDirectoryStream<Path> heldRoot;

  NoFollowOpener(Path root) {
    this.root = root;
    this.heldRoot = openHeldRoot(root);
  }

  /** Runs right before the final open, with the final name's attributes read through its directory. */
  interface BeforeOpen {
    void check(BasicFileAttributes attributes) throws FileRejectedException;
  }

  /** Whether walks may start from a held root stream (secure streams, and the root could be opened). */
  boolean holdsRoot() {
    return heldRoot != null;
  }

  /**
   * The attributes of {@code relative} (normalized, below the root), read through the held root
   * stream ({@code fstatat} on the root's descriptor, the final name's symlink not followed: it is
   * reported as a symlink). An intermediate symlink would be followed: a caller that must not
   * follow one reads each directory of the path first. Only where {@link #holdsRoot}.
   *
   * @throws java.nio.file.ClosedDirectoryStreamException if the opener was closed
   */
  BasicFileAttributes attributesBelowHeldRoot(Path relative) throws IOException {
    return heldRoot.getFileAttributeView(relative, BasicFileAttributeView.class, LinkOption.NOFOLLOW_LINKS)
        .readAttributes();
  }

  /**
   * Walks from the held root stream to {@code relative} (normalized, below the root) and opens it;
   * {@code beforeOpen} first sees the final name's attributes ({@code fstatat}, no symlink
   * followed). Only where {@link #holdsRoot}.
   *
   * @throws java.nio.file.ClosedDirectoryStreamException if the opener was closed
   */
  FileChannel openFromHeldRoot(Path relative, BeforeOpen beforeOpen) throws IOException, FileRejectedException {
    Deque<AutoCloseable> opened = new ArrayDeque<>();
    try {
      return walkAndOpen(heldRoot, relative, beforeOpen, opened);
    } finally {
      opened.forEach(NoFollowOpener::closeQuietly);
    }
  }

  /** Walks from a freshly opened root stream to {@code relative} (below the root) and opens it. */
  FileChannel openFromFreshRoot(Path relative) throws IOException, FileRejectedException {
    Deque<AutoCloseable> opened = new ArrayDeque<>();
    try {
      DirectoryStream<Path> top = Files.newDirectoryStream(root);
      opened.push(top);
      if (!(top instanceof SecureDirectoryStream<Path> directory)) {
        return FileChannel.open(root.resolve(relative), StandardOpenOption.READ, LinkOption.NOFOLLOW_LINKS);
      }
      return walkAndOpen(directory, relative, null, opened);
    } finally {
      opened.forEach(NoFollowOpener::closeQuietly);
    }
  }

  private FileChannel walkAndOpen(SecureDirectoryStream<Path> from, Path relative, BeforeOpen beforeOpen,
      Deque<AutoCloseable> opened) throws IOException, FileRejectedException {
    SecureDirectoryStream<Path> directory = from;
    for (int i = 0; i < relative.getNameCount() - 1; i++) {
      directory = directory.newDirectoryStream(relative.getName(i), LinkOption.NOFOLLOW_LINKS);
      opened.push(directory);
    }
    Path name = relative.getFileName();
    if (beforeOpen != null) {
      beforeOpen.check(directory.getFileAttributeView(name, BasicFileAttributeView.class,
          LinkOption.NOFOLLOW_LINKS).readAttributes());
    }
    SeekableByteChannel channel = directory.newByteChannel(name,
        Set.of(StandardOpenOption.READ, LinkOption.NOFOLLOW_LINKS));
    if (channel instanceof FileChannel fileChannel) {
      return fileChannel;
    }
    channel.close();
    return FileChannel.open(root.resolve(relative), StandardOpenOption.READ, LinkOption.NOFOLLOW_LINKS);
  }

  /** Closes the held root stream; later walks from it throw {@code ClosedDirectoryStreamException}. */
  @Override
  public void close() {
    closeQuietly(heldRoot);
  }

  private static SecureDirectoryStream<Path> openHeldRoot(Path root) {
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

  static void closeQuietly(AutoCloseable closeable) {
    if (closeable == null) {
      return;
    }
    try {
      closeable.close();
    } catch (Exception ignored) {
      // nothing was read through it; the outcome is decided already
    }
  }
}
