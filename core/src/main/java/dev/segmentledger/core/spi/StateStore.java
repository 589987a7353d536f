package dev.segmentledger.core.spi;

import dev.segmentledger.core.Axis;
import dev.segmentledger.core.ItemId;
import dev.segmentledger.core.ItemState;
import dev.segmentledger.core.Lane;
import dev.segmentledger.core.LedgerItem;
import dev.segmentledger.core.QueryTimeoutException;
import dev.segmentledger.core.Reason;
import dev.segmentledger.core.StoreException;
import dev.segmentledger.core.query.Backlog;
import dev.segmentledger.core.query.Page;
import dev.segmentledger.core.query.RowCount;
import dev.segmentledger.core.query.RowQuery;
import java.time.Duration;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.Arrays;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * The ledger table: the only durable state of the library. Everything in memory can be rebuilt
 * from it after a crash.
 *
 * <p>Implementations must be thread-safe, and every state change is conditional (compare and
 * set): a call whose precondition no longer holds changes nothing and returns {@code false}.
 * Row ids are assigned by the store, are unique, and grow with insertion order (within a
 * {@linkplain #registerAll batch}, {@link ItemId#IDENTITY_ORDER}). Every
 * implementation should pass {@code dev.segmentledger.testkit.contract.StateStoreContract}.
 */
public interface StateStore {

  /**
   * Inserts {@code items} atomically: either every item is registered or none is.
   * Each item is inserted unless a row at the same position (broadcast, axis, rendition, sequence)
   * exists; then the existing row is returned with {@code created == false} (idempotent
   * registration). An identity listed twice is inserted once, from its first item in the list.
   *
   * <p>The rows are inserted, and their ids assigned, in {@link ItemId#IDENTITY_ORDER}, whatever
   * the order of the list; the results come back in the list's order. A store on a database locks
   * each identity as it inserts it, so two nodes registering overlapping batches at once, each in
   * its own order, would deadlock; in the one identity order the second waits for the first. Within
   * one batch the row id order only orders rows that become visible together, and a recorder's
   * files of one rendition keep their sequence order.
   *
   * <ul>
   *   <li>The broadcast of each item is created (live) if unknown; if it has
   *       {@linkplain #endBroadcast ended}, {@link dev.segmentledger.core.BroadcastEndedException}
   *       is thrown and nothing is inserted. This check is atomic with {@link #endBroadcast}.
   *   <li>A PLAYBACK item asking for {@link ItemState#WAITING} is inserted
   *       {@link ItemState#PENDING} instead if the INIT row of its (broadcast, rendition) is
   *       confirmed. This decision is atomic with the confirm of that INIT: a playback row can
   *       never be left waiting for an init that is already confirmed.
   *   <li>An item {@linkplain NewItem#leased() leased} from its insertion is inserted with that
   *       lease, exactly as if its owner had {@linkplain #claim claimed} it right after: its
   *       {@code nextAttemptAt} is the lease's end. An existing row is returned as it is.
   *   <li>The item's {@linkplain NewItem#fileIdentity() file identity} is stored with the row and
   *       returned in {@link LedgerItem#fileIdentity()}; so are its
   *       {@linkplain ItemId#format() format} (in {@link LedgerItem#id()}) and its
   *       {@linkplain NewItem#recordedAt() recording time}. A row found existing keeps its own.
   *   <li>The item's {@linkplain NewItem#storageGroup() storage group} is stored with the row and
   *       returned in {@link LedgerItem#storageGroup()}.
   * </ul>
   *
   * @return one result per item, in the order of {@code items}
   * @throws dev.segmentledger.core.RegistrationConflictException if a row exists at an item's
   *     position with another format, or with a different size while the new item's size is known
   *     (the same within the batch); nothing is inserted
   * @throws StoreException if the store fails (its database unreachable, or the transaction could
   *     not complete), with the driver's exception as the cause
   */
  List<RegisterResult> registerAll(List<NewItem> items);

  /** Registers one item; see {@link #registerAll}. */
  default RegisterResult register(NewItem item) {
    return registerAll(List.of(item)).get(0);
  }

  /**
   * One page of the sweep: rows of {@code axis} in state {@link ItemState#PENDING} whose
   * {@code nextAttemptAt <= now} and whose row id is greater than {@code afterRowId}, in
   * ascending row id order, at most {@code limit} rows. Rows in backoff take no slot of the page,
   * nor do rows under a valid {@linkplain #claim lease} (their {@code nextAttemptAt} is the lease
   * expiry). Must cost a bounded index scan whatever the size of the table.
   *
   * <p>A row of the page that the store cannot read is returned as {@linkplain DuePage#unreadable()
   * unreadable} in its place, never thrown: one bad row must not stop the sweep of the others.
   */
  default DuePage findDue(Axis axis, long afterRowId, Instant now, int limit) {
    return findDue(axis, null, afterRowId, now, limit);
  }

  /**
   * One page of the sweep of a node of {@code storageGroup}, as {@link #findDue(Axis, long,
   * Instant, int)}, but only rows that node can read: rows of {@code storageGroup} and rows of no
   * group ({@link LedgerItem#storageGroup()} {@code null}: shared storage, or registered before
   * groups existed). With {@code storageGroup == null} (a node on shared storage), only rows of no
   * group. Rows of other groups take no slot of the page. Must cost a bounded index scan whatever
   * the size of the table and the backlog of other groups.
   *
   * @param storageGroup the sweeping node's group, or {@code null}
   */
  DuePage findDue(Axis axis, String storageGroup, long afterRowId, Instant now, int limit);

  /** The row with the given store id. */
  Optional<LedgerItem> findByRowId(long rowId);

  /**
   * The row with the given store id, as {@link #findByRowId}, read so that what it returns outlives
   * a failover of a replicated store: a store whose commits wait for a standby makes this read wait
   * as a commit does, so it returns only what the standby has too. After a crash, a restarted
   * primary shows the transactions it committed locally that no standby acknowledged, until the HA
   * engine demotes and rewinds it; a plain read may return such a row, this one must not. The
   * ledger reads a row this way to judge a confirm whose outcome is unknown (see docs/failover.md, "When
   * PostgreSQL fails over"). The default is {@link #findByRowId}, right for a store without
   * replication.
   */
  default Optional<LedgerItem> findByRowIdDurably(long rowId) {
    return findByRowId(rowId);
  }

  /**
   * The row at the position of {@code id} (broadcast, axis, rendition, sequence), whatever its
   * {@linkplain ItemId#format() format}: the row's own {@link LedgerItem#id()} names the format it
   * was registered with, which may differ from {@code id}'s.
   */
  Optional<LedgerItem> find(ItemId id);

  /** Every row of a broadcast, all axes, in row id order. Meant for checks and reports. */
  List<LedgerItem> findByBroadcast(String broadcastId);

  /**
   * Up to {@code limit} PLAYBACK rows of one rendition of a broadcast with a sequence of at least
   * {@code fromSequence}, in sequence order: a keyset page, so that a playlist publication reads
   * what follows its last published position and never the whole broadcast. A store on a database
   * must answer it with a range read of its identity index. The default filters
   * {@link #findByBroadcast}.
   */
  default List<LedgerItem> findSegments(String broadcastId, String rendition, long fromSequence, int limit) {
    if (limit <= 0) {
      throw new IllegalArgumentException("limit must be > 0, got " + limit);
    }
    return findByBroadcast(broadcastId).stream()
        .filter(row -> row.id().axis() == Axis.PLAYBACK && row.id().rendition().equals(rendition)
            && row.id().sequence() >= fromSequence)
        .sorted(Comparator.comparingLong(row -> row.id().sequence()))
        .limit(limit)
        .toList();
  }

  /**
   * Whether any row of the broadcast, of any axis, is not terminal (PENDING or WAITING): an ended
   * broadcast is complete once this is false. A store on a database must answer it from an index
   * of unconfirmed rows only. The default counts {@link #countByBroadcast}.
   */
  default boolean hasOpenRows(String broadcastId) {
    return countByBroadcast(broadcastId).stream().anyMatch(count -> !count.state().isTerminal() && count.rows() > 0);
  }

  /**
   * The rows of a broadcast counted by axis, state and reason, each group with the registration time
   * of its oldest row, in no particular order; empty for an unknown broadcast. A status page reads
   * this instead of every row: its answer is at most a few dozen lines whatever the broadcast's
   * size. The default counts {@link #findByBroadcast}; a database store should aggregate in one
   * statement.
   */
  default List<RowCount> countByBroadcast(String broadcastId) {
    Map<List<Object>, RowCount> counts = new LinkedHashMap<>();
    for (LedgerItem row : findByBroadcast(broadcastId)) {
      counts.merge(Arrays.asList(row.id().axis(), row.state(), row.reason()),
          new RowCount(row.id().axis(), row.state(), row.reason(), 1, row.registeredAt()),
          (a, b) -> new RowCount(a.axis(), a.state(), a.reason(), a.rows() + b.rows(),
              a.oldestRegisteredAt().isBefore(b.oldestRegisteredAt()) ? a.oldestRegisteredAt()
                  : b.oldestRegisteredAt()));
    }
    return List.copyOf(counts.values());
  }

  /**
   * One page of the rows matching {@code query}, across every broadcast unless the query names
   * one, in the query's order, after its cursor: at most {@link RowQuery#limit()} rows, with the
   * cursor of the next page if more rows matched. Keyset-paged: the cost of a page does not grow
   * with the number of rows before the cursor. A store on a database must answer a query for
   * unconfirmed, REJECTED or EXCLUDED rows through an index holding only such rows, whatever the
   * number of confirmed rows; a query for CONFIRMED rows walks the table in row id order.
   * Read-only; meant for operators and their tools, not for the upload path.
   */
  Page<LedgerItem> findRows(RowQuery query);

  /**
   * The backlog per axis at {@code now}: the unconfirmed rows, the registration time of the oldest
   * of them, and how the PENDING ones split into due, leased and in backoff (see
   * {@link Backlog.AxisBacklog}). Read-only. A store on a database must compute it from an index
   * holding only unconfirmed (or otherwise not confirmed) rows: its cost grows with the backlog,
   * never with the confirmed rows of the table.
   */
  Backlog backlog(Instant now);

  /**
   * Compare-and-set confirm: sets the row {@link Confirmation#rowId()} of the broadcast
   * {@link Confirmation#broadcastId()} to {@link ItemState#CONFIRMED} with the confirmation's
   * checksum and time only if it is in the confirmation's expected state and has its expected size
   * (a row id of another broadcast, or named with another axis, changes nothing). Of concurrent
   * confirms of one row
   * exactly one returns {@code true}. An INIT confirmed here releases its waiting PLAYBACK rows,
   * atomically with its own confirm.
   *
   * @return whether this call confirmed the row
   */
  boolean confirm(Confirmation confirmation);

  /**
   * Many {@linkplain #confirm compare-and-set confirms} at once, with one result per row: each row
   * is confirmed or not exactly as by {@link #confirm}, and a confirm that loses its race changes
   * nothing of that row and does not affect the others. An INIT confirmed here releases its waiting
   * PLAYBACK rows as {@link #confirm} does, atomically with its own confirm. A row id should appear
   * once per batch; if it appears again, at most one of its entries reports {@code true}.
   *
   * <p>The default runs {@link #confirm} once per entry. A store on a database should override it
   * with one statement per batch: the ledger confirms through this method, and per-row round trips
   * are what limits its throughput.
   *
   * @return for each confirmation, in order, whether this call confirmed its row
   */
  default boolean[] confirmAll(List<Confirmation> confirmations) {
    boolean[] confirmed = new boolean[confirmations.size()];
    for (int i = 0; i < confirmed.length; i++) {
      confirmed[i] = confirm(confirmations.get(i));
    }
    return confirmed;
  }

  /**
   * Records a failed attempt on an unconfirmed row: increments {@code attempts}, sets
   * {@code reason}, {@code lastError} and {@code nextAttemptAt}, and clears the lease. Changes
   * nothing if the row is no longer in {@code expectedState}, or if its lease belongs to another
   * owner than {@code leaseOwner}: a holder whose lease expired and was taken over by another
   * node must not overwrite the new holder's attempt (compare-and-set on the lease holder).
   *
   * @param leaseOwner the caller's lease owner; a row with no lease at all is updated too
   * @return whether the row was updated
   */
  boolean recordFailure(long rowId, ItemState expectedState, String leaseOwner, Reason reason, String detail,
      Instant nextAttemptAt);

  /**
   * Makes an unconfirmed row terminal ({@link ItemState#REJECTED} or {@link ItemState#EXCLUDED})
   * with its reason, and clears the lease. Changes nothing if the row is no longer in
   * {@code expectedState}, or if its lease belongs to another owner than {@code leaseOwner} (see
   * {@link #recordFailure}).
   *
   * @param leaseOwner the caller's lease owner; a row with no lease at all is updated too
   * @return whether the row was updated
   */
  boolean markTerminal(long rowId, ItemState expectedState, String leaseOwner, ItemState terminalState,
      Reason reason, String detail, Instant at);

  /**
   * How many failures the row has recorded with {@code reason} ({@link #recordFailure} and
   * {@link #markTerminal}) since it was registered or last {@linkplain #reopen re-opened}: the count
   * the ledger caps ({@link dev.segmentledger.core.LedgerBuilder#maxErrorAttempts}) for the reasons
   * it cannot tell from a lasting one, {@link Reason#INTERNAL_ERROR} and
   * {@link Reason#REPACKAGE_FAILED}, so that the cap counts that reason's failures only, never the
   * row's other attempts. A store counts at least those two reasons; 0 for a row it does not hold.
   *
   * <p>The default returns {@code -1}: the store does not count failures per reason, and the ledger
   * caps those reasons by the row's {@code attempts}, as stores written before this method did.
   *
   * @return the count, or {@code -1} if the store does not count failures of {@code reason}
   */
  default int failuresWith(long rowId, Reason reason) {
    return -1;
  }

  /**
   * Records the file produced by the repackager for an unconfirmed PLAYBACK or INIT row: sets
   * {@code sourcePath}, {@code sizeBytes} and {@code mediaDuration}, only if the row is still in
   * {@code expectedState} with {@code expectedSize} (compare and set).
   *
   * @return whether the row was updated
   */
  boolean recordProduced(long rowId, ItemState expectedState, long expectedSize, String sourcePath, long sizeBytes,
      Duration mediaDuration);

  /**
   * Marks every unconfirmed row ({@link ItemState#PENDING} or {@link ItemState#WAITING})
   * registered before {@code threshold} as {@link ItemState#EXCLUDED} with
   * {@link Reason#PAST_CUTOFF}, at most {@code limit} rows per call. A row under a lease still
   * valid at {@code at} is being uploaded and is left alone. An INIT row is shared by
   * every segment of its rendition, so it is excluded only when no unconfirmed PLAYBACK row of
   * its (broadcast, rendition) was registered at or after {@code threshold}: newer playback work
   * never waits for an init the cutoff removed.
   *
   * @return the number of rows excluded by this call
   */
  int excludeRegisteredBefore(Instant threshold, Instant at, int limit);

  /**
   * Settles WAITING PLAYBACK rows whose rendition's INIT is no longer pending: those whose INIT is
   * CONFIRMED become PENDING (a release the confirm missed, for example a playback row registered
   * directly in a transaction that raced the INIT's confirm), and those whose INIT is REJECTED or
   * EXCLUDED become REJECTED with {@link Reason#INIT_FAILED} (they could otherwise wait for ever
   * and keep their broadcast from completing). Rows whose INIT is pending or absent keep waiting.
   *
   * @return the number of rows changed
   */
  int settleWaiting(Instant at);

  /**
   * Ends a live broadcast: no registration for it succeeds afterwards. Creates the broadcast
   * record if unknown.
   *
   * @return {@code true} if this call ended it, {@code false} if it had already ended
   */
  boolean endBroadcast(String broadcastId, Instant at);

  /**
   * The lifecycle record of a broadcast, if it has one, with its {@linkplain BroadcastRecord#lane()
   * lane hint} if the store keeps hints ({@link #prioritize}).
   */
  Optional<BroadcastRecord> findBroadcast(String broadcastId);

  /**
   * Stores the lane the recorder puts every row of a broadcast in
   * ({@link dev.segmentledger.core.Ledger#prioritize}) on the broadcast's record, where every node
   * reads it ({@link #findBroadcast}) and which outlives restarts; {@code null} removes it. A row's
   * own hint ({@link LedgerItem#lane()}, stored at its registration by {@link NewItem#lane()})
   * takes precedence over its broadcast's. Creates the broadcast's record (live, created
   * {@code at}) if unknown and {@code lane} is not {@code null}, so that a recorder may hint a
   * broadcast before its first registration; an ended broadcast may be hinted too. The last call
   * wins.
   *
   * <p>A store that keeps hints also stores {@link NewItem#lane()} with each row it inserts and
   * returns it in {@link LedgerItem#lane()} from every read, the sweep page and the claim included,
   * unchanged by every transition of the row. The default throws {@link
   * UnsupportedOperationException}: a store written before hints were stored keeps none, and the
   * ledger then keeps a broadcast's hint in its own memory only.
   *
   * @throws UnsupportedOperationException if the store keeps no hints (the default)
   * @throws StoreException if the store fails
   */
  default void prioritize(String broadcastId, Lane lane, Instant at) {
    throw new UnsupportedOperationException("this state store keeps no lane hints");
  }

  /** The number of rows of {@code axis} in {@code state}. */
  long count(Axis axis, ItemState state);

  /**
   * This store with every read bounded in time, for the operations views (a console, an endpoint):
   * {@link #findRows}, {@link #countByBroadcast}, {@link #backlog}, {@link #findByRowId}, {@link #find},
   * {@link #findByBroadcast}, {@link #findBroadcast}, {@link #count} and the {@linkplain #playlists()
   * playlists}' {@link PlaylistStore#find find} and {@link PlaylistStore#countAwaitingPublication
   * countAwaitingPublication} each end with a {@link QueryTimeoutException} once they take longer
   * than {@code timeout}, and the bound applies to those reads only: the sweep's reads and every
   * write are as in this store. A store on a database applies it as a statement timeout that ends
   * with each read, leaving a transaction the caller holds as it was. The default returns this
   * store: one whose reads are bounded by their nature (in memory) needs no more.
   *
   * @param timeout how long one read may take; positive, at most {@link Integer#MAX_VALUE} ms
   *     (about 24.8 days, PostgreSQL's largest statement timeout)
   * @return a store on the same rows; this store is unchanged
   * @throws IllegalArgumentException if {@code timeout} is not positive or is longer than that
   */
  default StateStore withReadTimeout(Duration timeout) {
    if (timeout.isNegative() || timeout.isZero() || timeout.compareTo(Duration.ofMillis(Integer.MAX_VALUE)) > 0) {
      throw new IllegalArgumentException("timeout must be positive and at most " + Integer.MAX_VALUE + " ms, got "
          + timeout);
    }
    return this;
  }

  /**
   * Compare-and-set re-open of a terminal row: puts it back to {@link ItemState#PENDING}, only if
   * it is in {@code expectedState}. Used by the {@link dev.segmentledger.core.Reconciler}'s repair
   * (a CONFIRMED row whose object was found missing or different) and by
   * {@link dev.segmentledger.core.Ledger#reopen} (a REJECTED or EXCLUDED row whose cause was fixed).
   * Sets {@code reason} and {@code lastError = detail}, makes the row due at once
   * ({@code nextAttemptAt = at}), clears {@code confirmedAt} and {@code checksum}, and resets
   * {@code attempts}, the counts of abandoned and blamed attempts, the {@linkplain #failuresWith failures
   * per reason} and the stored bytes (see
   * {@link #claim}): the row starts over, and the limits on attempts apply afresh; keeps the size
   * and the file path, so the next upload sends the registered bytes again to the same key. A row whose reason is
   * {@link Reason#FILE_CHANGED} also loses its recorded {@linkplain LedgerItem#fileIdentity() file
   * identity}: re-opening it accepts the file as it is now, at its registered size; every other
   * row keeps it. Of concurrent re-opens of one row exactly one returns {@code true}.
   * Nothing else changes: waiting PLAYBACK rows are not touched, and a re-opened INIT releases
   * nothing until it is confirmed again.
   *
   * @param expectedState a terminal state: CONFIRMED, REJECTED or EXCLUDED
   * @return whether this call re-opened the row
   * @throws IllegalArgumentException if {@code expectedState} is not terminal
   */
  boolean reopen(long rowId, ItemState expectedState, Reason reason, String detail, Instant at);

  // ---- Retention: removing what a complete broadcast no longer needs ------------------------

  /**
   * Deletes the rows of complete broadcasts that ended before {@code completedBefore}, at most
   * {@code maxRows} rows per call, in one short transaction on a database store. The retention
   * policy, which every implementation keeps:
   *
   * <ul>
   *   <li>Only rows of a broadcast that has {@linkplain #endBroadcast ended} strictly before
   *       {@code completedBefore} and has no unconfirmed row ({@link ItemState#PENDING} or
   *       {@link ItemState#WAITING}) at the time of the call (a complete broadcast) are candidates.
   *       A live broadcast, or an ended one with a row still to upload, keeps every row.
   *   <li>Only terminal rows ({@link ItemState#CONFIRMED}, {@link ItemState#REJECTED},
   *       {@link ItemState#EXCLUDED}) are deleted, and the state is checked on each row as it is
   *       deleted: a row {@linkplain #reopen re-opened} while its broadcast is being purged is kept
   *       (and its broadcast is no longer a candidate until that row is terminal again). An
   *       unconfirmed row is never deleted.
   *   <li>The broadcast record is kept (ended) as a tombstone, so a late registration under the
   *       same broadcast id is still refused with
   *       {@link dev.segmentledger.core.BroadcastEndedException} rather than starting a new
   *       broadcast over the purged one's object keys.
   *   <li>Broadcasts are purged oldest end first; a broadcast's rows in
   *       {@linkplain dev.segmentledger.core.ItemId#IDENTITY_ORDER identity order}.
   * </ul>
   *
   * <p>Idempotent and safe to run from several nodes at once: a second call deletes what the first
   * left, and concurrent calls never delete a row the policy keeps. Call it again until it returns
   * {@link Purged#isEmpty() nothing}. The objects in the bucket are never touched.
   *
   * <p>The default throws {@link UnsupportedOperationException}: a store that does not implement
   * retention keeps every row, and a ledger configured with a retention refuses to start on it.
   *
   * @param completedBefore broadcasts that ended at or after it are kept whole
   * @param maxRows the most rows one call deletes, &gt; 0
   * @return what the call deleted
   * @throws UnsupportedOperationException if the store does not implement retention
   * @throws StoreException if the store fails; what was deleted before stays deleted (by whole
   *     committed calls on a database store)
   */
  default Purged purge(Instant completedBefore, int maxRows) {
    throw new UnsupportedOperationException(getClass().getName() + " does not implement retention (purge)");
  }

  // ---- The recorder's disk: the local files the ledger is done with --------------------------

  /**
   * One page of the rows whose local file the ledger produced itself and may still have to delete:
   * {@link ItemState#CONFIRMED} rows with an {@linkplain LedgerItem#originPath() origin path} (the
   * PLAYBACK and INIT files the repackager wrote) not yet {@linkplain #markLocalFileDone marked
   * done}, with a row id above {@code afterRowId}, in row id order, at most {@code limit} rows. Only
   * rows of storage group {@code storageGroup} and rows of no group (the files a node of that group
   * can read), or with {@code storageGroup} {@code null} only rows of no group. A store on a database
   * must answer it from an index holding only such rows: its cost grows with the files still to
   * delete, never with the confirmed rows whose files are handled. Read-only.
   *
   * <p>The default returns nothing: a store that does not implement it keeps no such record, and
   * the ledger then deletes a produced file only right after its own confirm (a kill in between
   * leaves the file on the disk).
   *
   * @param storageGroup this node's group; {@code null}: no group
   * @param limit at most this many rows, &gt; 0
   */
  default List<LedgerItem> findLocalFilesToRemove(String storageGroup, long afterRowId, int limit) {
    return List.of();
  }

  /**
   * One page of the {@link dev.segmentledger.core.Axis#ORIGINAL} rows whose recorded file local
   * retention may delete ({@link dev.segmentledger.core.LedgerBuilder#localRetention}):
   * {@link ItemState#CONFIRMED} at or before {@code confirmedBefore}, not yet {@linkplain
   * #markLocalFileDone marked done}, of storage group {@code storageGroup} exactly ({@code null}: of
   * no group; only the group that owns the disk deletes), after the cursor ({@code afterConfirmedAt},
   * {@code afterRowId}) in (confirmed time, row id) order, at most {@code limit} rows. Start with
   * {@link java.time.Instant#MIN} and 0. A store on a database must answer it from an index holding
   * only such rows, in that order. Read-only.
   *
   * <p>The default throws {@link UnsupportedOperationException}: a ledger configured with a local
   * retention refuses to start on a store that does not implement it.
   */
  default List<LedgerItem> findOriginalsToRemove(String storageGroup, Instant confirmedBefore,
      Instant afterConfirmedAt, long afterRowId, int limit) {
    throw new UnsupportedOperationException(getClass().getName() + " does not implement local retention"
        + " (findOriginalsToRemove)");
  }

  /**
   * Whether a row other than {@code exceptRowId} that is not {@link ItemState#CONFIRMED} has
   * {@code sourcePath} as its source path: local retention never deletes a file another row still
   * has to upload (nothing makes a source path unique). A store on a database must answer it from
   * an index holding only rows that are not confirmed. Read-only.
   *
   * <p>The default throws {@link UnsupportedOperationException}, as {@link #findOriginalsToRemove}: a
   * ledger configured with a local retention refuses to start on a store that does not implement it.
   */
  default boolean hasUnconfirmedRowWithSourcePath(String sourcePath, long exceptRowId) {
    throw new UnsupportedOperationException(getClass().getName() + " does not implement local retention"
        + " (hasUnconfirmedRowWithSourcePath)");
  }

  /**
   * Records that the ledger is done with the local file of row {@code rowId} (deleted, found gone,
   * or refused for good) at {@code at}, if the row is {@link ItemState#CONFIRMED} and not marked
   * yet: the row then leaves {@link #findLocalFilesToRemove}. Idempotent. A {@linkplain #reopen
   * re-open} clears the mark. The default records nothing and returns {@code false}.
   *
   * @return whether this call marked the row
   */
  default boolean markLocalFileDone(long rowId, Instant at) {
    return false;
  }

  // ---- Storage groups: hosts with local disks ----------------------------------------------

  /**
   * Hands the unconfirmed rows ({@link ItemState#PENDING}, {@link ItemState#WAITING}) of storage
   * group {@code fromGroup} over to {@code toGroup}, at most {@code limit} rows per call: for when
   * a host's disk was moved to, or is now mounted on, a host of another group. Nothing else of the
   * rows changes (state, lease, attempts, paths); terminal rows keep their group. Either group may
   * be {@code null} (no group: shared storage). Call it again until it returns 0.
   *
   * @return the number of rows handed over by this call
   */
  int handOver(String fromGroup, String toGroup, int limit);

  /**
   * Makes the unconfirmed rows of storage group {@code group} terminal: {@link ItemState#REJECTED}
   * with {@link Reason#STORAGE_LOST} and {@code detail}, lease cleared, at most {@code limit} rows
   * per call: for a host that is gone for good with its disk. A row under a lease still valid at
   * {@code at} is left alone (a node is working on it, so its disk is not lost): it is marked by a
   * call after its lease has run out, if it is still open then. A store that judges leases by its
   * own clock ({@link #currentTime()}) judges them here by that clock too, not by {@code at}, which
   * is then only the rows' terminal time. An expired lease is included (its
   * owner is gone; a late confirm of such a row fails its compare-and-set). The rows keep their
   * group and can be {@linkplain #reopen re-opened}. Call it again until it returns 0.
   *
   * @param group the lost group; not {@code null}
   * @return the number of rows marked by this call
   */
  int markStorageLost(String group, String detail, Instant at, int limit);

  // ---- Leases: many ledger instances on one store --------------------------------------------

  /**
   * Claims an unconfirmed row for one upload attempt by {@code owner} (compare and set): succeeds
   * only if the row is {@link ItemState#PENDING} and either due ({@code nextAttemptAt <= now}:
   * no lease, or an expired one, and not in backoff) or already leased to {@code owner}. On
   * success the row is leased to {@code owner} until {@code leaseUntil} <em>and its
   * {@code nextAttemptAt} is set to
   * {@code leaseUntil}</em>: while the lease is valid {@link #findDue} returns the row to no one,
   * and once it expires (the owner died or hung) the row is due again by itself, with no second
   * index and no extra condition in the sweep page.
   *
   * <p>A row that still carries an <em>expired</em> lease of an attempt (taken by a claim or a
   * {@linkplain #renew renewal}, whoever held it) is an attempt that ended without an outcome. A
   * lease taken at registration ({@link NewItem#leasedTo}) is not counted: it may have covered only
   * the row's wait in its registering node's queue. The claim records it, atomically with taking
   * the row, weighed by the evidence the attempt's {@linkplain #renewAll heartbeats} left: it always
   * increments {@code attempts} and sets the reason {@link Reason#ATTEMPT_ABANDONED} with a detail
   * naming the old owner; if the attempt made no durable progress (the greatest
   * {@link LeaseRenewal#storedBytes} recorded for the row did not grow during it) it also
   * increments the row's count of abandoned attempts; and if, in addition, its last renewal said
   * it ran {@linkplain LeaseRenewal#isolated isolated}, the row's count of blamed attempts; one that
   * made progress clears both counts (as does a renewal that reports more bytes stored). The
   * returned {@link Claim} says so ({@code tookOverAbandoned}, and both counts since the row was
   * registered or last {@linkplain #reopen re-opened}); the caller decides what follows (upload,
   * backoff, or a terminal reason past a limit). The new lease covers an attempt that is not
   * isolated and has made no progress yet. A valid lease of {@code owner} itself is not counted.
   *
   * <p>A lease only avoids duplicate work; correctness never depends on it. {@link #confirm} stays
   * a compare-and-set on state and size whoever holds the lease, and {@link #confirm},
   * {@link #recordFailure} and {@link #markTerminal} clear the lease. Of concurrent claims of one
   * free row by different owners exactly one holds the lease.
   *
   * @param now the claimant's current time; leases compare instants of different nodes, so node
   *     clocks must agree to well within the lease duration ({@link #claimFor} judges by the
   *     store's clock instead)
   * @return whether {@code owner} holds the lease now, and what it took over
   */
  Claim claim(long rowId, String owner, Instant leaseUntil, Instant now);

  /**
   * A {@link #claim} that also returns the row as the claim left it, so that an attempt on a row
   * found by a sweep page (which may be stale) needs no read of its own: during a recovery that is
   * a round trip per row. The default claims, then reads the row with {@link #findByRowId}; a store
   * on a database should read it in the claim's own statement.
   */
  default ClaimedRow claimRow(long rowId, String owner, Instant leaseUntil, Instant now) {
    Claim claim = claim(rowId, owner, leaseUntil, now);
    return claim.held() ? new ClaimedRow(claim, findByRowId(rowId).orElse(null)) : ClaimedRow.REFUSED;
  }

  /**
   * Extends a lease that {@code owner} took itself and still has: sets it, and the row's
   * {@code nextAttemptAt}, to {@code leaseUntil}, only if the row is {@link ItemState#PENDING} and
   * leased to {@code owner} until exactly {@code heldUntil} (the lease this caller took, whether or
   * not it has expired meanwhile, as long as no one took it over). Unlike {@link #claim}, it never
   * counts the lease as abandoned: the holder is alive and about to upload. From then on the lease
   * covers an attempt, as one taken by {@link #claim} does.
   *
   * @param heldUntil the end of the lease the caller holds, as it gave it (truncated to
   *     microseconds, as stores keep instants)
   * @return whether the lease was extended
   */
  boolean renew(long rowId, String owner, Instant heldUntil, Instant leaseUntil);

  /**
   * Many {@linkplain #renew lease extensions} by one {@code owner} at once, with one result per
   * entry: each row's lease is extended or not exactly as by {@link #renew} (PENDING, leased to
   * {@code owner} until exactly {@code heldUntil}), to its own {@code leaseUntil}, and an entry whose
   * condition fails changes nothing of that row and does not affect the others. An entry with
   * {@code attempt == false} extends the lease without making it cover an attempt: a later claim
   * that finds it expired does not count it as abandoned (as for a lease taken at registration); a
   * lease that already covers an attempt keeps doing so. A row id should appear once per batch.
   *
   * <p>An entry with {@code attempt == true} is also the heartbeat of that attempt: the store keeps
   * the greatest {@link LeaseRenewal#storedBytes} given for the row, and the entry's
   * {@link LeaseRenewal#isolated} flag for the lease, for the next {@link #claim} that may find the
   * lease expired. A lease that turns into the lease of an attempt here begins that attempt: its
   * progress is counted from the row's stored bytes at this moment.
   *
   * <p>A store on a database should run a batch as one statement: a ledger renews the leases of
   * all its attempts in flight, and the registration leases of a backlog in its queue, through this
   * method (by way of {@link #renewAllFor}, whose default calls it), once per heartbeat.
   *
   * @return for each renewal, in order, whether this call extended its row's lease
   */
  boolean[] renewAll(String owner, List<LeaseRenewal> renewals);

  // ---- Leases judged by the store's own clock ---------------------------------------------

  /**
   * The store's own clock now, if it judges leases by one ({@link #claimFor}, {@link #renewAllFor}):
   * a store on a database reads the database's. A ledger compares it with its own clock, reports the
   * difference ({@link dev.segmentledger.core.LedgerStats#clockSkew()}) and computes the instants it
   * gives the store (registration leases, backoffs, the sweep's {@code now}) on the store's time.
   * The default is empty: the store judges leases by the instants its callers give.
   */
  default Optional<Instant> currentTime() {
    return Optional.empty();
  }

  /**
   * A {@link #claimRow} for a lease of {@code lease}, judged by the store's clock if it has one
   * ({@link #currentTime}): whether the row is due (its lease expired, its backoff over) is decided
   * against the store's own current time, and the new lease ends {@code lease} after it, so that a
   * node whose clock runs ahead can never take over a live lease. The returned row carries the end
   * of the new lease as the store keeps it ({@link LedgerItem#nextAttemptAt()}), which the holder
   * names when it renews it. Otherwise exactly {@link #claimRow}. The default claims at the caller's
   * {@code now}, until {@code now + lease} (truncated to microseconds).
   *
   * @param now the caller's current time, used only by a store without a clock of its own
   */
  default ClaimedRow claimFor(long rowId, String owner, Duration lease, Instant now) {
    return claimRow(rowId, owner, now.plus(lease).truncatedTo(ChronoUnit.MICROS), now);
  }

  /**
   * {@link #renewAll}, each lease extended by the store's clock if it has one ({@link #currentTime}):
   * an entry's new lease ends {@code renewal.leaseUntil() - now} after the store's current time.
   * Which entries are renewed, and everything else they write, is exactly as by {@link #renewAll}.
   * The default renews to the entries' own {@code leaseUntil} (truncated to microseconds, as stores
   * keep instants).
   *
   * @param now the caller's current time, from which each entry's lease duration is taken
   * @return for each renewal, in order, the new end of its row's lease as the store keeps it, or
   *     {@code null} if this call did not extend it
   */
  default Instant[] renewAllFor(String owner, List<LeaseRenewal> renewals, Instant now) {
    boolean[] renewed = renewAll(owner, renewals);
    Instant[] ends = new Instant[renewed.length];
    for (int i = 0; i < ends.length; i++) {
      ends[i] = renewed[i] ? renewals.get(i).leaseUntil().truncatedTo(ChronoUnit.MICROS) : null;
    }
    return ends;
  }

  /**
   * Gives back a lease that {@code owner} holds on an unconfirmed row without having attempted
   * the upload (for example, the circuit breaker refused it): clears the lease and makes the row
   * due at {@code dueAt}. Changes nothing if {@code owner} does not hold the lease (it expired
   * and another owner claimed the row) or the row is no longer {@link ItemState#PENDING}.
   *
   * @return whether the lease was released
   */
  boolean release(long rowId, String owner, Instant dueAt);

  /**
   * Ends every lease {@code owner} holds that is still valid at {@code dueAt}, making those rows
   * due at {@code dueAt}. A ledger calls
   * it when it starts: a node that restarts under the same id cannot be uploading anything yet,
   * so the rows it held when it died need not wait for their leases to expire. The leases are
   * ended, not cleared ({@code leaseUntil = nextAttemptAt = dueAt}): the attempts they covered
   * ended without an outcome, and the next {@link #claim} of each row counts it as abandoned.
   *
   * @return the number of leases ended
   */
  int releaseAllOf(String owner, Instant dueAt);

  // ---- The uplink: caps stored by operators -----------------------------------------------------

  /**
   * Every bandwidth cap stored for a node or for every node ({@link StoredUplinkCap}), in node order.
   * A running ledger reads them about once a second. Read-only.
   *
   * <p>The default throws {@link UnsupportedOperationException}: a store written before caps were
   * stored keeps none, and its nodes' caps change only through their own API.
   *
   * @throws UnsupportedOperationException if the store keeps no caps (the default)
   * @throws StoreException if the store fails
   */
  default List<StoredUplinkCap> uplinkCaps() {
    throw new UnsupportedOperationException(getClass().getName() + " keeps no uplink caps");
  }

  /**
   * Stores {@code cap}, replacing the one stored for the same node if any. Durable when it returns.
   *
   * @throws UnsupportedOperationException if the store keeps no caps (the default)
   * @throws StoreException if the store fails
   */
  default void putUplinkCap(StoredUplinkCap cap) {
    throw new UnsupportedOperationException(getClass().getName() + " keeps no uplink caps");
  }

  /**
   * Removes the cap stored for {@code node} ({@link StoredUplinkCap#EVERY_NODE}: the one for every
   * node); the node then follows the cap for every node, or its own configured one.
   *
   * @return whether a cap was stored for it
   * @throws UnsupportedOperationException if the store keeps no caps (the default)
   * @throws StoreException if the store fails
   */
  default boolean removeUplinkCap(String node) {
    throw new UnsupportedOperationException(getClass().getName() + " keeps no uplink caps");
  }

  // ---- Playlists ----------------------------------------------------------------------------

  /**
   * The playlist publication state kept with the rows (see {@link PlaylistStore}, and
   * docs/design.md, "Playlists"). The same object on every call; thread-safe. The store keeps it
   * up to date whether or not a ledger publishes playlists.
   */
  PlaylistStore playlists();
}
