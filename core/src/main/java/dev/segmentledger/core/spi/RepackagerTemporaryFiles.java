package dev.segmentledger.core.spi;

import dev.segmentledger.core.internal.RepackagerTemporaries;
import java.io.IOException;
import java.nio.file.Path;
import java.time.Duration;

/**
 * The former home of the temporary files of a {@link Repackager}, now its static helpers
 * ({@link Repackager#createTemporaryBeside}, {@link Repackager#cleanTemporariesBeside},
 * {@link Repackager#isTemporary}, {@link Repackager#isTemporaryOf}); kept, delegating to the same
 * code, so that repackagers compiled against earlier versions still link.
 *
 * @deprecated use the static helpers of {@link Repackager}
 */
@Deprecated(since = "1.0.0")
public final class RepackagerTemporaryFiles {
  /** The ending of every temporary file name: {@link Repackager#TEMPORARY_SUFFIX}. */
  public static final String SUFFIX = ".segment-ledger-partial";

  private RepackagerTemporaryFiles() {}

  /** See {@link Repackager#isTemporary}. */
  public static boolean isTemporary(Path file) {
    return RepackagerTemporaries.isTemporary(file);
  }

  /** See {@link Repackager#isTemporaryOf}. */
  public static boolean isTemporaryOf(Path file, Path target) {
    return RepackagerTemporaries.isTemporaryOf(file, target);
  }

  /**
   * See {@link Repackager#createTemporaryBeside}.
   *
   * @throws IOException if the file cannot be created
   */
  public static Path createBeside(Path target) throws IOException {
    return RepackagerTemporaries.createBeside(target);
  }

  /** See {@link Repackager#cleanTemporariesBeside}. */
  public static int cleanBeside(Path target, Duration othersOlderThan) {
    return RepackagerTemporaries.cleanBeside(target, othersOlderThan);
  }
}
