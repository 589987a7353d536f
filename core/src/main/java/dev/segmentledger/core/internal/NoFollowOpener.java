package dev.segmentledger.core.internal;

import java.io.IOException;
import java.nio.channels.FileChannel;
import java.nio.channels.SeekableByteChannel;
import java.nio.file.DirectoryStream;
import java.nio.file.FileSystemException;
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
 * component. The walk starts from a stream on the root held open by the {@link HeldRoot}, or from a
 * freshly opened one that must be the held directory. It checks nothing else: the guard decides
 * what may be opened. Thread-safe (stateless but for the root's path).
 */
final class NoFollowOpener {
  private final Path root;

  NoFollowOpener(Path root) {
    this.root = root;
  }

  /** Runs right before the final open, with the final name's attributes read through its directory. */
  interface BeforeOpen {
    void check(BasicFileAttributes attributes) throws FileRejectedException;
  }

  /**
   * The attributes of {@code relative} (normalized, below the root), read through the held root
   * stream {@code heldRoot} ({@code fstatat} on the root's descriptor, the final name's symlink not
   * followed: it is reported as a symlink). An intermediate symlink would be followed: a caller that
   * must not follow one reads each directory of the path first.
   *
   * @throws java.nio.file.ClosedDirectoryStreamException if the stream was closed
   */
  static BasicFileAttributes attributesBelow(SecureDirectoryStream<Path> heldRoot, Path relative) throws IOException {
    return heldRoot.getFileAttributeView(relative, BasicFileAttributeView.class, LinkOption.NOFOLLOW_LINKS)
        .readAttributes();
  }

  /**
   * Walks from the held root stream {@code heldRoot} to {@code relative} (normalized, below the
   * root) and opens it; {@code beforeOpen} first sees the final name's attributes ({@code fstatat},
   * no symlink followed).
   *
   * @throws java.nio.file.ClosedDirectoryStreamException if the stream was closed
   */
  FileChannel openFromHeldRoot(SecureDirectoryStream<Path> heldRoot, Path relative, BeforeOpen beforeOpen)
      throws IOException, FileRejectedException {
    Deque<AutoCloseable> opened = new ArrayDeque<>();
    try {
      return walkAndOpen(heldRoot, relative, beforeOpen, opened);
    } finally {
      opened.forEach(NoFollowOpener::closeQuietly);
    }
  }

  /**
   * Walks from a freshly opened root stream to {@code relative} (below the root) and opens it. The
   * opened root must have the file key {@code rootKey} (the held root's; unchecked if {@code null}
   * or where the platform has no secure streams): a root replaced since it was checked fails the
   * open instead of redirecting it.
   */
  FileChannel openFromFreshRoot(Path relative, Object rootKey) throws IOException, FileRejectedException {
    Deque<AutoCloseable> opened = new ArrayDeque<>();
    try {
      DirectoryStream<Path> top = Files.newDirectoryStream(root);
      opened.push(top);
      if (!(top instanceof SecureDirectoryStream<Path> directory)) {
        return FileChannel.open(root.resolve(relative), StandardOpenOption.READ, LinkOption.NOFOLLOW_LINKS);
      }
      Object opensKey = directory.getFileAttributeView(BasicFileAttributeView.class).readAttributes().fileKey();
      if (rootKey != null && !rootKey.equals(opensKey)) {
        throw new FileSystemException(root.toString(), null, "the root was replaced since it was checked");
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

  /** A secure directory stream open on {@code directory}, or {@code null} where none can be opened. */
  static SecureDirectoryStream<Path> openSecureDirectory(Path directory) {
    try {
      DirectoryStream<Path> stream = Files.newDirectoryStream(directory);
      if (stream instanceof SecureDirectoryStream<Path> secure) {
        return secure;
      }
      stream.close();
    } catch (IOException e) {
      // none: every open walks from a freshly opened root
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
