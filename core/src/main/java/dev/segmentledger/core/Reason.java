package dev.segmentledger.core;

/**
 * Why an attempt failed or a row was taken out of the upload flow. Every failure the ledger
 * records carries one of these names, so that a bad input is a clear outcome instead of a stack
 * trace. {@link #isTerminal()} is the single source of the retry policy: a terminal reason
 * moves the row to {@link ItemState#REJECTED} (kept, with its reason and detail, never deleted);
 * any other reason leaves it {@link ItemState#PENDING} and schedules a retry after backoff.
 *
 * <p>The file reasons ({@link #OUTSIDE_ROOT} to {@link #FILE_CHANGED}, and {@link #ROOT_REPLACED})
 * are decided at the file boundary, at registration and again when the file is opened for upload;
 * a file rejected for one of them is never PUT, except that {@link #FILE_GREW} and
 * {@link #FILE_SHRANK} can also be found by the re-check right after a PUT, in which case the row
 * is not confirmed.
 */
public enum Reason {
  /**
   * The path resolves (after {@code ..}, symlinks and relative parts) outside the allowed root,
   * or a symlink was swapped in after the check. Terminal: a path is never "fixed" by waiting,
   * and retrying an escape attempt would only give it more chances.
   */
  OUTSIDE_ROOT(true),
  /**
   * The path names something other than a regular file: a directory, FIFO, socket or device, a
   * symlink loop, or a file that was replaced by another one while being opened. Terminal: such a
   * path is never opened for reading (opening a FIFO would block a worker forever).
   */
  NOT_REGULAR_FILE(true),
  /**
   * The file does not exist: not at registration, or deleted before its upload. Terminal: the
   * bytes are gone and no retry can bring them back.
   */
  MISSING_FILE(true),
  /**
   * The file was reached but could not be read: permission denied, an I/O error, or a path
   * component that is not a directory. Retried with backoff: permissions and mounts can be
   * repaired while the row waits.
   */
  UNREADABLE(false),
  /**
   * The file is larger than the size recorded at registration: it was registered while still
   * being written, or something appended to it. Terminal: a file that grew past its registered
   * size never matches it again, and uploading a prefix of it would store an incomplete object.
   */
  FILE_GREW(true),
  /**
   * The file is smaller than the size recorded at registration: it was truncated or replaced by a
   * shorter file. Terminal: the registered bytes are gone; a file that later grows back to the
   * registered size would not be the registered content.
   */
  FILE_SHRANK(true),
  /**
   * The file is empty at registration. Terminal: a zero-byte recording carries no media, and an
   * empty object would hide the failure of the recorder that produced it.
   */
  EMPTY_FILE(true),
  /**
   * The file has its registered size but is no longer the file that was registered: its identity
   * (device, inode and modification time, recorded at registration) differs, so it was rewritten
   * in place or replaced by another file of the same size. Terminal: the registered bytes are
   * gone. Re-opening the row ({@link Ledger#reopen}) accepts the file as it is now, at its
   * registered size.
   */
  FILE_CHANGED(true),
  /** The sink failed in a way that may succeed later (5xx, throttling, timeout, unknown outcome). */
  SINK_TRANSIENT(false),
  /** The sink refused this item's request for good (an invalid request, a key it cannot store). */
  SINK_PERMANENT(true),
  /**
   * The sink refused its own configuration, not this item: access denied, unknown credentials, a
   * bad signature, a missing bucket, an encryption key that cannot be used, an option the server
   * does not implement. Retried with backoff, and counted against the circuit breaker, which opens
   * and pauses uploads (the cause is logged and reported once per opening, not per row). Once the
   * configuration is fixed, the rows are uploaded; none is rejected for it.
   */
  SINK_CONFIGURATION(false),
  /** The row is older than the configured cutoff and is excluded from recovery. */
  PAST_CUTOFF(true),
  /**
   * The repackager could not produce the playback or init file. Retried with backoff, up to
   * {@link LedgerBuilder#maxErrorAttempts} failures with this reason; then the row ends
   * {@link ItemState#REJECTED} with this reason (re-open it once the cause is fixed).
   */
  REPACKAGE_FAILED(false),
  /**
   * The rendition's INIT is rejected or excluded, so this PLAYBACK segment can never be played.
   * Terminal; re-open the INIT, then these rows with {@link Ledger#reopen(String, Reason)}.
   */
  INIT_FAILED(true),
  /** Re-opened by {@link Ledger#reopen} after being terminal; uploaded again. */
  REOPENED(false),
  /**
   * An unexpected error inside the ledger; retried with backoff so that no row is lost, up to
   * {@link LedgerBuilder#maxErrorAttempts} failures with this reason; then the row ends
   * {@link ItemState#REJECTED} with this reason (re-open it once the cause is fixed).
   */
  INTERNAL_ERROR(false),
  /**
   * An attempt made no progress for the {@linkplain LedgerBuilder#stallTimeout stall timeout}: no
   * byte read or stored by the sink, no repackager output (a hung connection, a frozen server). Its
   * own node cancelled it. Retried with backoff.
   */
  STALLED(false),
  /**
   * An attempt on this row ended without any outcome: the process uploading it died (or froze past
   * its lease) before it confirmed the row or recorded a failure. Recorded when the next attempt
   * takes the row over, weighed by its evidence (see {@link LedgerBuilder#maxAbandonedAttempts}).
   * Retried at once, alone in its process once the row is a suspect, and after a backoff that grows
   * with the deaths blamed on the row, so that an item whose processing kills the process is not
   * retried in a tight loop.
   */
  ATTEMPT_ABANDONED(false),
  /**
   * Too many attempts on this row ended without an outcome while each ran alone in its process and
   * made no progress ({@link LedgerBuilder#maxAbandonedAttempts}), and no identical object is
   * stored: processing this item keeps killing or freezing the process (for example a file that
   * crashes the JVM). Terminal, so that one poisonous item cannot keep a recorder in a crash loop;
   * fix the cause, then {@link Ledger#reopen} the row.
   */
  REPEATEDLY_ABANDONED(true),
  /**
   * Set by the {@link Reconciler}'s repair when it re-opens a confirmed row whose object is gone
   * from the bucket. The row is {@link ItemState#PENDING} again and is uploaded anew from its file.
   */
  OBJECT_MISSING(false),
  /**
   * Set by the {@link Reconciler}'s repair when it re-opens a confirmed row whose object has
   * another size or checksum than the row. The row is {@link ItemState#PENDING} again; the next
   * upload overwrites the object at the same key.
   */
  OBJECT_MISMATCH(false),
  /**
   * The row's {@linkplain LedgerBuilder#storageGroup storage group} was declared lost by an
   * operator ({@link Ledger#markStorageLost}): the host whose disk held its file is gone for good,
   * so no node can read the file. Terminal, and set only by that explicit call, never by an upload
   * attempt. If the disk comes back, {@link Ledger#reopen} the rows (and {@link Ledger#handOver}
   * them if it is now mounted on another group's host).
   */
  STORAGE_LOST(true),
  /**
   * The allowed root itself is no longer the directory the ledger opened, and the configured root
   * path does not lead to a directory that may be taken in its place: it is now a symlink, is
   * reached through one, is missing, or is not a directory (for example the root was renamed away
   * and a symlink to somewhere else put at its path). No file is judged against such a root.
   * Retried with backoff: once the path is again the held root, or a real directory reached without
   * any symlink (a re-created root, a remount), the ledger re-opens it and the row is judged
   * against that directory (docs/design.md, "The file boundary"). At registration it is the one
   * boundary refusal that writes no row, since the reason is the root's, not the file's:
   * {@link Ledger#register} throws {@link RootReplacedException} and the recorder registers the
   * same file again (as after a store failure) until a call returns, which it does once the root is
   * back.
   */
  ROOT_REPLACED(false);

  private final boolean terminal;

  Reason(boolean terminal) {
    this.terminal = terminal;
  }

  /** Whether a failure for this reason ends the row ({@code true}) or schedules a retry. */
  public boolean isTerminal() {
    return terminal;
  }
}
