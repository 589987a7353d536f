package dev.segmentledger.core;

/**
 * Why the ledger did not delete a local file it would otherwise have deleted (a PLAYBACK or INIT
 * file it produced, once its row is confirmed). Each refusal is logged as a WARN naming the file and
 * counted by name in {@link LedgerStats.LocalDisk#refused()}. A {@linkplain #isFinal() final}
 * refusal leaves the file where it is for good (the row is marked done with it); any other is tried
 * again by a later sweep.
 */
public enum LocalFileRefusal {
  /**
   * The row's file does not lie below this node's output directory: not this node's to delete.
   * Retried (the row is not marked: a node whose output directory holds it deletes it).
   */
  OUTSIDE_OUTPUT_DIRECTORY(false),
  /** The file, or a directory on the way to it below the allowed root, is a symbolic link: never followed. Final. */
  SYMLINK(true),
  /**
   * The name denotes a directory, FIFO, socket or device, not a regular file; or a name on the way to
   * it is no directory (a FIFO there is never opened). Final.
   */
  NOT_REGULAR_FILE(true),
  /** The file there is not the one the row records (another size, or another file identity). Final. */
  NOT_THE_RECORDED_FILE(true),
  /** The allowed root's path no longer leads to the directory the ledger holds, and was not re-opened. Retried. */
  ROOT_REPLACED(false),
  /**
   * The platform offers no secure directory streams ({@code openat}/{@code unlinkat}), so a deletion
   * without following links cannot be guaranteed: nothing is deleted. Retried (after a move to a
   * platform that has them).
   */
  NO_SECURE_DIRECTORY_STREAMS(false),
  /**
   * Another row that is not confirmed was registered with the same file: it still has to be uploaded
   * from it. Retried (the file goes once every row registered with it is confirmed).
   */
  IN_USE(false),
  /** The file system refused or failed the deletion (permissions, an I/O error). Retried. */
  FAILED(false);

  private final boolean isFinal;

  LocalFileRefusal(boolean isFinal) {
    this.isFinal = isFinal;
  }

  /** Whether the file is left for good: the row is then marked done with it and never looked at again. */
  public boolean isFinal() {
    return isFinal;
  }
}
