package dev.segmentledger.jdbi;

import dev.segmentledger.core.Axis;
import dev.segmentledger.core.ItemId;
import dev.segmentledger.core.ItemState;
import dev.segmentledger.core.Lane;
import dev.segmentledger.core.LedgerItem;
import dev.segmentledger.core.Reason;
import dev.segmentledger.core.StoreException;
import dev.segmentledger.core.query.Backlog;
import dev.segmentledger.core.query.Page;
import dev.segmentledger.core.query.RowCount;
import dev.segmentledger.core.query.RowQuery;
import dev.segmentledger.core.spi.BroadcastRecord;
import dev.segmentledger.core.spi.Claim;
import dev.segmentledger.core.spi.ClaimedRow;
import dev.segmentledger.core.spi.Confirmation;
import dev.segmentledger.core.spi.DuePage;
import dev.segmentledger.core.spi.LeaseRenewal;
import dev.segmentledger.core.spi.NewItem;
import dev.segmentledger.core.spi.PlaylistStore;
import dev.segmentledger.core.spi.Purged;
import dev.segmentledger.core.spi.RegisterResult;
import dev.segmentledger.core.spi.StateStore;
import dev.segmentledger.core.spi.StoredUplinkCap;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import org.jdbi.v3.core.Jdbi;
import org.jdbi.v3.core.JdbiException;

/**
 * The {@link StateStore} on PostgreSQL: the table {@code segment_ledger_item} of the connection's
 * current schema, created by {@link SchemaMigrations} (call {@link #migrate()} at startup, or run
 * the scripts with Flyway).
 *
 * <p>Every state change is one conditional {@code UPDATE} whose {@code WHERE} clause carries the
 * expected state (and, for a confirm, the expected size), so of racing updates exactly one
 * succeeds, across threads and processes. Registration is an {@code INSERT ... ON CONFLICT DO
 * NOTHING} on the natural identity, inside one transaction per batch. A lease is two columns,
 * {@code lease_owner} and {@code lease_until}, folded into {@code next_attempt_at} (see
 * {@link #claim}), so the sweep page needs no condition of its own for it. Broadcasts live in
 * {@code segment_ledger_broadcast}. Instants are stored as {@code timestamptz}, truncated to
 * microseconds. A batch joins the table to arrays on the rows' primary key {@code (id,
 * broadcast_id)}. The hot statements (registration, confirms, claims) run in one round trip each,
 * through plain JDBC on Jdbi's connection; registration and confirms first set, for their
 * transaction (a caller's, if the store runs inside one the caller holds on the same thread),
 * generic plans without sequential scans or hash joins ({@code Sql.KEYED_PLANS}); the other batch statements are
 * planned for the arrays they are given ({@code plan_cache_mode = force_custom_plan}). Either way a
 * plan cached while the table was empty never reads the whole grown table ({@code BatchPlanTest}).
 * A claim's transaction commits without waiting for its WAL flush: a lease guards nothing; every
 * other change is a durable commit. Needs PostgreSQL 12 or newer. Thread-safe; each call runs on a
 * handle of its own from the given {@link Jdbi}.
 *
 * <p>This class is a facade: each call goes to one package-private part, by concern (registration,
 * confirmations, other transitions, leases, queries, retention, playlists and their sealed parts), each
 * stateless over the same {@link Jdbi}.
 */
public final class JdbiStateStore implements StateStore {
  private final Jdbi jdbi;
  private final Registration registration;
  private final Confirmations confirmations;
  private final Transitions transitions;
  private final LocalFiles localFiles;
  private final Leases leases;
  private final Queries queries;
  private final Retention retention;
  private final Playlists playlists;
  private final UplinkCaps uplinkCaps;

  private JdbiStateStore(Jdbi jdbi, Duration readTimeout) {
    this.jdbi = Objects.requireNonNull(jdbi, "jdbi");
    this.registration = new Registration(jdbi);
    this.confirmations = new Confirmations(jdbi);
    this.transitions = new Transitions(jdbi);
    this.localFiles = new LocalFiles(jdbi);
    this.leases = new Leases(jdbi);
    BoundedReads reads = new BoundedReads(jdbi, readTimeout);
    this.queries = new Queries(jdbi, reads);
    this.retention = new Retention(jdbi);
    this.playlists = new Playlists(jdbi, reads);
    this.uplinkCaps = new UplinkCaps(jdbi);
  }

  /** A store on {@code jdbi}'s database. The Jdbi instance is used as given, never reconfigured. */
  public static JdbiStateStore create(Jdbi jdbi) {
    return new JdbiStateStore(jdbi, null);
  }

  /**
   * {@inheritDoc}
   *
   * <p>Each bounded read runs in a transaction of its own that starts with {@code SET LOCAL
   * statement_timeout}, so the bound ends with the read and a pooled connection goes back as it
   * came; the server cancels a read that outlasts it (SQLSTATE {@code 57014}), which becomes the
   * {@link dev.segmentledger.core.QueryTimeoutException}. One round trip more per read. Inside a
   * transaction the caller holds on the same thread (Jdbi hands over its handle), the read runs
   * under a savepoint rolled back after it instead: the caller's statement timeout is as it was,
   * and a cancelled read leaves the caller's transaction usable (three round trips more).
   */
  @Override
  public JdbiStateStore withReadTimeout(Duration timeout) {
    StateStore.super.withReadTimeout(timeout); // refuses a bound out of range, as for every store
    return new JdbiStateStore(jdbi, timeout);
  }

  /**
   * Applies the missing schema migrations; see {@link SchemaMigrations#migrate(Jdbi)}.
   *
   * @return this store
   */
  public JdbiStateStore migrate() {
    SchemaMigrations.migrate(jdbi);
    return this;
  }

  /**
   * {@inheritDoc}
   *
   * <p>One transaction: each broadcast row is created if missing and locked {@code FOR SHARE}, in
   * broadcast id order (so {@link #endBroadcast} waits for it, and it for {@link #endBroadcast});
   * the INIT rows that WAITING PLAYBACK items depend on are locked {@code FOR SHARE} before their
   * state is read (so a confirm of such an INIT, which locks the row for update, either precedes it
   * and is seen, or follows it and releases it). Up to {@value Registration#ROW_BY_ROW_MAX} rows (one
   * registration with its INIT and PLAYBACK rows) are then inserted with one {@code INSERT ... ON
   * CONFLICT DO NOTHING} each, which is the cheapest to plan; a larger batch with one multi-row
   * {@code INSERT ... SELECT FROM unnest(...)} (INIT rows locked in row id order) and one read of
   * the identities that existed, a few statements whatever its size, planned for their arrays.
   *
   * <p>Either way the rows are inserted in {@link ItemId#IDENTITY_ORDER}. An insert that meets an
   * identity another transaction has inserted, and not yet committed, waits for that transaction
   * on the unique index; a transaction holds the identities it inserted until it ends. Two batches
   * inserting overlapping identities in opposite orders therefore wait for each other, a deadlock
   * PostgreSQL breaks only after {@code deadlock_timeout}. In one order, the one that meets the
   * other's identity first waits for it to commit, and then finds the rows. Broadcast rows are
   * inserted in one order too, and the {@code FOR SHARE} locks of two registrations never conflict.
   * A transaction PostgreSQL still aborts as a deadlock victim (against other writers) is run again.
   *
   * <p>A failure says what it may have written ({@link StoreException#writeOutcome()}): nothing if no
   * connection was obtained, if the transaction failed before its commit was sent (an open
   * transaction is rolled back when its connection breaks), or if the server answered the commit
   * with an error; unknown if the connection broke or the session was ended (SQLSTATE classes
   * {@code 08} and {@code 57P}: a socket timeout, a shutdown or failover of the server) after the
   * commit was sent.
   *
   * @throws StoreException if the database fails the registration, including as a deadlock victim
   *     on every attempt; the {@link JdbiException} is its cause
   */
  @Override
  public List<RegisterResult> registerAll(List<NewItem> items) {
    return registration.registerAll(items);
  }

  @Override
  public DuePage findDue(Axis axis, String storageGroup, long afterRowId, Instant now, int limit) {
    return queries.findDue(axis, storageGroup, afterRowId, now, limit);
  }

  @Override
  public Optional<LedgerItem> findByRowId(long rowId) {
    return queries.findByRowId(rowId);
  }

  /**
   * {@inheritDoc}
   *
   * <p>One transaction that reads the row {@code FOR SHARE}: the row lock gives it a transaction
   * id, so its commit waits for synchronous replication ({@code synchronous_commit},
   * {@code synchronous_standby_names}) as every durable commit does, and the row is returned only
   * once the standby has everything the read saw. On a primary restarted after a crash and not yet
   * demoted (no standby attached), the read waits until the HA engine stops that server, and fails.
   */
  @Override
  public Optional<LedgerItem> findByRowIdDurably(long rowId) {
    return queries.findByRowIdDurably(rowId);
  }

  @Override
  public Optional<LedgerItem> find(ItemId id) {
    return queries.find(id);
  }

  @Override
  public List<LedgerItem> findByBroadcast(String broadcastId) {
    return queries.findByBroadcast(broadcastId);
  }

  /**
   * {@inheritDoc}
   *
   * <p>One ordered range read of the identity constraint's index {@code (broadcast_id, axis,
   * rendition, sequence)} from {@code fromSequence}, stopped at {@code limit} rows.
   */
  @Override
  public List<LedgerItem> findSegments(String broadcastId, String rendition, long fromSequence, int limit) {
    return queries.findSegments(broadcastId, rendition, fromSequence, limit);
  }

  /**
   * {@inheritDoc}
   *
   * <p>One {@code EXISTS} probe of the partial index of unconfirmed rows by broadcast
   * ({@code segment_ledger_item_unconfirmed_by_broadcast}, V5).
   */
  @Override
  public boolean hasOpenRows(String broadcastId) {
    return queries.hasOpenRows(broadcastId);
  }

  /**
   * {@inheritDoc}
   *
   * <p>One aggregate statement over the broadcast's range of the identity constraint's index
   * (leading column {@code broadcast_id}): no row leaves the server.
   */
  @Override
  public List<RowCount> countByBroadcast(String broadcastId) {
    return queries.countByBroadcast(broadcastId);
  }

  /**
   * {@inheritDoc}
   *
   * <p>One statement: a {@code UNION ALL} of one ordered, limited subquery per state, merged in row
   * id order. Each subquery names its state as a literal, so the planner proves the partial index
   * {@code segment_ledger_item_open} (unconfirmed, REJECTED and EXCLUDED rows, keyed by state and
   * id) usable whatever the other conditions: a page is a bounded range scan of that index per
   * state, starting at the cursor, however many confirmed rows the table holds. CONFIRMED rows are
   * read through the primary key, in row id order.
   */
  @Override
  public Page<LedgerItem> findRows(RowQuery query) {
    return queries.findRows(query);
  }

  /**
   * {@inheritDoc}
   *
   * <p>One aggregate statement over the partial index of rows not confirmed.
   */
  @Override
  public Backlog backlog(Instant now) {
    return queries.backlog(now);
  }

  /**
   * {@inheritDoc}
   *
   * <p>One transaction: the conditional update of the row and, for an INIT, the release of the
   * waiting PLAYBACK rows of its rendition.
   *
   * @throws StoreException if the database fails the confirm, with its outcome as for {@link #confirmAll}
   */
  @Override
  public boolean confirm(Confirmation confirmation) {
    try {
      return confirmations.confirm(confirmation);
    } catch (JdbiException e) {
      throw StoreFailures.of("confirming row " + confirmation.rowId(), e, true);
    }
  }

  /**
   * {@inheritDoc}
   *
   * <p>A single confirmation is a {@link #confirm}. A batch is one transaction of a few statements
   * whatever its size, planned for its arrays: a conditional {@code UPDATE ... FROM unnest(...)}
   * whose join carries each row's expected state and size, and, if it confirmed INIT rows, the
   * release of the waiting PLAYBACK rows of their renditions. A transaction PostgreSQL aborts as a
   * deadlock victim is run again.
   *
   * @throws StoreException if the database fails the confirms; its outcome is
   *     {@link StoreException.Outcome#NOT_WRITTEN} only if no connection was obtained or the server
   *     answered with an error, else unknown (the statement was sent)
   */
  @Override
  public boolean[] confirmAll(List<Confirmation> confirmations) {
    try {
      return this.confirmations.confirmAll(confirmations);
    } catch (JdbiException e) {
      throw StoreFailures.of("confirming " + confirmations.size() + " rows", e, true);
    }
  }

  @Override
  public boolean recordFailure(long rowId, ItemState expectedState, String leaseOwner, Reason reason, String detail,
      Instant nextAttemptAt) {
    return transitions.recordFailure(rowId, expectedState, leaseOwner, reason, detail, nextAttemptAt);
  }

  @Override
  public boolean markTerminal(long rowId, ItemState expectedState, String leaseOwner, ItemState terminalState,
      Reason reason, String detail, Instant at) {
    return transitions.markTerminal(rowId, expectedState, leaseOwner, terminalState, reason, detail, at);
  }

  @Override
  public int failuresWith(long rowId, Reason reason) {
    return transitions.failuresWith(rowId, reason);
  }

  @Override
  public boolean recordProduced(long rowId, ItemState expectedState, long expectedSize, String sourcePath,
      long sizeBytes, Duration mediaDuration) {
    return transitions.recordProduced(rowId, expectedState, expectedSize, sourcePath, sizeBytes, mediaDuration);
  }

  @Override
  public List<LedgerItem> findLocalFilesToRemove(String storageGroup, long afterRowId, int limit) {
    return localFiles.findToRemove(storageGroup, afterRowId, limit);
  }

  @Override
  public List<LedgerItem> findOriginalsToRemove(String storageGroup, Instant confirmedBefore,
      Instant afterConfirmedAt, long afterRowId, int limit) {
    return localFiles.findOriginals(storageGroup, confirmedBefore, afterConfirmedAt, afterRowId, limit);
  }

  @Override
  public boolean hasUnconfirmedRowWithSourcePath(String sourcePath, long exceptRowId) {
    return localFiles.hasUnconfirmedRowWithSourcePath(sourcePath, exceptRowId);
  }

  @Override
  public boolean markLocalFileDone(long rowId, Instant at) {
    return localFiles.markDone(rowId, at);
  }

  @Override
  public int handOver(String fromGroup, String toGroup, int limit) {
    return transitions.handOver(fromGroup, toGroup, limit);
  }

  @Override
  public int markStorageLost(String group, String detail, Instant at, int limit) {
    return transitions.markStorageLost(group, detail, at, limit);
  }

  @Override
  public int excludeRegisteredBefore(Instant threshold, Instant at, int limit) {
    return transitions.excludeRegisteredBefore(threshold, at, limit);
  }

  /**
   * {@inheritDoc}
   *
   * <p>Two joined updates in one transaction, through the partial index on waiting rows.
   */
  @Override
  public int settleWaiting(Instant at) {
    return confirmations.settleWaiting(at);
  }

  @Override
  public PlaylistStore playlists() {
    return playlists;
  }

  @Override
  public boolean endBroadcast(String broadcastId, Instant at) {
    return registration.endBroadcast(broadcastId, at);
  }

  /**
   * {@inheritDoc}
   *
   * <p>One statement: an upsert of the broadcast's row, or, to clear the hint, an update of it. It
   * waits for a registration of the broadcast in progress (which holds its row FOR SHARE).
   *
   * @throws StoreException if the database fails the statement
   */
  @Override
  public void prioritize(String broadcastId, Lane lane, Instant at) {
    try {
      registration.prioritize(broadcastId, lane, at);
    } catch (JdbiException e) {
      throw StoreFailures.of("storing the lane hint of broadcast " + broadcastId, e, true);
    }
  }

  /** {@inheritDoc} <p>One read of {@code segment_ledger_uplink_cap} (a row per capped node). */
  @Override
  public List<StoredUplinkCap> uplinkCaps() {
    return uplinkCaps.all();
  }

  /** {@inheritDoc} <p>One {@code INSERT ... ON CONFLICT (node) DO UPDATE}, in autocommit. */
  @Override
  public void putUplinkCap(StoredUplinkCap cap) {
    uplinkCaps.put(cap);
  }

  @Override
  public boolean removeUplinkCap(String node) {
    return uplinkCaps.remove(node);
  }

  @Override
  public Optional<BroadcastRecord> findBroadcast(String broadcastId) {
    return queries.findBroadcast(broadcastId);
  }

  @Override
  public long count(Axis axis, ItemState state) {
    return queries.count(axis, state);
  }

  /**
   * {@inheritDoc}
   *
   * <p>One conditional {@code UPDATE ... WHERE id = :id AND state = :expectedState}.
   */
  @Override
  public boolean reopen(long rowId, ItemState expectedState, Reason reason, String detail, Instant at) {
    return transitions.reopen(rowId, expectedState, reason, detail, at);
  }

  /**
   * {@inheritDoc}
   *
   * <p>One statement: the row is locked ({@code FOR UPDATE}), which serializes racing claims (the
   * loser re-evaluates the condition against the winner's row, which is no longer due), and the
   * conditional {@code UPDATE} reads the lease it replaces from that locked row.
   */
  @Override
  public Claim claim(long rowId, String owner, Instant leaseUntil, Instant now) {
    return leases.claim(rowId, owner, leaseUntil, now).claim();
  }

  /** One statement: the claim returns the row it leaves (see {@link #claim}). */
  @Override
  public ClaimedRow claimRow(long rowId, String owner, Instant leaseUntil, Instant now) {
    return leases.claim(rowId, owner, leaseUntil, now);
  }

  /** One statement, as {@link #claimRow}, against the database's clock ({@code statement_timestamp()}). */
  @Override
  public ClaimedRow claimFor(long rowId, String owner, Duration lease, Instant now) {
    return leases.claimFor(rowId, owner, lease);
  }

  /** The database's clock ({@code clock_timestamp()}): this store judges leases by it. */
  @Override
  public Optional<Instant> currentTime() {
    return Optional.of(leases.currentTime());
  }

  @Override
  public boolean renew(long rowId, String owner, Instant heldUntil, Instant leaseUntil) {
    return leases.renew(rowId, owner, heldUntil, leaseUntil);
  }

  @Override
  public boolean[] renewAll(String owner, List<LeaseRenewal> renewals) {
    return leases.renewAll(owner, renewals);
  }

  /**
   * {@inheritDoc}
   *
   * <p>As {@link #renewAll}, in the same statement, with each lease ending its duration after the
   * database's clock ({@code statement_timestamp()}); the statement returns the new ends.
   */
  @Override
  public Instant[] renewAllFor(String owner, List<LeaseRenewal> renewals, Instant now) {
    Objects.requireNonNull(now, "now");
    return leases.renewAll(owner, renewals, now);
  }

  @Override
  public boolean release(long rowId, String owner, Instant dueAt) {
    return leases.release(rowId, owner, dueAt);
  }

  /**
   * {@inheritDoc}
   *
   * <p>The leases keep their owner and end at {@code dueAt}, so the next claim counts them.
   */
  @Override
  public int releaseAllOf(String owner, Instant dueAt) {
    return leases.releaseAllOf(owner, dueAt);
  }

  /**
   * {@inheritDoc}
   *
   * <p>Batched deletes by broadcast, one transaction per call: the oldest complete broadcast is
   * locked ({@code FOR UPDATE SKIP LOCKED}, so purges on several nodes take different broadcasts),
   * and its terminal rows are deleted in identity order with the state checked again on each row.
   * The broadcast record is kept, stamped {@code purged_at}.
   */
  @Override
  public Purged purge(Instant completedBefore, int maxRows) {
    return retention.purge(completedBefore, maxRows);
  }
}
