package dev.segmentledger.core;

import dev.segmentledger.core.query.Backlog;
import dev.segmentledger.core.query.Page;
import dev.segmentledger.core.query.RowQuery;
import java.nio.file.Path;
import java.util.List;
import java.util.Optional;

/**
 * The crash-safe upload ledger. A recorder {@linkplain #register registers} each file it closes;
 * the ledger writes a {@link ItemState#PENDING} row first, then offers the item to a bounded
 * in-memory queue that feeds a pool of workers. A worker PUTs the file to its
 * {@linkplain ObjectKeys contract key} and confirms the row with a compare-and-set update. A
 * sweeper re-reads unconfirmed rows in pages with a keyset cursor per axis, so whatever is lost
 * from memory by a crash is found again from the rows.
 *
 * <p>Build one with {@link #builder()}. Thread-safe. {@link #close()} stops the workers and the
 * sweeper; it closes neither the store nor the sink, which belong to the caller.
 *
 * <pre>{@code
 * Ledger ledger = Ledger.builder()
 *     .stateStore(JdbiStateStore.create(jdbi))
 *     .objectSink(S3ObjectSink.builder().client(s3).bucket("recordings").build())
 *     .allowedRoot(Path.of("/var/recordings"))
 *     .build();
 * ledger.start();
 * ledger.register(ItemId.original("b42", "720p", 7), Path.of("/var/recordings/b42/720p/7.ts"));
 * }</pre>
 */
public interface Ledger extends AutoCloseable {

  /**
   * Registers one closed file as {@link #register(ItemId, Path)} does, in {@code lane} rather than the
   * lane its axis and broadcast give it (see {@link Lane}): the recorder's intent, stored with the
   * segment's rows (the original and the PLAYBACK row made from it; not the rendition's INIT, which
   * every segment shares), so that every node of the store, and this one after a restart, queues them
   * in {@code lane}. A segment's hint takes precedence over its broadcast's ({@link #prioritize}). A
   * row registered before keeps the lane it was registered with. The default ignores the hint.
   *
   * @see #register(ItemId, Path) the exceptions
   */
  default Registration register(ItemId id, Path file, Lane lane) {
    return register(id, file);
  }

  /**
   * Puts every row of {@code broadcastId} in {@code lane} from now on, on every node of the store
   * ({@code null}: the lanes its rows' axes and the broadcast's phase give them). The hint is stored
   * on the broadcast's record ({@link dev.segmentledger.core.spi.StateStore#prioritize}), so it
   * outlives restarts; it may be given before the broadcast's first registration, and for an ended
   * broadcast. This node honours it for the rows it queues from now on; another node within the few
   * seconds it trusts what it last read of the broadcast. Rows already queued keep their lane. A row
   * registered with a hint of its own ({@link #register(ItemId, Path, Lane)}) keeps that one. With a
   * state store that keeps no hints, the hint is this node's memory only. The default does nothing.
   *
   * @throws dev.segmentledger.core.StoreException if the state store fails; the hint is not stored,
   *     give it again
   */
  default void prioritize(String broadcastId, Lane lane) {}

  /**
   * Changes how this node shares its uplink, at once: the lanes' shares for the next work taken, the
   * bandwidth cap for the next bytes sent (streams in flight included). A cap an operator stored in
   * the ledger for this node or for every node ({@link dev.segmentledger.core.spi.StoredUplinkCap},
   * from the command line or the console) stays in force over the cap given here until it is
   * removed; the shares given here apply at once either way.
   *
   * @throws UnsupportedOperationException by the default
   */
  default void uplink(Uplink uplink) {
    throw new UnsupportedOperationException("this ledger does not share an uplink");
  }

  /**
   * The uplink settings in force: as built or last set with {@link #uplink(Uplink)}, with the cap
   * stored for this node if any; the default: {@link Uplink#DEFAULT}.
   */
  default Uplink uplink() {
    return Uplink.DEFAULT;
  }

  /** A snapshot of the lanes and the cap; the default: settings only, nothing counted. */
  default UplinkStats uplinkStats() {
    return new UplinkStats(uplink(), java.util.Map.of(), 0, java.time.Duration.ZERO);
  }

  /** A new builder with the defaults documented on each of its methods. */
  static LedgerBuilder builder() {
    return new LedgerBuilder();
  }

  /**
   * Registers a closed file for upload: checks it at the file boundary, writes its row, then
   * offers it to the queue (if the ledger is started). Returns once the row is durable. Never
   * blocks on the queue.
   *
   * <p>A file that fails the boundary checks (outside the allowed root, not a regular file,
   * missing, unreadable, empty) is recorded as a {@link ItemState#REJECTED} row with its {@link
   * Reason} and is never uploaded; the returned registration says so. At registration every such
   * refusal is final, whatever {@link Reason#isTerminal()} says, because no size could be
   * recorded to retry against. The file is checked again when it is opened for upload; what is
   * found then is terminal or retried as {@link Reason#isTerminal()} says. Registering the same
   * identity again with the same size returns the existing row. The one refusal that is not the
   * file's is {@link Reason#ROOT_REPLACED} (the allowed root itself is not the directory the
   * ledger opened, and may not be re-opened): it writes no row and is thrown as
   * {@link RootReplacedException}; register the same file again until a call returns, as after a
   * {@link dev.segmentledger.core.StoreException}: once the root is back, it succeeds.
   *
   * <p>A relative {@code file} is resolved against the {@linkplain LedgerBuilder#allowedRoot
   * allowed root}, not against the working directory. The check follows symlinks to the real
   * path; a hard link inside the root to a file outside it cannot be told apart by path and is
   * uploaded like any file of the root: keep the root writable by the recorder only, on its own
   * filesystem (see {@link LedgerBuilder#allowedRoot}).
   *
   * <p>The identifiers of {@code id} were validated when it was constructed ({@link
   * Identifiers}): an identifier that could leave its key prefix or carry control characters
   * never reaches this method, so no row is written for it.
   *
   * <p>With a {@linkplain LedgerBuilder#repackager repackager} configured, registering an
   * {@link Axis#ORIGINAL} also registers, in the same transaction, the rendition's {@link Axis#INIT}
   * (once) and the segment's {@link Axis#PLAYBACK} row; the playback row waits until the init is
   * confirmed. Each axis is then uploaded and confirmed on its own.
   *
   * @throws IllegalArgumentException if {@code file} is null or empty
   * @throws UnsupportedFileNameException if the file's name is not valid in the platform's file
   *     name encoding (it could not be stored exactly); nothing is written
   * @throws RegistrationConflictException if the identity's position is registered with another
   *     size or another {@linkplain MediaFormat format}
   * @throws BroadcastEndedException if the broadcast has ended; nothing is written
   * @throws RootReplacedException if the allowed root is replaced ({@link Reason#ROOT_REPLACED});
   *     nothing is written: register it again, as for a {@code StoreException}
   * @throws dev.segmentledger.core.StoreException if the state store fails (its database
   *     unreachable or failing over, or the transaction could not complete). Its
   *     {@link dev.segmentledger.core.StoreException#writeOutcome() outcome} says whether the row may
   *     exist: {@code NOT_WRITTEN} (nothing was written) or {@code UNKNOWN} (the commit was sent
   *     and its answer lost; the row exists if the database committed it). Either way the file is
   *     not registered as far as the caller knows: register it again until a call returns (the
   *     same file is the same row; one committed meanwhile comes back with
   *     {@link Registration#created()} {@code false}). See docs/failover.md, "When PostgreSQL fails over"
   * @throws IllegalStateException if the ledger is closed
   */
  Registration register(ItemId id, Path file);

  /**
   * Registers one closed file as {@link #register(ItemId, Path)} does, with what else the recorder
   * knows of it (its {@linkplain ClosedFile#recordedAt() recording time}): the same as
   * {@code registerAll(List.of(file)).get(0)}.
   *
   * @throws RegistrationConflictException if the position is registered with another size or format
   * @see #register(ItemId, Path) the other exceptions
   */
  default Registration register(ClosedFile file) {
    return registerAll(java.util.List.of(file)).get(0);
  }

  /**
   * Registers many closed files at once, in one transaction: each as {@link #register} would, but
   * with a few statements for the whole batch instead of a few per file. Use it when files close in
   * bursts (many renditions or broadcasts, a backlog found at start-up): it is how a ledger on
   * PostgreSQL reaches thousands of registrations per second.
   *
   * <p>All or nothing: if any identity conflicts or any broadcast has ended, nothing is written and
   * the exception is thrown. A file refused at the boundary is not an exception: its row is written
   * REJECTED with its reason, as by {@link #register}; but a batch met by a replaced allowed root
   * ({@link Reason#ROOT_REPLACED}) is refused as a whole, nothing written, with
   * {@link RootReplacedException}: register it again. Rows are written in
   * {@link ItemId#IDENTITY_ORDER}, whatever the list's order, so that batches registered at once by
   * several nodes with files in common wait for each other instead of deadlocking. Keep batches to
   * a few thousand files: the batch is one transaction.
   *
   * <p>Paths are taken as by {@link #register}: a relative one from the allowed root (not the
   * working directory), and a hard link inside the root counts as a file of the root.
   *
   * @return one registration per file, in the list's order
   * @throws UnsupportedFileNameException if a file's name cannot be stored exactly; nothing is written
   * @throws RegistrationConflictException if an identity's position is registered with another size or
   *     format; nothing is written
   * @throws BroadcastEndedException if a broadcast of the batch has ended; nothing is written
   * @throws RootReplacedException if the allowed root is replaced; nothing is written, register the
   *     batch again
   * @throws dev.segmentledger.core.StoreException if the state store fails; its
   *     {@link dev.segmentledger.core.StoreException#writeOutcome() outcome} says whether the batch
   *     may have been written (all of it or none), and registering the same files again is safe,
   *     as for {@link #register}
   * @throws IllegalStateException if the ledger is closed
   */
  List<Registration> registerAll(List<ClosedFile> files);

  /** The current row of {@code id}, read from the store. */
  Optional<LedgerItem> find(ItemId id);

  /**
   * Ends a broadcast: it accepts no new registrations; its unconfirmed rows are still recovered.
   * Once every row is terminal the broadcast is {@linkplain BroadcastStatus.Phase#COMPLETE complete}.
   *
   * @return {@code true} if this call ended it, {@code false} if it had already ended
   */
  boolean endBroadcast(String broadcastId);

  /** The lifecycle phase of a broadcast and its row counts per axis and state, read from the store. */
  BroadcastStatus broadcastStatus(String broadcastId);

  /** What a player may see of one rendition: read from the store, only confirmed segments. */
  PlaybackView playback(String broadcastId, String rendition);

  /**
   * Compares the broadcast's rows with the objects under its prefix, per axis, and reports every
   * difference; changes nothing. See {@link Reconciler} for what is compared and its guarantees.
   * Meaningful once the broadcast is quiet (no upload in flight).
   *
   * @throws dev.segmentledger.core.SinkException if the bucket cannot be listed or read
   */
  ReconciliationReport reconcile(String broadcastId);

  /**
   * {@linkplain #reconcile Compares}, then re-opens each confirmed row whose object is missing or
   * different ({@link Reason#OBJECT_MISSING}, {@link Reason#OBJECT_MISMATCH}); a started ledger's
   * sweeper then uploads those rows again and confirms them. Orphans are reported, never deleted.
   * Also aborts the unfinished uploads at the broadcast's keys older than {@link
   * LedgerBuilder#abortUnfinishedUploadsAfter} (default 1 day). See {@link
   * Reconciler#reconcileAndRepair}.
   *
   * @throws dev.segmentledger.core.SinkException if the bucket cannot be listed or read;
   *     nothing is re-opened then
   */
  ReconciliationReport reconcileAndRepair(String broadcastId);

  /**
   * One bounded step of reconciling a broadcast with the bucket: at most the request's number of
   * rows and objects checked, for at most its duration, from its cursor; repairs what it found if
   * the request says so (as {@link #reconcileAndRepair} does). Continue with the step's {@link
   * ReconcileStep#next() next} until the pass is complete. What operators and tools should call:
   * its cost is bounded whatever the broadcast's size. See {@link Reconciler#reconcile(ReconcileRequest)}.
   *
   * @throws dev.segmentledger.core.SinkException if the bucket cannot be listed or read
   * @throws IllegalStateException if the request repairs and the ledger is closed
   */
  ReconcileStep reconcile(ReconcileRequest request);

  /**
   * Every row of a broadcast, all axes, in row order, read from the store at once: its cost and
   * size grow with the broadcast. Operations tools should read a broadcast page by page instead,
   * with {@link #items(RowQuery)} and {@link RowQuery.Builder#broadcastId(String)}. Filter by
   * {@link LedgerItem#state()} for terminal rows and by {@link LedgerItem#attempts()} for
   * long-failing ones.
   */
  List<LedgerItem> items(String broadcastId);

  /**
   * One page of the rows matching {@code query}, across every broadcast unless the query names
   * one, read from the store: for example every REJECTED row of a reason, or PENDING rows with many
   * attempts or registered long ago. Keyset-paged: pass the page's {@link
   * dev.segmentledger.core.query.Page#next() next} cursor to {@link
   * dev.segmentledger.core.query.RowQuery#after(long)} for the next page. See {@link
   * dev.segmentledger.core.spi.StateStore#findRows}. Works on a closed ledger too.
   *
   * @throws dev.segmentledger.core.StoreException if the state store fails
   */
  Page<LedgerItem> items(RowQuery query);

  /**
   * What is still to be uploaded, per axis, across every broadcast and every node of the store,
   * now (by the ledger's clock): unconfirmed rows, the age of the oldest, rows due, leased, in
   * backoff and waiting for their INIT. Cheap enough to poll (its cost grows with the backlog, not
   * with the confirmed rows). See {@link dev.segmentledger.core.spi.StateStore#backlog}.
   *
   * @throws dev.segmentledger.core.StoreException if the state store fails
   */
  Backlog backlog();

  /**
   * Re-opens a {@link ItemState#REJECTED} or {@link ItemState#EXCLUDED} row once its cause is
   * fixed (a bucket policy, credentials, a restored file): back to {@link ItemState#PENDING} with
   * {@link Reason#REOPENED}, due at once. Its attempts start over at 0, as do its counts of abandoned
   * and blamed attempts: every cap on attempts and the backoff then see only the attempts since the
   * cause was fixed, so the row is not rejected again by its first failure. Its last error names the
   * attempts before ({@code re-opened after REJECTED (SINK_PERMANENT); attempts before: 9}). A
   * compare-and-set: a row that changed meanwhile is left alone.
   *
   * @return whether the row was re-opened ({@code false} if unknown or not rejected or excluded)
   */
  boolean reopen(ItemId id);

  /**
   * Re-opens every {@link ItemState#REJECTED} or {@link ItemState#EXCLUDED} row of a broadcast
   * whose reason is {@code reason} (for example all {@link Reason#SINK_PERMANENT} rows after a
   * bucket policy was fixed); see {@link #reopen(ItemId)}.
   *
   * @return the number of rows re-opened
   */
  int reopen(String broadcastId, Reason reason);

  /**
   * Hands the unconfirmed rows of storage group {@code fromGroup} over to {@code toGroup}: for a
   * host whose disk was moved to, or is now mounted on, a host of {@code toGroup} (at the paths
   * the rows name), so that the nodes of {@code toGroup} upload them. Rows keep their state,
   * attempts and leases; terminal rows are not touched. Either group may be {@code null}, meaning
   * no group (shared storage). Runs on the calling thread in short transactions; any node may run
   * it, whatever its own group. See {@link LedgerBuilder#storageGroup}.
   *
   * @return the number of rows handed over
   * @throws IllegalArgumentException if a non-null group is not a valid identifier, or both are equal
   * @throws dev.segmentledger.core.StoreException if the state store fails; what earlier
   *     transactions handed over stays handed over
   */
  int handOver(String fromGroup, String toGroup);

  /**
   * Declares storage group {@code group} lost for good (its host and disk are gone): its
   * unconfirmed rows become {@link ItemState#REJECTED} with {@link Reason#STORAGE_LOST}, counted and
   * kept, instead of waiting for ever for a node of that group. Explicit by design: no node ever
   * rejects a row because it cannot see its file. If the disk comes back, {@link #reopen(String,
   * Reason) re-open} the rows ({@code STORAGE_LOST}), then {@link #handOver} them if needed. Any
   * node may run it. A row under a live lease is left alone (a node is still uploading it, so the
   * disk is not lost); once its lease has run out, a later call marks it if it is still open.
   *
   * @return the number of rows marked (rows under a live lease are not)
   * @throws IllegalArgumentException if {@code group} is not a valid identifier
   * @throws dev.segmentledger.core.StoreException if the state store fails; what earlier
   *     transactions marked stays marked
   */
  int markStorageLost(String group);

  /**
   * Runs one retention round now, on the calling thread: deletes the rows of complete broadcasts
   * that ended longer ago than the {@linkplain LedgerBuilder#retention configured retention}, by the
   * ledger's clock, in short transactions, until none is left. Safe to call while the ledger runs
   * and from several nodes at once (see {@link dev.segmentledger.core.spi.StateStore#purge}).
   *
   * @return the number of rows deleted
   * @throws IllegalStateException if no retention is configured, or the ledger is closed
   * @throws UnsupportedOperationException if the state store does not implement retention
   * @throws dev.segmentledger.core.StoreException if the state store fails; what earlier
   *     transactions deleted stays deleted
   */
  long purge();

  /** This process's counters: accepted, stored and confirmed separately, per axis. */
  LedgerStats stats();

  /** The settings this ledger was built with, read-only: what its builder was given, or the defaults. */
  LedgerSettings settings();

  /** Starts the workers and the sweeper. Idempotent. */
  void start();

  /**
   * Stops the sweeper, the retention and playlist rounds and the workers, waiting for in-flight
   * uploads and rounds up to the configured shutdown timeout. When it returns within that timeout,
   * none of the ledger's threads runs a statement against the store any more, so the caller may
   * close the connection pool or drop the schema next. Unconfirmed rows stay in the store for the
   * next start. An upload still running at the timeout (a slow PUT, one waiting for the bandwidth
   * cap) is cancelled: that is not a failure of its row, so no failure is recorded on it, the sink
   * breaker does not count it, no listener hears of it, and its lease is given back due at once,
   * so the next node or start claims it without counting an abandoned attempt. Idempotent.
   */
  @Override
  void close();
}
