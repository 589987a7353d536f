/**
 * Extension points implemented by adapters, and the values they exchange with the ledger. Every
 * store should pass {@code dev.segmentledger.testkit.contract.StateStoreContract} and every sink
 * {@code dev.segmentledger.testkit.contract.ObjectSinkContract} (testkit module). See docs/design.md for
 * the guarantees each must keep.
 *
 * <p>Interfaces:
 * <ul>
 *   <li>{@link dev.segmentledger.core.spi.StateStore}: the ledger table, the only durable state;
 *       every change a compare-and-set (jdbi-store: {@code JdbiStateStore}).
 *   <li>{@link dev.segmentledger.core.spi.ObjectSink}: the bucket; PUT, HEAD and list by contract
 *       key (s3-sink: {@code S3ObjectSink}).
 *   <li>{@link dev.segmentledger.core.spi.Repackager}: makes a rendition's init segment and a
 *       playback segment from a recorded original (ffmpeg-repackager: {@code FfmpegRepackager}).
 *   <li>{@link dev.segmentledger.core.spi.PlaylistStore}: the publication state of the HLS
 *       playlists the ledger writes to the bucket, reached through {@code StateStore.playlists()}.
 *   <li>{@link dev.segmentledger.core.spi.UploadContent}: the verified bytes of one item, handed
 *       by the ledger to {@code ObjectSink.put}.
 * </ul>
 *
 * <p>Values:
 * <ul>
 *   <li>{@link dev.segmentledger.core.spi.NewItem}: a row to insert, with its state, size, lease
 *       and file identity.
 *   <li>{@link dev.segmentledger.core.spi.RegisterResult}: the row after a registration, and
 *       whether this call created it.
 *   <li>{@link dev.segmentledger.core.spi.Confirmation}: one compare-and-set confirm of a batch.
 *   <li>{@link dev.segmentledger.core.spi.LeaseRenewal}: one lease extension of a batch.
 *   <li>{@link dev.segmentledger.core.spi.Claim}: the outcome of a lease claim, and whether it took
 *       over an abandoned attempt; {@link dev.segmentledger.core.spi.ClaimedRow}: the same with the
 *       row as the claim left it.
 *   <li>{@link dev.segmentledger.core.spi.BroadcastRecord}: a broadcast's stored lifecycle (created,
 *       ended).
 *   <li>{@link dev.segmentledger.core.spi.RepackagedFile}: a file a repackager wrote, with its size
 *       and duration.
 *   <li>{@link dev.segmentledger.core.query.Page}, {@link dev.segmentledger.core.query.RowQuery} and
 *       {@link dev.segmentledger.core.query.Backlog}: the operations queries across broadcasts.
 *   <li>{@link dev.segmentledger.core.spi.PlaylistRecord}: one playlist's publication record.
 *   <li>{@link dev.segmentledger.core.spi.Purged}: what one retention purge removed.
 * </ul>
 *
 * <p>Exceptions: {@link dev.segmentledger.core.spi.RepackageException}, what a repackager throws
 * to the ledger when it could not produce its output. The failures a store or sink reports, which
 * reach the ledger's callers, are API types: {@link dev.segmentledger.core.StoreException} (with
 * {@link dev.segmentledger.core.QueryTimeoutException}) and {@link dev.segmentledger.core.SinkException};
 * this package's former names of the store's and the sink's failures are deprecated subclasses, kept so that adapters and callers
 * compiled against them still link.
 *
 * <p>The rows themselves are {@link dev.segmentledger.core.LedgerItem}s, identified by
 * {@link dev.segmentledger.core.ItemId}, in an {@link dev.segmentledger.core.ItemState} with a
 * {@link dev.segmentledger.core.Reason}; sinks answer with
 * {@link dev.segmentledger.core.StoredObjectInfo} (all in the API package).
 */
package dev.segmentledger.core.spi;
