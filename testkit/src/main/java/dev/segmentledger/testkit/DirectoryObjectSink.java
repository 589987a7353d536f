package dev.segmentledger.testkit;

import dev.segmentledger.core.SinkException;
import dev.segmentledger.core.StoredObjectInfo;
import dev.segmentledger.core.spi.ObjectSink;
import dev.segmentledger.core.spi.UploadContent;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.nio.channels.Channels;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;
import java.security.DigestInputStream;
import java.security.DigestOutputStream;
import java.security.MessageDigest;
import java.util.Comparator;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import java.util.UUID;
import java.util.stream.Stream;

/**
 * A durable {@link ObjectSink} that keeps each object as a file under a directory, for tests that
 * kill a process and let a second one inspect what the first stored.
 *
 * <p>Layout: {@code <root>/objects/<key>} ({@code /} in keys become directories) and
 * {@code <root>/tmp/} for writes in progress. A PUT writes a temporary file, forces it to disk,
 * renames it over the target with {@code ATOMIC_MOVE} and forces the directory: an object is
 * either absent, the old version or the complete new one, whenever the process dies. Checksums
 * ({@code sha256:<base64>}) are computed from the file on every {@link #head} and {@link #list}, so
 * there is no second file that could disagree. With {@code mayExist} set, an identical object (size
 * and checksum) is not written again; {@link #findIdentical} applies the same rule.
 *
 * <p>Its writes are all-or-nothing: a process killed mid-write leaves only a temporary file, which
 * is never listed. So it keeps {@link ObjectSink}'s defaults for unfinished uploads ({@link
 * #supportsUnfinishedUploads()} is {@code false}).
 *
 * <p>Thread-safe, and safe to share a root between processes for distinct keys; concurrent writers
 * of one key leave one of the complete versions.
 */
public final class DirectoryObjectSink implements ObjectSink {
  private final Path objects;
  private final Path tmp;

  /** A sink rooted at {@code root}, created if absent. Existing objects are kept. */
  public DirectoryObjectSink(Path root) {
    Path absolute = root.toAbsolutePath().normalize();
    this.objects = absolute.resolve("objects");
    this.tmp = absolute.resolve("tmp");
    try {
      Files.createDirectories(objects);
      Files.createDirectories(tmp);
    } catch (IOException e) {
      throw new UncheckedIOException("cannot create sink directories under " + absolute, e);
    }
  }

  @Override
  public StoredObjectInfo put(String key, UploadContent content, boolean mayExist) {
    Path target = pathOf(key);
    long size = content.size();
    Path part = tmp.resolve(UUID.randomUUID() + ".part");
    try {
      MessageDigest digest = ContentDigest.sha256();
      long copied;
      try (InputStream in = content.openRange(0, size);
          FileChannel channel = FileChannel.open(part, StandardOpenOption.CREATE_NEW, StandardOpenOption.WRITE);
          OutputStream out = new DigestOutputStream(Channels.newOutputStream(channel), digest)) {
        copied = in.transferTo(out);
        out.flush();
        channel.force(true);
      }
      if (copied != size) {
        throw SinkException.retryable("content of " + key + " ended after " + copied + " of " + size + " bytes", null);
      }
      String checksum = ContentDigest.notation(digest);
      if (mayExist) {
        Optional<StoredObjectInfo> existing = head(key);
        if (existing.isPresent() && existing.get().sizeBytes() == size && checksum.equals(existing.get().checksum())) {
          return existing.get();
        }
      }
      Files.createDirectories(target.getParent());
      Files.move(part, target, StandardCopyOption.ATOMIC_MOVE, StandardCopyOption.REPLACE_EXISTING);
      forceDirectory(target.getParent());
      return new StoredObjectInfo(key, size, checksum);
    } catch (IOException | UncheckedIOException e) {
      throw SinkException.retryable("storing " + key + " under " + objects + " failed", e);
    } finally {
      deleteQuietly(part);
    }
  }

  /**
   * {@inheritDoc} The stored object if it has the content's size and checksum; the content is
   * read only when the sizes agree.
   */
  @Override
  public Optional<StoredObjectInfo> findIdentical(String key, UploadContent content) {
    Optional<StoredObjectInfo> stored = head(key);
    if (stored.isEmpty() || stored.get().sizeBytes() != content.size()) {
      return Optional.empty();
    }
    MessageDigest digest = ContentDigest.sha256();
    long read;
    try (InputStream in = new DigestInputStream(content.openRange(0, content.size()), digest)) {
      read = in.transferTo(OutputStream.nullOutputStream());
    } catch (IOException e) {
      throw SinkException.retryable("reading the content to compare with " + key + " failed", e);
    }
    return read == content.size() && ContentDigest.notation(digest).equals(stored.get().checksum()) ? stored
        : Optional.empty();
  }

  @Override
  public Optional<StoredObjectInfo> head(String key) {
    Path file = pathOf(key);
    try {
      return Optional.of(describe(key, file));
    } catch (NoSuchFileException e) {
      return Optional.empty();
    } catch (IOException e) {
      throw SinkException.retryable("reading " + key + " under " + objects + " failed", e);
    }
  }

  @Override
  public List<StoredObjectInfo> list(String prefix) {
    Objects.requireNonNull(prefix, "prefix");
    try (Stream<Path> files = Files.walk(objects)) {
      return files.filter(Files::isRegularFile)
          .map(this::keyOf)
          .filter(key -> key.startsWith(prefix))
          .sorted(Comparator.naturalOrder())
          .map(key -> head(key).orElse(null))
          .filter(Objects::nonNull)
          .toList();
    } catch (IOException | UncheckedIOException e) {
      throw SinkException.retryable("listing " + prefix + " under " + objects + " failed", e);
    }
  }

  /** The file that holds {@code key}; it exists only once the object is stored. */
  public Path pathOf(String key) {
    Objects.requireNonNull(key, "key");
    if (key.isEmpty() || key.startsWith("/") || key.endsWith("/") || key.contains("\\") || key.contains("//")
        || Stream.of(key.split("/")).anyMatch(s -> s.equals(".") || s.equals(".."))) {
      throw SinkException.permanent("key not storable in a directory sink: '" + key + "'", null);
    }
    return objects.resolve(key);
  }

  private String keyOf(Path file) {
    return objects.relativize(file).toString().replace(file.getFileSystem().getSeparator(), "/");
  }

  private static StoredObjectInfo describe(String key, Path file) throws IOException {
    MessageDigest digest = ContentDigest.sha256();
    long size;
    try (InputStream in = new DigestInputStream(Files.newInputStream(file), digest)) {
      size = in.transferTo(OutputStream.nullOutputStream());
    }
    return new StoredObjectInfo(key, size, ContentDigest.notation(digest));
  }

  private static void forceDirectory(Path directory) throws IOException {
    try (FileChannel channel = FileChannel.open(directory, StandardOpenOption.READ)) {
      channel.force(true);
    }
  }

  private static void deleteQuietly(Path file) {
    try {
      Files.deleteIfExists(file);
    } catch (IOException ignored) {
      // A leftover temporary file is never listed; it only takes space.
    }
  }
}
