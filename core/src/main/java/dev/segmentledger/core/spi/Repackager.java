package dev.segmentledger.core.spi;

import dev.segmentledger.core.internal.RepackagerTemporaries;
import java.io.IOException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Optional;

/**
 * Turns a recorded original into playback media: the init segment of its rendition and the
 * playback segment of its sequence. The ledger calls it on a worker thread before uploading a
 * {@code PLAYBACK} or {@code INIT} item whose local file is missing, including during recovery.
 *
 * <p>Implementations must write only to the given target path and to temporary siblings in its
 * directory (the ledger chooses it inside the allowed root), must never leave a partial target,
 * should produce the same bytes when run again on the same original (a re-produced file must
 * match what may already be stored), and must be thread-safe. Timing may come from the media
 * itself rather than from {@code sequence}. A failure is reported as a {@link RepackageException}; it is recorded on the
 * PLAYBACK or INIT row and never touches the ORIGINAL row.
 *
 * <p><b>Temporary files after a kill.</b> A process killed while repackaging leaves its temporary
 * files behind. Implementations name them with {@link #createTemporaryBeside} and
 * call {@link #cleanTemporariesBeside} at the start of every run: that removes the
 * target's own leftovers (the run about to write it is a re-run of the killed one) and, in the
 * same directory, other targets' leftovers older than a grace period longer than any run. There is
 * no start-up hook: the items a killed process was producing are not confirmed, so they are
 * produced again after the restart, and each re-run removes what its killed run left; a leftover
 * of an item that is never produced again (excluded by the cutoff, say) goes with the next run
 * in its directory after the grace period. The ledger uploads only the targets it registered, so a
 * temporary file is never uploaded.
 *
 * <p>A temporary file of target {@code dir/0000000007.m4s} is {@code
 * dir/.0000000007.m4s.<random digits>.segment-ledger-partial}: hidden, named after its target,
 * ending in {@link #TEMPORARY_SUFFIX}. No target of the ledger can have such a name (object keys
 * start with a letter or digit), and {@link #createTemporaryBeside} refuses a target that has, so
 * removing temporaries can never remove an output. The ledger reads a growing temporary of a target
 * as the run's progress ({@link dev.segmentledger.core.LedgerBuilder#stallTimeout}).
 */
public interface Repackager {
  /** The ending of every temporary file name of a repackager. */
  String TEMPORARY_SUFFIX = RepackagerTemporaries.SUFFIX;

  /** Whether {@code file}'s name is that of a repackager's temporary file. */
  static boolean isTemporary(Path file) {
    return RepackagerTemporaries.isTemporary(file);
  }

  /** Whether {@code file}'s name is that of a temporary file of {@code target}. */
  static boolean isTemporaryOf(Path file, Path target) {
    return RepackagerTemporaries.isTemporaryOf(file, target);
  }

  /**
   * Creates a new empty temporary file beside {@code target} (readable and writable by the owner
   * only, where the file system has POSIX permissions).
   *
   * @throws IllegalArgumentException if {@code target}'s own name is that of a temporary file
   * @throws IOException if the file cannot be created
   */
  static Path createTemporaryBeside(Path target) throws IOException {
    return RepackagerTemporaries.createBeside(target);
  }

  /**
   * Removes, from {@code target}'s directory, the temporary files of {@code target} and those of
   * other targets last modified more than {@code othersOlderThan} ago (by the files' modification
   * times, so on the system clock). Only regular files are removed, never followed through a
   * symlink; what cannot be listed or removed is left (a missing directory has nothing to remove).
   *
   * @return how many files were removed
   * @throws IllegalArgumentException if {@code target}'s own name is that of a temporary file
   */
  static int cleanTemporariesBeside(Path target, Duration othersOlderThan) {
    return RepackagerTemporaries.cleanBeside(target, othersOlderThan);
  }

  /**
   * Writes the init segment (for example fMP4 {@code ftyp+moov}) derived from {@code original}
   * to {@code target}, replacing it if present.
   */
  RepackagedFile init(Path original, Path target) throws RepackageException;

  /**
   * Writes the playback segment (for example an fMP4 {@code .m4s} media segment) of
   * {@code original}, segment number {@code sequence}, to {@code target}, replacing it if present.
   */
  RepackagedFile segment(Path original, long sequence, Path target) throws RepackageException;

  /**
   * The longest one run of an external program of this repackager may take before the repackager
   * stops it, if it bounds its runs; empty (the default) if it does not say. A run may write nothing
   * for that long (a probe reads the media and prints only at the end), so the ledger warns when its
   * {@linkplain dev.segmentledger.core.LedgerBuilder#stallTimeout stall timeout} is shorter: a healthy
   * run that is silent for longer than the stall timeout would be cancelled as stalled.
   */
  default Optional<Duration> timeout() {
    return Optional.empty();
  }
}
