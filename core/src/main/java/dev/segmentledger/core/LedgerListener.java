package dev.segmentledger.core;

import java.nio.file.Path;

/**
 * Receives the ledger's events: accepted, stored and confirmed are three separate events, never
 * one. Called synchronously on the thread doing the work (worker, sweeper or the registering
 * thread), so implementations must be thread-safe and fast. An exception thrown by a listener is
 * logged and ignored: it never fails the upload or loses a row.
 */
public interface LedgerListener {

  /** The item was taken into the in-memory queue. */
  default void onAccepted(LedgerItem item) {}

  /** The queue was full; the item stays unconfirmed for the sweeper. */
  default void onSaturated(LedgerItem item) {}

  /** The sink reported the object stored at the item's key; the row is not yet confirmed. */
  default void onStored(LedgerItem item, StoredObjectInfo object) {}

  /**
   * The sink reported the object stored at the item's key, after a PUT (single or multipart, from
   * the sink call to its answer) that took {@code putTime} on the ledger's clock; the row is not
   * yet confirmed. The ledger calls this method; the default calls
   * {@link #onStored(LedgerItem, StoredObjectInfo)}, so a listener overrides one or the other.
   */
  default void onStored(LedgerItem item, StoredObjectInfo object, java.time.Duration putTime) {
    onStored(item, object);
  }

  /** The compare-and-set confirm succeeded. */
  default void onConfirmed(LedgerItem item) {}

  /** The compare-and-set confirm changed nothing: another attempt got there first. */
  default void onConfirmLost(LedgerItem item) {}

  /**
   * The item was not uploaded by this ledger because another ledger instance holds a valid lease
   * on it (it is uploading it now) or has already finished it. Nothing is lost: the holder
   * confirms it, or its lease expires and the row is due again.
   */
  default void onClaimLost(LedgerItem item) {}

  /**
   * An attempt failed.
   *
   * @param terminal whether the row became terminal ({@code false}: retried after backoff)
   */
  default void onFailed(LedgerItem item, Reason reason, String detail, boolean terminal) {}

  /**
   * The circuit breaker around the sink changed state. While it is open no upload is attempted
   * and rows stay as they are.
   */
  default void onCircuitStateChanged(CircuitState state) {}

  /**
   * The circuit breaker opened (from closed, or again after a failed probe), and this is why: the
   * reason and detail of the last sink failure it counted, for example
   * {@link Reason#SINK_CONFIGURATION} with the S3 error code of a wrong credential. Called once per
   * opening, right after {@link #onCircuitStateChanged} with {@link CircuitState#OPEN}; a cause
   * shared by many rows is reported here once, not per row.
   *
   * @param reason the reason of the failure that opened the breaker ({@link Reason#SINK_TRANSIENT},
   *     {@link Reason#SINK_CONFIGURATION} or {@link Reason#INTERNAL_ERROR})
   * @param detail its description (operation, bucket, key, status and error code for S3; never a
   *     credential)
   */
  default void onCircuitOpened(Reason reason, String detail) {}

  /**
   * A playlist was published: its text was stored in the bucket and the publication recorded in
   * the ledger. For a media playlist a publication always stores its live window
   * ({@link ObjectKeys#liveMediaPlaylistKey}) and, at most once per
   * {@code LedgerBuilder.fullPlaylistInterval} while the broadcast is live, its full playlist; for
   * the multivariant playlist both multivariant playlists. Called once per publication, by the
   * thread that published it. Playlists never go backwards: for one playlist, {@code entries} (of
   * the full list, which the live window ends) never decreases from one call to the next, across
   * every node sharing the store (see docs/design.md, "Playlists").
   *
   * @param broadcastId the broadcast
   * @param rendition the rendition of a media playlist ({@link ObjectKeys#mediaPlaylistKey}), or
   *     {@code null} for the broadcast's multivariant playlist ({@link ObjectKeys#multivariantPlaylistKey})
   * @param entries for a media playlist the number of segment entries listed (gaps included); for
   *     the multivariant playlist the number of renditions listed
   * @param complete whether the playlist is final: the broadcast is complete, a media playlist is
   *     a VOD playlist ending with {@code #EXT-X-ENDLIST}
   */
  default void onPlaylistPublished(String broadcastId, String rendition, int entries, boolean complete) {}

  /**
   * The bucket refused a playlist publication of this node: a conditional write found another
   * version of a playlist object than the one the ledger last recorded as published (another node
   * published it meanwhile, a lease overlapped, or the object was replaced or deleted). Nothing was
   * overwritten; the versions found are recorded and a later round derives the playlist again from
   * the ledger and publishes it (see docs/bucket.md, "Conditional writes"). Only with a sink that
   * writes conditionally. Called once per refusal, by the thread that tried the publication.
   *
   * @param broadcastId the broadcast
   * @param rendition the rendition of a media playlist, or {@code null} for the multivariant playlist
   * @param key the object key whose write was refused
   * @param detail the reason, beginning {@code playlist version conflict}, as recorded on the playlist
   */
  default void onPlaylistRefused(String broadcastId, String rendition, String key, String detail) {}

  /**
   * The sweep found a row it cannot read (an unknown state or reason, say, written by a newer
   * version, or an identifier no longer valid) and skipped it; the other rows of its page and round
   * are swept as usual. Reported once per row per ledger instance; the row stays as it is in the
   * store, for an operator (or a newer version) to read.
   *
   * @param rowId the row's store id
   * @param problem what could not be read
   */
  default void onUnreadableRow(long rowId, String problem) {}

  /**
   * The directory at the {@linkplain LedgerBuilder#allowedRoot allowed root}'s path was replaced
   * while the ledger ran (renamed away and re-created, remounted), and the ledger re-opened it:
   * from now on every file, also of rows registered before, is judged against the directory now at
   * that path. Only a directory reached without any symlink is re-opened (and, if the root was a
   * mount point, only another mount point); any other replacement is refused file by file with
   * {@link Reason#ROOT_REPLACED}. Called once per re-opening, on the
   * thread that found it.
   *
   * @param root the allowed root's real path
   * @param change what changed (the file keys, device and inode, of the old and new directory)
   */
  default void onAllowedRootReopened(Path root, String change) {}

  /** A listener that ignores everything. */
  static LedgerListener noop() {
    return new LedgerListener() {};
  }
}
