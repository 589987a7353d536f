package dev.segmentledger.core;

/**
 * Why an attempt failed or a row was taken out of the upload flow. Every failure the ledger
 * records carries one of these names, so that a bad input is a clear outcome instead of a stack
 * trace. {@link #isTerminal()} says whether the row becomes terminal or is retried with backoff.
 */
public enum Reason {
  /** The path resolves (after {@code ..}, symlinks and relative parts) outside the allowed root. */
  OUTSIDE_ROOT(true),
  /** The path exists but is not a regular file (directory, FIFO, socket, device). */
  NOT_REGULAR_FILE(true),
  /** The file does not exist (any more). */
  MISSING_FILE(true),
  /** The file exists but cannot be read (permissions, I/O error). Retried. */
  UNREADABLE(false),
  /** The file's size differs from the size recorded at registration. */
  SIZE_MISMATCH(true),
  /** The file is empty; empty recordings are refused. */
  EMPTY_FILE(true),
  /** The sink failed in a way that may succeed later (5xx, throttling, timeout, unknown outcome). */
  SINK_TRANSIENT(false),
  /** The sink refused the object for good (access denied, no such bucket, invalid request). */
  SINK_PERMANENT(true),
  /** The row is older than the configured cutoff and is excluded from recovery. */
  PAST_CUTOFF(true),
  /** The repackager could not produce the playback or init file. Retried. */
  REPACKAGE_FAILED(false),
  /** An unexpected error inside the ledger; retried with backoff so that no row is lost. */
  INTERNAL_ERROR(false);

  private final boolean terminal;

  Reason(boolean terminal) {
    this.terminal = terminal;
  }

  /** Whether a failure for this reason ends the row ({@code true}) or schedules a retry. */
  public boolean isTerminal() {
    return terminal;
  }
}
