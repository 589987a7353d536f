package dev.segmentledger.core.internal;

import java.io.IOException;
import java.lang.foreign.Arena;
import java.lang.foreign.FunctionDescriptor;
import java.lang.foreign.Linker;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.StructLayout;
import java.lang.foreign.ValueLayout;
import java.lang.invoke.MethodHandle;
import java.lang.invoke.VarHandle;
import java.nio.channels.FileChannel;
import java.nio.charset.Charset;
import java.nio.charset.StandardCharsets;
import java.nio.file.AccessDeniedException;
import java.nio.file.FileSystemException;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.nio.file.attribute.BasicFileAttributes;
import java.time.Instant;
import java.util.Objects;
import java.util.concurrent.locks.ReentrantReadWriteLock;

/**
 * {@link BeneathOpener} with Linux's {@code openat2} (5.6 and later), called through the Foreign
 * Function and Memory API. Holds an {@code O_PATH} descriptor on the root; each open is {@code
 * openat2} from it, {@code statx} on the new descriptor, and (if admitted) a channel opened on the
 * same open file through {@code /proc/self/fd} (Java cannot wrap a descriptor in a channel), after
 * which the descriptor is closed. The root descriptor is replaced under a write lock when the
 * {@link HeldRoot} re-opened the root; opens hold the read lock, so a descriptor number is never
 * used after it was closed. Thread-safe.
 */
@SuppressWarnings("restricted")
final class Openat2Opener implements BeneathOpener {
  private static final long SYS_OPENAT2 = 437; // the same number on every Linux architecture
  private static final long AT_FDCWD = -100;
  private static final long O_RDONLY = 0;
  private static final long O_NONBLOCK = 0x800;
  private static final long O_DIRECTORY = 0x10000;
  private static final long O_NOFOLLOW = 0x20000;
  private static final long O_CLOEXEC = 0x80000;
  private static final long O_PATH = 0x200000;
  private static final long RESOLVE_NO_XDEV = 0x01;
  private static final long RESOLVE_NO_SYMLINKS = 0x04;
  private static final long RESOLVE_BENEATH = 0x08;
  private static final int AT_EMPTY_PATH = 0x1000;
  private static final int STATX_BASIC = 0x7ff;
  private static final int S_IFMT = 0xf000;
  private static final int S_IFREG = 0x8000;
  private static final int ENOENT = 2;
  private static final int EACCES = 13;
  private static final int EPERM = 1;
  private static final int EAGAIN = 11;
  private static final int ENOSYS = 38;
  private static final int EXDEV = 18;
  private static final int STATX_SIZE = 256;
  /** The charset the JDK encodes file names in ({@code sun.jnu.encoding}), UTF-8 if it names none. */
  private static final Charset FILE_NAMES = fileNameCharset();

  private final Path root;
  private final Errnos errnos;
  private final ReentrantReadWriteLock lock = new ReentrantReadWriteLock();
  private int rootFd; // guarded by lock; -1 once closed
  private Object rootKey; // guarded by lock

  private Openat2Opener(Path root, Errnos errnos, int rootFd, Object rootKey) {
    this.root = root;
    this.errnos = errnos;
    this.rootFd = rootFd;
    this.rootKey = rootKey;
  }

  /**
   * The opener for {@code root}, or a sentence saying why there is none: native access is not
   * enabled for this module, or {@code openat2} is refused ({@code ENOSYS}: a kernel before 5.6;
   * {@code EPERM}: a seccomp filter), or the root descriptor is not the held directory. Each
   * {@code openat2} call's errno is taken from {@code errnos} (the kernel's, outside tests); the
   * first open of the root is the one at start.
   */
  static Object create(Path root, Object heldKey, Errnos errnos) {
    if (!Openat2Opener.class.getModule().isNativeAccessEnabled()) {
      return "native access is not enabled (--enable-native-access="
          + Objects.requireNonNullElse(Openat2Opener.class.getModule().getName(), "ALL-UNNAMED") + ")";
    }
    try {
      int fd = openRoot(root, errnos, true);
      Object key = keyOf(fd);
      if (heldKey == null || !heldKey.equals(key)) {
        closeFd(fd);
        return "the root descriptor is not the directory held";
      }
      return new Openat2Opener(root, errnos, fd, key);
    } catch (IOException | RuntimeException e) {
      return "openat2 failed on the allowed root: " + e.getMessage();
    }
  }

  @Override
  public FileChannel open(Path relative, Object heldKey, Admit admit) throws IOException, FileRejectedException {
    if (!heldKey.equals(currentKey()) && !reopenRoot(heldKey)) {
      return null;
    }
    lock.readLock().lock();
    try {
      if (rootFd < 0 || !heldKey.equals(rootKey)) {
        return null;
      }
      int fd = openBeneath(rootFd, relative, errnos);
      try {
        return admitted(fd, admit);
      } finally {
        closeFd(fd);
      }
    } finally {
      lock.readLock().unlock();
    }
  }

  private static FileChannel admitted(int fd, Admit admit) throws IOException, FileRejectedException {
    try (Arena arena = Arena.ofConfined()) {
      MemorySegment statx = arena.allocate(STATX_SIZE, 8);
      MemorySegment state = arena.allocate(Calls.CALL_STATE);
      int result = (int) Calls.STATX.invokeExact(state, fd, arena.allocateFrom(""), AT_EMPTY_PATH, STATX_BASIC, statx);
      if (result != 0) {
        throw failure("statx", (int) Calls.ERRNO.get(state, 0L));
      }
      boolean regular = (statx.get(ValueLayout.JAVA_SHORT, 28) & S_IFMT) == S_IFREG;
      long size = statx.get(ValueLayout.JAVA_LONG, 40);
      Instant modified = Instant.ofEpochSecond(statx.get(ValueLayout.JAVA_LONG, 112),
          statx.get(ValueLayout.JAVA_INT, 120));
      String key = "(dev=" + Long.toHexString(device(statx)) + ",ino=" + statx.get(ValueLayout.JAVA_LONG, 32) + ")";
      admit.admit(regular, size, RegisteredFile.identityOf(key, modified));
    } catch (IOException | FileRejectedException | RuntimeException | Error e) {
      throw e;
    } catch (Throwable e) {
      throw new IllegalStateException(e);
    }
    return FileChannel.open(Path.of("/proc/self/fd/" + fd), StandardOpenOption.READ);
  }

  /** {@code makedev} of the device's major and minor numbers, as {@code st_dev} carries them. */
  private static long device(MemorySegment statx) {
    long major = Integer.toUnsignedLong(statx.get(ValueLayout.JAVA_INT, 136));
    long minor = Integer.toUnsignedLong(statx.get(ValueLayout.JAVA_INT, 140));
    return ((major & 0xfffff000L) << 32) | ((major & 0xfffL) << 8) | ((minor & 0xffffff00L) << 12) | (minor & 0xffL);
  }

  private Object currentKey() {
    lock.readLock().lock();
    try {
      return rootKey;
    } finally {
      lock.readLock().unlock();
    }
  }

  /** Replaces the root descriptor if the directory now at the root's path is the one held; else false. */
  private boolean reopenRoot(Object heldKey) {
    lock.writeLock().lock();
    try {
      if (rootFd < 0) {
        return false;
      }
      if (heldKey.equals(rootKey)) {
        return true;
      }
      int fd = openRoot(root, errnos, false);
      Object key = keyOf(fd);
      if (!heldKey.equals(key)) {
        closeFd(fd);
        return false;
      }
      closeFd(rootFd);
      rootFd = fd;
      rootKey = key;
      return true;
    } catch (IOException e) {
      return false;
    } finally {
      lock.writeLock().unlock();
    }
  }

  @Override
  public void close() {
    lock.writeLock().lock();
    try {
      if (rootFd >= 0) {
        closeFd(rootFd);
        rootFd = -1;
      }
    } finally {
      lock.writeLock().unlock();
    }
  }

  /** The root directory opened {@code O_PATH} without following any symlink on its (real) path. */
  private static int openRoot(Path root, Errnos errnos, boolean atStart) throws IOException {
    return openat2(AT_FDCWD, root.toString(), O_PATH | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC, RESOLVE_NO_SYMLINKS,
        errnos, atStart);
  }

  private static int openBeneath(int rootFd, Path relative, Errnos errnos) throws IOException {
    return openat2(rootFd, relative.toString(), O_RDONLY | O_NONBLOCK | O_NOFOLLOW | O_CLOEXEC,
        RESOLVE_BENEATH | RESOLVE_NO_SYMLINKS | RESOLVE_NO_XDEV, errnos, false);
  }

  /** {@code openat2}; the errno it is taken to have returned is {@code errnos}' (see {@link Errnos}). */
  private static int openat2(long dirFd, String path, long flags, long resolve, Errnos errnos, boolean atStart)
      throws IOException {
    try (Arena arena = Arena.ofConfined()) {
      MemorySegment how = arena.allocate(24, 8); // struct open_how { u64 flags, mode, resolve; }
      how.set(ValueLayout.JAVA_LONG, 0, flags);
      how.set(ValueLayout.JAVA_LONG, 16, resolve);
      MemorySegment name = arena.allocateFrom(path, FILE_NAMES); // the bytes Java's own file calls pass
      MemorySegment state = arena.allocate(Calls.CALL_STATE);
      for (int attempt = 0; ; attempt++) {
        long fd = (long) Calls.SYSCALL.invokeExact(state, SYS_OPENAT2, dirFd, name, how, 24L);
        int errno = errnos.errno(atStart, fd >= 0 ? 0 : (int) Calls.ERRNO.get(state, 0L));
        if (errno == 0 && fd >= 0) {
          return (int) fd;
        } else if (fd >= 0) {
          closeFd((int) fd); // a refusal staged on a call that succeeded
        }
        if (errno != EAGAIN || attempt == 3) { // EAGAIN: a rename or mount raced the lookup
          throw failure(path, errno);
        }
      }
    } catch (IOException | RuntimeException | Error e) {
      throw e;
    } catch (Throwable e) {
      throw new IllegalStateException(e);
    }
  }

  /** The file key Java reports for the directory {@code fd} is open on (read through {@code /proc}). */
  private static Object keyOf(int fd) throws IOException {
    return Files.readAttributes(Path.of("/proc/self/fd/" + fd), BasicFileAttributes.class).fileKey();
  }

  private static Charset fileNameCharset() {
    try {
      return Charset.forName(System.getProperty("sun.jnu.encoding", "UTF-8"));
    } catch (RuntimeException e) {
      return StandardCharsets.UTF_8;
    }
  }

  private static IOException failure(String path, int errno) {
    return switch (errno) {
      case ENOENT -> new NoSuchFileException(path);
      case EACCES -> new AccessDeniedException(path);
      case ENOSYS -> new FileSystemException(path, null, "openat2 refused: ENOSYS (a kernel before Linux 5.6)");
      case EPERM -> new FileSystemException(path, null,
          "openat2 refused: EPERM (a seccomp filter, as some container runtimes install)");
      case EXDEV -> new FileSystemException(path, null,
          "EXDEV: a mount point below the allowed root lies on the way, and files are not opened across mounts");
      default -> new FileSystemException(path, null, "errno " + errno);
    };
  }

  private static void closeFd(int fd) {
    try {
      int ignored = (int) Calls.CLOSE.invokeExact(fd);
    } catch (Throwable e) {
      throw new IllegalStateException(e);
    }
  }

  /**
   * The native calls, linked when first used: after {@link #create} found native access enabled,
   * so that linking never triggers the JDK's warning about native access.
   */
  private static final class Calls {
    private static final Linker LINKER = Linker.nativeLinker();
    private static final StructLayout CALL_STATE = Linker.Option.captureStateLayout();
    private static final VarHandle ERRNO = CALL_STATE.varHandle(
        java.lang.foreign.MemoryLayout.PathElement.groupElement("errno"));
    private static final MethodHandle SYSCALL = LINKER.downcallHandle(
        LINKER.defaultLookup().find("syscall").orElseThrow(),
        FunctionDescriptor.of(ValueLayout.JAVA_LONG, ValueLayout.JAVA_LONG, ValueLayout.JAVA_LONG,
            ValueLayout.ADDRESS, ValueLayout.ADDRESS, ValueLayout.JAVA_LONG),
        Linker.Option.firstVariadicArg(1), Linker.Option.captureCallState("errno"));
    private static final MethodHandle STATX = LINKER.downcallHandle(
        LINKER.defaultLookup().find("statx").orElseThrow(),
        FunctionDescriptor.of(ValueLayout.JAVA_INT, ValueLayout.JAVA_INT, ValueLayout.ADDRESS,
            ValueLayout.JAVA_INT, ValueLayout.JAVA_INT, ValueLayout.ADDRESS),
        Linker.Option.captureCallState("errno"));
    private static final MethodHandle CLOSE = LINKER.downcallHandle(
        LINKER.defaultLookup().find("close").orElseThrow(),
        FunctionDescriptor.of(ValueLayout.JAVA_INT, ValueLayout.JAVA_INT));
  }
}
