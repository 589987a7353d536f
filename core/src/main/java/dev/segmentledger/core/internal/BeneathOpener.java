package dev.segmentledger.core.internal;

import java.io.IOException;
import java.nio.channels.FileChannel;
import java.nio.file.Path;
import java.util.function.Consumer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Opens a registered path below the allowed root in one system call, where the platform offers one:
 * {@code openat2(rootfd, relative, O_RDONLY | O_NOFOLLOW | O_NONBLOCK, RESOLVE_BENEATH |
 * RESOLVE_NO_SYMLINKS | RESOLVE_NO_XDEV)} from a descriptor held on the root, then the file's
 * type, size and {@linkplain RegisteredFile#identityOf identity} read on the descriptor ({@code
 * statx}). The kernel refuses any symlink, any {@code ..} out of the root and any mount crossed on
 * the way, so the walk and the checks by name of {@link NoFollowOpener} are not needed. The
 * implementation uses the Foreign Function and Memory API and lives in the jar's Java 22 part
 * ({@code META-INF/versions/22}); {@link #forRoot} returns {@code null} where it cannot be used, and
 * the {@link PathGuard} then opens as on Java 17. Implementations are thread-safe.
 */
interface BeneathOpener extends AutoCloseable {
  /** The system property that, set to {@code false}, keeps the Java 17 open on every JDK. */
  String ENABLED_PROPERTY = "dev.segmentledger.openat2";

  /** Decides, with what the descriptor reports, whether the file may be opened for reading. */
  interface Admit {
    void admit(boolean regularFile, long size, String identity) throws FileRejectedException;
  }

  /**
   * Opens {@code relative} (normalized, below the root) if the root directory held has the file key
   * {@code rootKey}; {@code admit} sees the file before a channel is opened on it (a FIFO or device
   * is never opened for reading). Returns {@code null} if this opener's root is not that directory
   * and cannot be made so: the caller then opens as on Java 17.
   *
   * @throws IOException if the kernel refused the open (a symlink, a mount, an escape, missing, ...)
   */
  FileChannel open(Path relative, Object rootKey, Admit admit) throws IOException, FileRejectedException;

  /** Closes the root descriptor; later opens return {@code null}. */
  @Override
  void close();

  /**
   * The errno each {@code openat2} call is taken to have returned ({@code 0}: it succeeded), given
   * the kernel's and whether the call is the one at start (the first open of the root, which decides
   * between {@code openat2} and the walk). Outside tests it is always the kernel's ({@link #KERNEL});
   * a test stages a refusal (ENOSYS, EPERM) with another.
   */
  interface Errnos {
    Errnos KERNEL = (atStart, kernel) -> kernel;

    int errno(boolean atStart, int kernel);
  }

  /**
   * The opener for {@code root} (a real path; {@code rootKey} the held directory's file key), or
   * {@code null} where there is none: a JDK before 22, native access not enabled for this module,
   * a kernel without {@code openat2} or one that refuses it (a container's seccomp filter), or the
   * system property {@value #ENABLED_PROPERTY} set to {@code false}. Logs once which open is used.
   */
  static BeneathOpener forRoot(Path root, Object rootKey) {
    Logger log = LoggerFactory.getLogger(BeneathOpener.class);
    return forRoot(root, rootKey, Errnos.KERNEL, line -> Announcement.once(log, line));
  }

  /**
   * {@link #forRoot(Path, Object)} with the errnos of its {@code openat2} calls taken from {@code
   * errnos}, the line saying which open is used (and, if not {@code openat2}, why) given to {@code
   * announce}.
   */
  static BeneathOpener forRoot(Path root, Object rootKey, Errnos errnos, Consumer<String> announce) {
    if ("false".equals(System.getProperty(ENABLED_PROPERTY))) {
      announce.accept("files are opened by walking from the allowed root (" + ENABLED_PROPERTY + "=false)");
      return null;
    }
    String walk = "files are opened by walking from the allowed root: ";
    try {
      Class<?> type = Class.forName(BeneathOpener.class.getPackageName() + ".Openat2Opener");
      Object made = type.getDeclaredMethod("create", Path.class, Object.class, Errnos.class)
          .invoke(null, root, rootKey, errnos);
      if (made instanceof BeneathOpener opener) {
        announce.accept("files are opened with openat2 from the allowed root");
        return opener;
      }
      announce.accept(walk + made);
    } catch (ClassNotFoundException | LinkageError e) {
      announce.accept(walk + "openat2 needs Java 22 or later");
    } catch (ReflectiveOperationException | RuntimeException e) {
      announce.accept(walk + "openat2 is unavailable (" + e + ")");
    }
    return null;
  }

  /** Logs which open is used once per JVM, not once per ledger or root re-opening. */
  final class Announcement {
    private static final java.util.concurrent.atomic.AtomicBoolean DONE = new java.util.concurrent.atomic.AtomicBoolean();

    private Announcement() {}

    static void once(Logger log, String line) {
      if (DONE.compareAndSet(false, true)) {
        log.info(line);
      }
    }
  }
}
