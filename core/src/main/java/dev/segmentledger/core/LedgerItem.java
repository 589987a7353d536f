package dev.segmentledger.core;

import java.time.Duration;
import java.time.Instant;
import java.util.Objects;

/**
 * A snapshot of one ledger row, as read from the {@link dev.segmentledger.core.spi.StateStore}.
 * Immutable; it may be stale the moment it is read, which is why every state change is a
 * compare-and-set on the store.
 *
 * @param rowId the store's id of the row; ids grow with insertion order (the sweep cursor)
 * @param id the natural identity
 * @param sourcePath the file to upload: the recorded file for ORIGINAL, the file the repackager
 *     writes for PLAYBACK and INIT
 * @param originPath for PLAYBACK and INIT, the recorded original they are produced from;
 *     {@code null} for ORIGINAL
 * @param sizeBytes the size to upload, which the confirm checks; {@link #UNKNOWN_SIZE} for a
 *     PLAYBACK or INIT row whose file has not been produced yet
 * @param state the row state
 * @param attempts failed attempts so far, including attempts that ended without an outcome
 *     ({@link Reason#ATTEMPT_ABANDONED})
 * @param reason why the last attempt failed or why the row is terminal; {@code null} if none
 * @param lastError a human-readable detail of the last failure; {@code null} if none
 * @param registeredAt when the row was written
 * @param nextAttemptAt the earliest time the sweeper may pick the row again
 * @param confirmedAt when the row was confirmed; {@code null} unless confirmed
 * @param checksum the checksum reported by the sink on confirm; {@code null} unless known
 * @param mediaDuration the media duration of a produced PLAYBACK segment; {@code null} if unknown
 * @param fileIdentity the identity of the recorded file at registration (device, inode and
 *     modification time, as an opaque text), which the upload requires unchanged
 *     ({@link Reason#FILE_CHANGED}); {@code null} if not recorded (produced PLAYBACK and INIT files,
 *     rows refused at registration, platforms without file keys)
 * @param recordedAt when the recording of the original's media began, as the recorder gave it at
 *     registration ({@link ClosedFile#recordedAt()}); a PLAYBACK or INIT row has its original's.
 *     {@code null} if the recorder did not give it
 * @param storageGroup the {@linkplain LedgerBuilder#storageGroup storage group} of the node that
 *     registered the row: only nodes of that group upload it; {@code null} for shared storage
 * @param traceContext the trace context of the registration that wrote the row, which its upload
 *     continues ({@link LedgerBuilder#tracing}); {@code null} without tracing
 * @param lane the lane the recorder asked for the row's segment when it registered it
 *     ({@link Ledger#register(ItemId, java.nio.file.Path, Lane)}), stored with the row so that every
 *     node, after any restart, queues the row in it; {@code null} if none (the row's lane then
 *     follows from its broadcast's hint, its axis and its broadcast's phase, see {@link Lane})
 */
public record LedgerItem(
    long rowId,
    ItemId id,
    String sourcePath,
    String originPath,
    long sizeBytes,
    ItemState state,
    int attempts,
    Reason reason,
    String lastError,
    Instant registeredAt,
    Instant nextAttemptAt,
    Instant confirmedAt,
    String checksum,
    Duration mediaDuration,
    String fileIdentity,
    Instant recordedAt,
    String storageGroup,
    String traceContext,
    Lane lane) {

  /** The size of a PLAYBACK or INIT row whose file has not been produced yet. */
  public static final long UNKNOWN_SIZE = -1;

  public LedgerItem {
    Objects.requireNonNull(id, "id");
    Objects.requireNonNull(sourcePath, "sourcePath");
    Objects.requireNonNull(state, "state");
    Objects.requireNonNull(registeredAt, "registeredAt");
    Objects.requireNonNull(nextAttemptAt, "nextAttemptAt");
  }

  /**
   * A row without a lane hint ({@code lane} {@code null}): the constructor of the components before
   * hints were stored, kept for stores and tests written against it.
   */
  public LedgerItem(long rowId, ItemId id, String sourcePath, String originPath, long sizeBytes, ItemState state,
      int attempts, Reason reason, String lastError, Instant registeredAt, Instant nextAttemptAt,
      Instant confirmedAt, String checksum, Duration mediaDuration, String fileIdentity, Instant recordedAt,
      String storageGroup, String traceContext) {
    this(rowId, id, sourcePath, originPath, sizeBytes, state, attempts, reason, lastError, registeredAt,
        nextAttemptAt, confirmedAt, checksum, mediaDuration, fileIdentity, recordedAt, storageGroup, traceContext,
        null);
  }

  /** Whether the file to upload is known (always for ORIGINAL; once produced for the others). */
  public boolean sizeKnown() {
    return sizeBytes >= 0;
  }

  /** The key this item is stored under. */
  public String objectKey() {
    return id.objectKey();
  }
}
