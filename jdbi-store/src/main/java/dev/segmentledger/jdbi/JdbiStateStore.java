package dev.segmentledger.jdbi;

import static dev.segmentledger.jdbi.LedgerItemMapper.COLUMNS;

import dev.segmentledger.core.Axis;
import dev.segmentledger.core.BroadcastEndedException;
import dev.segmentledger.core.ItemId;
import dev.segmentledger.core.ItemState;
import dev.segmentledger.core.LedgerItem;
import dev.segmentledger.core.Reason;
import dev.segmentledger.core.RegistrationConflictException;
import dev.segmentledger.core.spi.Backlog;
import dev.segmentledger.core.spi.BroadcastRecord;
import dev.segmentledger.core.spi.Claim;
import dev.segmentledger.core.spi.Confirmation;
import dev.segmentledger.core.spi.NewItem;
import dev.segmentledger.core.spi.Page;
import dev.segmentledger.core.spi.RegisterResult;
import dev.segmentledger.core.spi.RowQuery;
import dev.segmentledger.core.spi.StateStore;
import dev.segmentledger.core.spi.StoreException;
import java.time.Duration;
import java.time.Instant;
import java.time.OffsetDateTime;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.EnumMap;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.Set;
import java.util.function.UnaryOperator;
import java.util.stream.IntStream;
import org.jdbi.v3.core.Handle;
import org.jdbi.v3.core.Jdbi;
import org.jdbi.v3.core.JdbiException;
import org.jdbi.v3.core.statement.SqlStatement;
import org.jdbi.v3.core.statement.Update;

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
 * microseconds. A batch joins the table to arrays and is planned for the arrays it is given
 * ({@code SET LOCAL plan_cache_mode = force_custom_plan}), so that a plan cached while the table was
 * empty never reads the whole grown table. Needs PostgreSQL 12 or newer. Thread-safe; each call
 * runs on a handle of its own from the given {@link Jdbi}.
 */
public final class JdbiStateStore implements StateStore {
  private static final String TABLE = "segment_ledger_item";
  private static final String BROADCASTS = "segment_ledger_broadcast";
  private static final String IDENTITY = "broadcast_id = :broadcastId AND axis = :axis AND rendition = :rendition"
      + " AND sequence = :sequence";

  /** The sweep page. {@code state} is a literal so that the planner uses the partial index. */
  static final String FIND_DUE = "SELECT " + COLUMNS + " FROM " + TABLE
      + " WHERE axis = :axis AND state = 'PENDING' AND id > :afterRowId AND next_attempt_at <= :now"
      + " ORDER BY id LIMIT :limit";

  /** Batches up to this size are inserted a row per statement (cheaper to plan than arrays). */
  static final int ROW_BY_ROW_MAX = 3;

  /** Ends the lease of a row; part of every update that moves a row on from an attempt. */
  private static final String NO_LEASE = "lease_owner = NULL, lease_until = NULL, lease_attempt = false";

  /** The last error of an attempt a claim found abandoned, after "the attempt of {owner}". */
  private static final String ABANDONED_DETAIL = " ended without an outcome: its process died or hung past its lease";

  /** The row carries no lease, or the caller's ({@code :leaseOwner}): a taken-over holder changes nothing. */
  private static final String HELD_BY_CALLER = " AND (lease_owner IS NULL OR lease_owner = :leaseOwner)";

  private final Jdbi jdbi;
  private final LedgerItemMapper mapper = new LedgerItemMapper();

  private JdbiStateStore(Jdbi jdbi) {
    this.jdbi = Objects.requireNonNull(jdbi, "jdbi");
  }

  /** A store on {@code jdbi}'s database. The Jdbi instance is used as given, never reconfigured. */
  public static JdbiStateStore create(Jdbi jdbi) {
    return new JdbiStateStore(jdbi);
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
   * and is seen, or follows it and releases it). Up to {@value #ROW_BY_ROW_MAX} rows (one
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
   * @throws StoreException if the database fails the registration, including as a deadlock victim
   *     on every attempt; the {@link JdbiException} is its cause
   */
  @Override
  public List<RegisterResult> registerAll(List<NewItem> items) {
    Objects.requireNonNull(items, "items");
    if (items.isEmpty()) {
      return List.of();
    }
    int[] order = inIdentityOrder(items);
    List<NewItem> sorted = Arrays.stream(order).mapToObj(items::get).toList();
    Instant broadcastsCreatedAt = items.get(0).registeredAt();
    List<RegisterResult> inserted;
    try {
      inserted = Deadlocks.retry(() -> jdbi.inTransaction(
          handle -> insertInOrder(handle, sorted, broadcastsCreatedAt)));
    } catch (JdbiException e) {
      throw new StoreException("registering " + items.size() + " rows failed in PostgreSQL"
          + (Deadlocks.isDeadlock(e) ? ", a deadlock victim " + Deadlocks.ATTEMPTS + " times" : "") + ": "
          + Deadlocks.describe(e), e);
    }
    RegisterResult[] results = new RegisterResult[order.length];
    for (int i = 0; i < order.length; i++) {
      results[order[i]] = inserted.get(i);
    }
    return List.of(results);
  }

  /**
   * The positions of {@code items} in {@link ItemId#IDENTITY_ORDER}. The sort is stable: the items
   * of one identity keep their order, so the first of them in the caller's list is inserted.
   */
  private static int[] inIdentityOrder(List<NewItem> items) {
    return IntStream.range(0, items.size()).boxed()
        .sorted(Comparator.comparing(i -> items.get(i).id(), ItemId.IDENTITY_ORDER))
        .mapToInt(Integer::intValue)
        .toArray();
  }

  /**
   * The transaction of {@link #registerAll}, for items already in identity order; results in the
   * same order.
   */
  private List<RegisterResult> insertInOrder(Handle handle, List<NewItem> items, Instant broadcastsCreatedAt) {
    // In a fixed order, so that batches of many broadcasts cannot lock them in opposite orders.
    for (String broadcastId : items.stream().map(item -> item.id().broadcastId()).distinct().sorted().toList()) {
      lockLiveBroadcast(handle, broadcastId, broadcastsCreatedAt);
    }
    if (items.size() <= ROW_BY_ROW_MAX) {
      List<RegisterResult> results = new ArrayList<>(items.size());
      for (NewItem item : items) {
        results.add(insertOne(handle, item));
      }
      return results;
    }
    planForTheseArrays(handle);
    Set<ItemId> confirmedInits = lockInitsOfWaiting(handle, items);
    Map<ItemId, LedgerItem> created = insertAll(handle, items, confirmedInits);
    Map<ItemId, LedgerItem> existing = created.size() == items.size() ? Map.of()
        : findAll(handle, items.stream().map(NewItem::id).filter(id -> !created.containsKey(id)).toList());
    List<RegisterResult> results = new ArrayList<>(items.size());
    Set<ItemId> reported = new HashSet<>();
    for (NewItem item : items) {
      LedgerItem row = created.get(item.id());
      if (row != null && reported.add(item.id())) {
        results.add(new RegisterResult(row, true));
        continue;
      }
      results.add(alreadyRegistered(item, Optional.ofNullable(row != null ? row : existing.get(item.id()))));
    }
    return results;
  }

  private static void lockLiveBroadcast(Handle handle, String broadcastId, Instant at) {
    handle.createUpdate("INSERT INTO " + BROADCASTS + " (broadcast_id, created_at) VALUES (:id, :at)"
            + " ON CONFLICT (broadcast_id) DO NOTHING")
        .bind("id", broadcastId)
        .bind("at", micros(at))
        .execute();
    boolean ended = handle.createQuery("SELECT ended_at IS NOT NULL FROM " + BROADCASTS
            + " WHERE broadcast_id = :id FOR SHARE")
        .bind("id", broadcastId)
        .mapTo(Boolean.class)
        .one();
    if (ended) {
      throw new BroadcastEndedException(broadcastId);
    }
  }

  /** Inserts one row, or returns the existing row of its identity. */
  private RegisterResult insertOne(Handle handle, NewItem item) {
    ItemState state = item.state();
    if (waitsForInit(item) && initConfirmed(handle, initOf(item.id()))) {
      state = ItemState.PENDING;
    }
    Optional<LedgerItem> created = handle.createQuery("INSERT INTO " + TABLE
            + " (broadcast_id, axis, rendition, sequence, source_path, origin_path, size_bytes, state, reason,"
            + " last_error, registered_at, next_attempt_at, lease_owner, lease_until, file_identity)"
            + " VALUES (:broadcastId, :axis, :rendition, :sequence, :sourcePath, :originPath, :sizeBytes, :state,"
            + " :reason, :detail, :registeredAt, :nextAttemptAt, :leaseOwner, :leaseUntil, :fileIdentity)"
            + " ON CONFLICT (broadcast_id, axis, rendition, sequence) DO NOTHING RETURNING " + COLUMNS)
        .bindMap(identity(item.id()))
        .bind("sourcePath", item.sourcePath())
        .bind("originPath", item.originPath())
        .bind("sizeBytes", item.sizeBytes())
        .bind("state", state.name())
        .bind("reason", nameOf(item.reason()))
        .bind("detail", item.detail())
        .bind("registeredAt", micros(item.registeredAt()))
        .bind("nextAttemptAt", micros(item.nextAttemptAt()))
        .bind("leaseOwner", item.leaseOwner())
        .bind("leaseUntil", item.leased() ? micros(item.leaseUntil()) : null)
        .bind("fileIdentity", item.fileIdentity())
        .map(mapper)
        .findOne();
    if (created.isPresent()) {
      return new RegisterResult(created.get(), true);
    }
    return alreadyRegistered(item, handle.createQuery("SELECT " + COLUMNS + " FROM " + TABLE + " WHERE " + IDENTITY)
        .bindMap(identity(item.id()))
        .map(mapper)
        .findOne());
  }

  /**
   * The result for an item whose insert conflicted: the existing row of its identity, unless the
   * item names another size ({@link RegistrationConflictException}).
   */
  private static RegisterResult alreadyRegistered(NewItem item, Optional<LedgerItem> existing) {
    LedgerItem row = existing.orElseThrow(() -> new IllegalStateException("insert of " + item.id()
        + " conflicted, but no row with that identity exists"));
    if (item.sizeBytes() != LedgerItem.UNKNOWN_SIZE && row.sizeBytes() != item.sizeBytes()) {
      throw new RegistrationConflictException(row, item.sizeBytes());
    }
    return new RegisterResult(row, false);
  }

  private static boolean initConfirmed(Handle handle, ItemId init) {
    return handle.createQuery("SELECT state FROM " + TABLE + " WHERE " + IDENTITY + " FOR SHARE")
        .bindMap(identity(init))
        .mapTo(String.class)
        .findOne()
        .map(ItemState.CONFIRMED.name()::equals)
        .orElse(false);
  }

  /** Whether the row is a PLAYBACK row to be inserted WAITING for its rendition's INIT. */
  private static boolean waitsForInit(NewItem item) {
    return item.state() == ItemState.WAITING && item.id().axis() == Axis.PLAYBACK;
  }

  /** The INIT of the rendition of {@code id}. */
  private static ItemId initOf(ItemId id) {
    return ItemId.init(id.broadcastId(), id.rendition());
  }

  /** Locks the INIT rows the WAITING PLAYBACK items of the batch depend on; returns the confirmed ones. */
  private static Set<ItemId> lockInitsOfWaiting(Handle handle, List<NewItem> items) {
    List<ItemId> inits = items.stream()
        .filter(JdbiStateStore::waitsForInit)
        .map(item -> initOf(item.id()))
        .distinct()
        .toList();
    if (inits.isEmpty()) {
      return Set.of();
    }
    return new HashSet<>(handle.createQuery("SELECT broadcast_id, rendition, state FROM " + TABLE
            + " WHERE axis = 'INIT' AND sequence = 0 AND (broadcast_id, rendition) IN"
            + " (SELECT * FROM unnest(:broadcastIds::varchar[], :renditions::varchar[])) ORDER BY id FOR SHARE")
        .bindArray("broadcastIds", String.class, inits.stream().map(ItemId::broadcastId).toList())
        .bindArray("renditions", String.class, inits.stream().map(ItemId::rendition).toList())
        .map((rs, ctx) -> ItemState.CONFIRMED.name().equals(rs.getString("state"))
            ? ItemId.init(rs.getString("broadcast_id"), rs.getString("rendition")) : null)
        .filter(Objects::nonNull)
        .list());
  }

  /** One multi-row insert in the order of {@code items}; returns the rows it created by identity. */
  private Map<ItemId, LedgerItem> insertAll(Handle handle, List<NewItem> items, Set<ItemId> confirmedInits) {
    int n = items.size();
    List<String> broadcastIds = new ArrayList<>(n);
    List<String> axes = new ArrayList<>(n);
    List<String> renditions = new ArrayList<>(n);
    List<Long> sequences = new ArrayList<>(n);
    List<String> sourcePaths = new ArrayList<>(n);
    List<String> originPaths = new ArrayList<>(n);
    List<Long> sizes = new ArrayList<>(n);
    List<String> states = new ArrayList<>(n);
    List<String> reasons = new ArrayList<>(n);
    List<String> details = new ArrayList<>(n);
    List<Long> registeredAts = new ArrayList<>(n);
    List<Long> nextAttemptAts = new ArrayList<>(n);
    List<String> leaseOwners = new ArrayList<>(n);
    List<Long> leaseUntils = new ArrayList<>(n);
    List<String> fileIdentities = new ArrayList<>(n);
    for (NewItem item : items) {
      ItemId id = item.id();
      ItemState state = item.state();
      if (waitsForInit(item) && confirmedInits.contains(initOf(id))) {
        state = ItemState.PENDING;
      }
      broadcastIds.add(id.broadcastId());
      axes.add(id.axis().name());
      renditions.add(id.rendition());
      sequences.add(id.sequence());
      sourcePaths.add(item.sourcePath());
      originPaths.add(item.originPath());
      sizes.add(item.sizeBytes());
      states.add(state.name());
      reasons.add(nameOf(item.reason()));
      details.add(item.detail());
      registeredAts.add(epochMicros(item.registeredAt()));
      nextAttemptAts.add(epochMicros(item.nextAttemptAt()));
      leaseOwners.add(item.leaseOwner());
      leaseUntils.add(item.leased() ? epochMicros(item.leaseUntil()) : null);
      fileIdentities.add(item.fileIdentity());
    }
    Map<ItemId, CreatedRow> created = new HashMap<>();
    handle.createQuery("INSERT INTO " + TABLE
            + " (broadcast_id, axis, rendition, sequence, source_path, origin_path, size_bytes, state, reason,"
            + " last_error, registered_at, next_attempt_at, lease_owner, lease_until, file_identity)"
            + " SELECT v.broadcast_id, v.axis, v.rendition, v.sequence, v.source_path, v.origin_path, v.size_bytes,"
            + " v.state, v.reason, v.detail, " + fromMicros("v.registered_us") + ", " + fromMicros("v.next_attempt_us")
            + ", v.lease_owner, " + fromMicros("v.lease_us") + ", v.file_identity"
            + " FROM unnest(:broadcastIds::varchar[], :axes::varchar[], :renditions::varchar[], :sequences::bigint[],"
            + " :sourcePaths::text[], :originPaths::text[], :sizes::bigint[], :states::varchar[], :reasons::varchar[],"
            + " :details::text[], :registeredAts::bigint[], :nextAttemptAts::bigint[], :leaseOwners::varchar[],"
            + " :leaseUntils::bigint[], :fileIdentities::text[])"
            + " WITH ORDINALITY AS v(broadcast_id, axis, rendition, sequence, source_path, origin_path, size_bytes,"
            + " state, reason, detail, registered_us, next_attempt_us, lease_owner, lease_us, file_identity, ord)"
            + " ORDER BY v.ord"
            + " ON CONFLICT (broadcast_id, axis, rendition, sequence) DO NOTHING"
            + " RETURNING id, broadcast_id, axis, rendition, sequence, state")
        .bindArray("broadcastIds", String.class, broadcastIds)
        .bindArray("axes", String.class, axes)
        .bindArray("renditions", String.class, renditions)
        .bindArray("sequences", Long.class, sequences)
        .bindArray("sourcePaths", String.class, sourcePaths)
        .bindArray("originPaths", String.class, originPaths)
        .bindArray("sizes", Long.class, sizes)
        .bindArray("states", String.class, states)
        .bindArray("reasons", String.class, reasons)
        .bindArray("details", String.class, details)
        .bindArray("registeredAts", Long.class, registeredAts)
        .bindArray("nextAttemptAts", Long.class, nextAttemptAts)
        .bindArray("leaseOwners", String.class, leaseOwners)
        .bindArray("leaseUntils", Long.class, leaseUntils)
        .bindArray("fileIdentities", String.class, fileIdentities)
        .map((rs, ctx) -> new CreatedRow(rs.getLong("id"), LedgerItemMapper.itemId(rs),
            ItemState.valueOf(rs.getString("state"))))
        .forEach(row -> created.put(row.id(), row));
    // The rows as stored, built from what was sent: only the generated id and the state come back.
    Map<ItemId, LedgerItem> rows = new HashMap<>();
    for (NewItem item : items) {
      CreatedRow row = created.get(item.id());
      if (row != null && !rows.containsKey(item.id())) {
        rows.put(item.id(), new LedgerItem(row.rowId(), item.id(), item.sourcePath(), item.originPath(),
            item.sizeBytes(), row.state(), 0, item.reason(), item.detail(), micros(item.registeredAt()),
            micros(item.nextAttemptAt()), null, null, null, item.fileIdentity()));
      }
    }
    return rows;
  }

  private record CreatedRow(long rowId, ItemId id, ItemState state) {}

  /** The rows of the given identities, by identity. */
  private Map<ItemId, LedgerItem> findAll(Handle handle, List<ItemId> ids) {
    Map<ItemId, LedgerItem> found = new HashMap<>();
    handle.createQuery("SELECT " + COLUMNS + " FROM " + TABLE
            + " WHERE (broadcast_id, axis, rendition, sequence) IN (SELECT * FROM unnest(:broadcastIds::varchar[],"
            + " :axes::varchar[], :renditions::varchar[], :sequences::bigint[]))")
        .bindArray("broadcastIds", String.class, ids.stream().map(ItemId::broadcastId).toList())
        .bindArray("axes", String.class, ids.stream().map(id -> id.axis().name()).toList())
        .bindArray("renditions", String.class, ids.stream().map(ItemId::rendition).toList())
        .bindArray("sequences", Long.class, ids.stream().map(ItemId::sequence).toList())
        .map(mapper)
        .forEach(row -> found.put(row.id(), row));
    return found;
  }

  @Override
  public List<LedgerItem> findDue(Axis axis, long afterRowId, Instant now, int limit) {
    Objects.requireNonNull(axis, "axis");
    Objects.requireNonNull(now, "now");
    if (limit <= 0) {
      throw new IllegalArgumentException("limit must be > 0, got " + limit);
    }
    return jdbi.withHandle(handle -> handle.createQuery(FIND_DUE)
        .bind("axis", axis.name())
        .bind("afterRowId", afterRowId)
        .bind("now", micros(now))
        .bind("limit", limit)
        .map(mapper)
        .list());
  }

  @Override
  public Optional<LedgerItem> findByRowId(long rowId) {
    return jdbi.withHandle(handle -> handle.createQuery("SELECT " + COLUMNS + " FROM " + TABLE + " WHERE id = :id")
        .bind("id", rowId)
        .map(mapper)
        .findOne());
  }

  @Override
  public Optional<LedgerItem> find(ItemId id) {
    Objects.requireNonNull(id, "id");
    return jdbi.withHandle(handle -> handle.createQuery("SELECT " + COLUMNS + " FROM " + TABLE + " WHERE " + IDENTITY)
        .bindMap(identity(id))
        .map(mapper)
        .findOne());
  }

  @Override
  public List<LedgerItem> findByBroadcast(String broadcastId) {
    Objects.requireNonNull(broadcastId, "broadcastId");
    return jdbi.withHandle(handle -> handle.createQuery("SELECT " + COLUMNS + " FROM " + TABLE
            + " WHERE broadcast_id = :broadcastId ORDER BY id")
        .bind("broadcastId", broadcastId)
        .map(mapper)
        .list());
  }

  /**
   * {@inheritDoc}
   *
   * <p>One transaction: the conditional update of the row and, for an INIT, the release of the
   * waiting PLAYBACK rows of its rendition.
   */
  @Override
  public boolean confirm(long rowId, ItemState expectedState, long expectedSize, String checksum,
      Instant confirmedAt) {
    Confirmation c = new Confirmation(rowId, expectedState, expectedSize, checksum, confirmedAt); // validates
    return jdbi.inTransaction(handle -> {
      Optional<ItemId> confirmed = handle.createQuery("UPDATE " + TABLE
              + " SET state = 'CONFIRMED', checksum = :checksum, confirmed_at = :confirmedAt, " + NO_LEASE
              + " WHERE id = :id AND state = :expectedState AND size_bytes = :expectedSize"
              + " RETURNING broadcast_id, axis, rendition, sequence")
          .bind("checksum", c.checksum())
          .bind("confirmedAt", micros(c.confirmedAt()))
          .bind("id", c.rowId())
          .bind("expectedState", c.expectedState().name())
          .bind("expectedSize", c.expectedSize())
          .map((rs, ctx) -> LedgerItemMapper.itemId(rs))
          .findOne();
      confirmed.filter(id -> id.axis() == Axis.INIT).ifPresent(init -> releaseWaiting(handle, Set.of(init)));
      return confirmed.isPresent();
    });
  }

  /**
   * {@inheritDoc}
   *
   * <p>A single confirmation is a {@link #confirm}. A batch is one transaction of a few statements
   * whatever its size, planned for its arrays: a conditional {@code UPDATE ... FROM unnest(...)}
   * whose join carries each row's expected state and size, and, if it confirmed INIT rows, the
   * release of the waiting PLAYBACK rows of their renditions. A transaction PostgreSQL aborts as a
   * deadlock victim is run again.
   */
  @Override
  public boolean[] confirmAll(List<Confirmation> confirmations) {
    Objects.requireNonNull(confirmations, "confirmations");
    if (confirmations.isEmpty()) {
      return new boolean[0];
    }
    if (confirmations.size() == 1) {
      Confirmation c = confirmations.get(0);
      return new boolean[] {confirm(c.rowId(), c.expectedState(), c.expectedSize(), c.checksum(), c.confirmedAt())};
    }
    Set<Long> confirmed = Deadlocks.retry(() -> jdbi.inTransaction(handle -> {
      planForTheseArrays(handle);
      Set<Long> ids = new HashSet<>();
      Set<ItemId> inits = new HashSet<>();
      handle.createQuery("UPDATE " + TABLE + " t SET state = 'CONFIRMED', checksum = v.checksum,"
              + " confirmed_at = " + fromMicros("v.confirmed_us") + ", " + NO_LEASE
              + " FROM unnest(:ids::bigint[], :states::varchar[], :sizes::bigint[], :checksums::text[],"
              + " :confirmedAts::bigint[]) AS v(id, expected_state, expected_size, checksum, confirmed_us)"
              + " WHERE t.id = v.id AND t.state = v.expected_state AND t.size_bytes = v.expected_size"
              + " RETURNING t.id, t.broadcast_id, t.axis, t.rendition")
          .bindArray("ids", Long.class, confirmations.stream().map(Confirmation::rowId).toList())
          .bindArray("states", String.class, confirmations.stream().map(c -> c.expectedState().name()).toList())
          .bindArray("sizes", Long.class, confirmations.stream().map(Confirmation::expectedSize).toList())
          .bindArray("checksums", String.class, confirmations.stream().map(Confirmation::checksum).toList())
          .bindArray("confirmedAts", Long.class,
              confirmations.stream().map(c -> epochMicros(c.confirmedAt())).toList())
          .map((rs, ctx) -> {
            if (Axis.INIT.name().equals(rs.getString("axis"))) {
              inits.add(ItemId.init(rs.getString("broadcast_id"), rs.getString("rendition")));
            }
            return rs.getLong("id");
          })
          .forEach(ids::add);
      if (!inits.isEmpty()) {
        releaseWaiting(handle, inits);
      }
      return ids;
    }));
    boolean[] results = new boolean[confirmations.size()];
    for (int i = 0; i < results.length; i++) {
      results[i] = confirmed.remove(confirmations.get(i).rowId());
    }
    return results;
  }

  /**
   * Has PostgreSQL plan the rest of this transaction's statements for the arrays they are given.
   * The batch statements join the table to arrays of ids. Prepared and planned once for a generic
   * array while the table was small (a fresh ledger, before autovacuum's first ANALYZE), such a
   * statement keeps a hash join over a sequential scan of the whole table for every later batch of
   * that connection, 3 ms per batch at 30,000 rows and growing with the table. A plan made for the
   * actual arrays, and the table's current size, looks each row up through its index instead.
   * Needs PostgreSQL 12 or newer. The setting lasts until the transaction ends: the batch's own, or
   * the caller's if the store runs inside a transaction the caller holds on the same thread and
   * {@link Jdbi}, which Jdbi then reuses.
   */
  private static void planForTheseArrays(Handle handle) {
    handle.execute("SET LOCAL plan_cache_mode = force_custom_plan");
  }

  /** Turns the WAITING PLAYBACK rows of the renditions of the given confirmed INITs PENDING. */
  private static void releaseWaiting(Handle handle, Set<ItemId> inits) {
    planForTheseArrays(handle); // also reached from a single confirm, which plans nothing else for arrays
    handle.createUpdate("UPDATE " + TABLE + " SET state = 'PENDING' WHERE state = 'WAITING' AND axis = 'PLAYBACK'"
            + " AND (broadcast_id, rendition) IN (SELECT * FROM unnest(:broadcastIds::varchar[],"
            + " :renditions::varchar[]))")
        .bindArray("broadcastIds", String.class, inits.stream().map(ItemId::broadcastId).toList())
        .bindArray("renditions", String.class, inits.stream().map(ItemId::rendition).toList())
        .execute();
  }

  @Override
  public boolean recordFailure(long rowId, ItemState expectedState, String leaseOwner, Reason reason, String detail,
      Instant nextAttemptAt) {
    requireUnconfirmed(expectedState);
    Objects.requireNonNull(leaseOwner, "leaseOwner");
    Objects.requireNonNull(reason, "reason");
    Objects.requireNonNull(nextAttemptAt, "nextAttemptAt");
    return compareAndSet(rowId, expectedState,
        "attempts = attempts + 1, reason = :reason, last_error = :detail, next_attempt_at = :nextAttemptAt, "
            + NO_LEASE, HELD_BY_CALLER,
        update -> update
            .bind("leaseOwner", leaseOwner)
            .bind("reason", reason.name())
            .bind("detail", detail)
            .bind("nextAttemptAt", micros(nextAttemptAt)));
  }

  @Override
  public boolean markTerminal(long rowId, ItemState expectedState, String leaseOwner, ItemState terminalState,
      Reason reason, String detail, Instant at) {
    requireUnconfirmed(expectedState);
    Objects.requireNonNull(leaseOwner, "leaseOwner");
    if (terminalState != ItemState.REJECTED && terminalState != ItemState.EXCLUDED) {
      throw new IllegalArgumentException("terminalState must be REJECTED or EXCLUDED, got " + terminalState);
    }
    Objects.requireNonNull(reason, "reason");
    Objects.requireNonNull(at, "at");
    return compareAndSet(rowId, expectedState,
        "state = :terminalState, reason = :reason, last_error = :detail, terminal_at = :at, " + NO_LEASE,
        HELD_BY_CALLER,
        update -> update
            .bind("leaseOwner", leaseOwner)
            .bind("terminalState", terminalState.name())
            .bind("reason", reason.name())
            .bind("detail", detail)
            .bind("at", micros(at)));
  }

  /**
   * {@inheritDoc}
   *
   * <p>One conditional {@code UPDATE ... WHERE id = :id AND state = :expectedState}.
   */
  @Override
  public boolean reopen(long rowId, ItemState expectedState, Reason reason, String detail, Instant at) {
    Objects.requireNonNull(expectedState, "expectedState");
    if (!expectedState.isTerminal()) {
      throw new IllegalArgumentException("expectedState must be terminal (CONFIRMED, REJECTED or EXCLUDED), got "
          + expectedState);
    }
    Objects.requireNonNull(reason, "reason");
    Objects.requireNonNull(at, "at");
    return compareAndSet(rowId, expectedState,
        "state = 'PENDING', reason = :reason, last_error = :detail, next_attempt_at = :at,"
            + " confirmed_at = NULL, checksum = NULL, abandoned_attempts = 0,"
            + " file_identity = CASE WHEN reason = 'FILE_CHANGED' THEN NULL ELSE file_identity END", "",
        update -> update
            .bind("reason", reason.name())
            .bind("detail", detail)
            .bind("at", micros(at)));
  }

  @Override
  public boolean recordProduced(long rowId, ItemState expectedState, long expectedSize, String sourcePath,
      long sizeBytes, Duration mediaDuration) {
    requireUnconfirmed(expectedState);
    Objects.requireNonNull(sourcePath, "sourcePath");
    return compareAndSet(rowId, expectedState,
        "source_path = :sourcePath, size_bytes = :sizeBytes, media_duration_micros = :durationMicros",
        " AND size_bytes = :expectedSize",
        update -> update
            .bind("sourcePath", sourcePath)
            .bind("sizeBytes", sizeBytes)
            .bind("durationMicros", mediaDuration == null ? null : mediaDuration.toNanos() / 1_000)
            .bind("expectedSize", expectedSize));
  }

  @Override
  public int excludeRegisteredBefore(Instant threshold, Instant at, int limit) {
    Objects.requireNonNull(threshold, "threshold");
    Objects.requireNonNull(at, "at");
    if (limit <= 0) {
      throw new IllegalArgumentException("limit must be > 0, got " + limit);
    }
    return jdbi.withHandle(handle -> handle.createUpdate("UPDATE " + TABLE
            + " SET state = 'EXCLUDED', reason = 'PAST_CUTOFF', terminal_at = :at, " + NO_LEASE + ","
            + " last_error = 'registered at ' || registered_at || ', before the cutoff ' || :thresholdText"
            + " WHERE id IN (SELECT i.id FROM " + TABLE + " i"
            + " WHERE (i.state = 'PENDING' OR (i.state = 'WAITING' AND i.axis = 'PLAYBACK'))"
            + " AND i.registered_at < :threshold"
            + " AND (i.axis <> 'INIT' OR NOT EXISTS (SELECT 1 FROM " + TABLE + " p"
            + " WHERE p.axis = 'PLAYBACK' AND p.broadcast_id = i.broadcast_id AND p.rendition = i.rendition"
            + " AND p.state IN ('PENDING', 'WAITING') AND p.registered_at >= :threshold))"
            + " AND (i.lease_owner IS NULL OR i.lease_until <= :at)"
            + " LIMIT :limit FOR UPDATE SKIP LOCKED)"
            + " AND state IN ('PENDING', 'WAITING')")
        .bind("at", micros(at))
        .bind("threshold", micros(threshold))
        .bind("thresholdText", micros(threshold).toString())
        .bind("limit", limit)
        .execute());
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
    Objects.requireNonNull(owner, "owner");
    Objects.requireNonNull(leaseUntil, "leaseUntil");
    Objects.requireNonNull(now, "now");
    return jdbi.withHandle(handle -> handle.createQuery("WITH old AS (SELECT id, lease_owner,"
            + " (lease_owner IS NOT NULL AND lease_until <= :now AND lease_attempt) AS abandoned FROM " + TABLE
            + " WHERE id = :id AND state = 'PENDING' AND (next_attempt_at <= :now OR lease_owner = :owner) FOR UPDATE)"
            + " UPDATE " + TABLE + " t SET lease_owner = :owner, lease_until = :until, next_attempt_at = :until,"
            + " lease_attempt = true, attempts = t.attempts + CASE WHEN old.abandoned THEN 1 ELSE 0 END,"
            + " abandoned_attempts = t.abandoned_attempts + CASE WHEN old.abandoned THEN 1 ELSE 0 END,"
            + " reason = CASE WHEN old.abandoned THEN '" + Reason.ATTEMPT_ABANDONED.name() + "' ELSE t.reason END,"
            + " last_error = CASE WHEN old.abandoned THEN 'the attempt of ' || old.lease_owner || '" + ABANDONED_DETAIL
            + "' ELSE t.last_error END"
            + " FROM old WHERE t.id = old.id"
            + " RETURNING old.abandoned, t.abandoned_attempts")
        .bind("owner", owner)
        .bind("until", micros(leaseUntil))
        .bind("now", micros(now))
        .bind("id", rowId)
        .map((rs, ctx) -> Claim.held(rs.getBoolean("abandoned"), rs.getInt("abandoned_attempts")))
        .findOne()
        .orElse(Claim.REFUSED));
  }

  @Override
  public boolean renew(long rowId, String owner, Instant heldUntil, Instant leaseUntil) {
    Objects.requireNonNull(owner, "owner");
    Objects.requireNonNull(heldUntil, "heldUntil");
    Objects.requireNonNull(leaseUntil, "leaseUntil");
    return updatedOne(jdbi.withHandle(handle -> handle.createUpdate("UPDATE " + TABLE
            + " SET lease_until = :until, next_attempt_at = :until, lease_attempt = true"
            + " WHERE id = :id AND state = 'PENDING' AND lease_owner = :owner AND lease_until = :heldUntil")
        .bind("owner", owner)
        .bind("heldUntil", micros(heldUntil))
        .bind("until", micros(leaseUntil))
        .bind("id", rowId)
        .execute()));
  }

  @Override
  public boolean release(long rowId, String owner, Instant dueAt) {
    Objects.requireNonNull(owner, "owner");
    Objects.requireNonNull(dueAt, "dueAt");
    return updatedOne(jdbi.withHandle(handle -> handle.createUpdate("UPDATE " + TABLE
            + " SET " + NO_LEASE + ", next_attempt_at = :dueAt"
            + " WHERE id = :id AND state = 'PENDING' AND lease_owner = :owner")
        .bind("owner", owner)
        .bind("dueAt", micros(dueAt))
        .bind("id", rowId)
        .execute()));
  }

  /**
   * {@inheritDoc}
   *
   * <p>The leases keep their owner and end at {@code dueAt}, so the next claim counts them.
   */
  @Override
  public int releaseAllOf(String owner, Instant dueAt) {
    Objects.requireNonNull(owner, "owner");
    Objects.requireNonNull(dueAt, "dueAt");
    return jdbi.withHandle(handle -> handle.createUpdate("UPDATE " + TABLE
            + " SET lease_until = :dueAt, next_attempt_at = :dueAt"
            + " WHERE lease_owner = :owner AND state = 'PENDING' AND lease_until > :dueAt")
        .bind("owner", owner)
        .bind("dueAt", micros(dueAt))
        .execute());
  }

  /**
   * {@inheritDoc}
   *
   * <p>Two joined updates in one transaction, through the partial index on waiting rows.
   */
  @Override
  public int settleWaiting(Instant at) {
    Objects.requireNonNull(at, "at");
    String join = " FROM " + TABLE + " i WHERE p.state = 'WAITING' AND p.axis = 'PLAYBACK'"
        + " AND i.axis = 'INIT' AND i.broadcast_id = p.broadcast_id AND i.rendition = p.rendition AND i.sequence = 0";
    return jdbi.inTransaction(handle -> handle.createUpdate("UPDATE " + TABLE + " p SET state = 'PENDING'"
            + join + " AND i.state = 'CONFIRMED'").execute()
        + handle.createUpdate("UPDATE " + TABLE + " p SET state = 'REJECTED', reason = 'INIT_FAILED',"
            + " last_error = 'the rendition''s init is ' || i.state, terminal_at = :at"
            + join + " AND i.state IN ('REJECTED', 'EXCLUDED')")
        .bind("at", micros(at))
        .execute());
  }

  @Override
  public boolean endBroadcast(String broadcastId, Instant at) {
    Objects.requireNonNull(broadcastId, "broadcastId");
    Objects.requireNonNull(at, "at");
    return jdbi.withHandle(handle -> handle.createQuery("INSERT INTO " + BROADCASTS
            + " (broadcast_id, created_at, ended_at) VALUES (:id, :at, :at)"
            + " ON CONFLICT (broadcast_id) DO UPDATE SET ended_at = EXCLUDED.ended_at"
            + " WHERE " + BROADCASTS + ".ended_at IS NULL RETURNING broadcast_id")
        .bind("id", broadcastId)
        .bind("at", micros(at))
        .mapTo(String.class)
        .findOne()
        .isPresent());
  }

  /**
   * {@inheritDoc}
   *
   * <p>One statement: a {@code UNION ALL} of one ordered, limited subquery per state, merged in row
   * id order ({@link #rowQuerySql}). Each subquery names its state as a literal, so the planner
   * proves the partial index {@code segment_ledger_item_open} (unconfirmed, REJECTED and EXCLUDED
   * rows, keyed by state and id) usable whatever the other conditions: a page is a bounded range
   * scan of that index per state, starting at the cursor, however many confirmed rows the table
   * holds. CONFIRMED rows are read through the primary key, in row id order.
   */
  @Override
  public Page<LedgerItem> findRows(RowQuery query) {
    Objects.requireNonNull(query, "query");
    List<LedgerItem> rows = jdbi.withHandle(handle -> bindRowQuery(handle.createQuery(rowQuerySql(query)), query)
        .map(mapper)
        .list());
    if (rows.size() <= query.limit()) {
      return new Page<>(rows, OptionalLong.empty());
    }
    List<LedgerItem> page = rows.subList(0, query.limit());
    return new Page<>(page, OptionalLong.of(page.get(page.size() - 1).rowId()));
  }

  /**
   * The SQL of {@link #findRows}: one more row than the limit, to tell whether a next page exists.
   * States, reasons and the axis are enum names written as literals (never user text); the other
   * values are bound by {@link #bindRowQuery}.
   */
  static String rowQuerySql(RowQuery query) {
    boolean newestFirst = query.order() == RowQuery.Order.NEWEST_FIRST;
    String direction = newestFirst ? " DESC" : "";
    StringBuilder conditions = new StringBuilder();
    if (!query.reasons().isEmpty()) {
      conditions.append(" AND reason IN (").append(literals(query.reasons().stream().map(Enum::name).sorted()
          .toList())).append(")");
    }
    query.axis().ifPresent(axis -> conditions.append(" AND axis = '").append(axis.name()).append("'"));
    query.broadcastId().ifPresent(b -> conditions.append(" AND broadcast_id = :broadcastId"));
    if (query.minAttempts() > 0) {
      conditions.append(" AND attempts >= :minAttempts");
    }
    query.registeredBefore().ifPresent(t -> conditions.append(" AND registered_at < :registeredBefore"));
    query.after().ifPresent(c -> conditions.append(newestFirst ? " AND id < :after" : " AND id > :after"));
    List<String> parts = query.states().stream().sorted()
        .map(state -> "(SELECT " + COLUMNS + " FROM " + TABLE + " WHERE state = '" + state.name() + "'"
            + conditions + " ORDER BY id" + direction + " LIMIT :limit)")
        .toList();
    return "SELECT " + COLUMNS + " FROM (" + String.join(" UNION ALL ", parts) + ") AS page"
        + " ORDER BY id" + direction + " LIMIT :limit";
  }

  /** Binds the values of {@code query} that {@link #rowQuerySql} names. */
  static <S extends SqlStatement<S>> S bindRowQuery(S statement, RowQuery query) {
    statement.bind("limit", query.limit() + 1);
    query.broadcastId().ifPresent(b -> statement.bind("broadcastId", b));
    if (query.minAttempts() > 0) {
      statement.bind("minAttempts", query.minAttempts());
    }
    query.registeredBefore().ifPresent(t -> statement.bind("registeredBefore", micros(t)));
    query.after().ifPresent(c -> statement.bind("after", c));
    return statement;
  }

  private static String literals(List<String> names) {
    return String.join(", ", names.stream().map(name -> "'" + name + "'").toList());
  }

  /**
   * The backlog query: one aggregate over the unconfirmed rows, grouped by axis. It reads only
   * the partial index {@code segment_ledger_item_open}, whose key starts with the state and which
   * includes every column the aggregate needs (an index-only scan where the visibility map allows).
   */
  static final String BACKLOG = "SELECT axis, count(*) AS unconfirmed, min(registered_at) AS oldest,"
      + " count(*) FILTER (WHERE state = 'PENDING' AND next_attempt_at <= :now) AS due,"
      + " count(*) FILTER (WHERE state = 'PENDING' AND next_attempt_at > :now AND lease_until > :now) AS leased,"
      + " count(*) FILTER (WHERE state = 'PENDING' AND next_attempt_at > :now"
      + " AND (lease_until IS NULL OR lease_until <= :now)) AS backoff,"
      + " count(*) FILTER (WHERE state = 'WAITING') AS waiting"
      + " FROM " + TABLE + " WHERE state IN ('PENDING', 'WAITING') GROUP BY axis";

  /**
   * {@inheritDoc}
   *
   * <p>One aggregate statement over the partial index of rows not confirmed ({@link #BACKLOG}).
   */
  @Override
  public Backlog backlog(Instant now) {
    Objects.requireNonNull(now, "now");
    Instant at = micros(now);
    Map<Axis, Backlog.AxisBacklog> axes = new EnumMap<>(Axis.class);
    jdbi.useHandle(handle -> handle.createQuery(BACKLOG)
        .bind("now", at)
        .map((rs, ctx) -> Map.entry(Axis.valueOf(rs.getString("axis")), new Backlog.AxisBacklog(
            rs.getLong("unconfirmed"), rs.getObject("oldest", OffsetDateTime.class).toInstant(), rs.getLong("due"),
            rs.getLong("leased"), rs.getLong("backoff"), rs.getLong("waiting"))))
        .forEach(entry -> axes.put(entry.getKey(), entry.getValue())));
    return new Backlog(at, axes);
  }

  @Override
  public Optional<BroadcastRecord> findBroadcast(String broadcastId) {
    Objects.requireNonNull(broadcastId, "broadcastId");
    return jdbi.withHandle(handle -> handle.createQuery("SELECT broadcast_id, created_at, ended_at FROM "
            + BROADCASTS + " WHERE broadcast_id = :id")
        .bind("id", broadcastId)
        .map((rs, ctx) -> new BroadcastRecord(rs.getString("broadcast_id"),
            rs.getObject("created_at", OffsetDateTime.class).toInstant(),
            Optional.ofNullable(rs.getObject("ended_at", OffsetDateTime.class)).map(OffsetDateTime::toInstant)
                .orElse(null)))
        .findOne());
  }

  @Override
  public long count(Axis axis, ItemState state) {
    Objects.requireNonNull(axis, "axis");
    Objects.requireNonNull(state, "state");
    return jdbi.withHandle(handle -> handle.createQuery("SELECT count(*) FROM " + TABLE
            + " WHERE axis = :axis AND state = :state")
        .bind("axis", axis.name())
        .bind("state", state.name())
        .mapTo(Long.class)
        .one());
  }

  private static Map<String, Object> identity(ItemId id) {
    return Map.of("broadcastId", id.broadcastId(), "axis", id.axis().name(),
        "rendition", id.rendition(), "sequence", id.sequence());
  }

  private static void requireUnconfirmed(ItemState expectedState) {
    Objects.requireNonNull(expectedState, "expectedState");
    if (expectedState.isTerminal()) {
      throw new IllegalArgumentException("expectedState must be an unconfirmed state (PENDING or WAITING), got "
          + expectedState);
    }
  }

  /**
   * One compare-and-set on a row: {@code UPDATE ... SET assignments WHERE id = :id AND
   * state = :expectedState condition}; {@code binds} binds the other named values. Returns whether
   * it changed the row.
   */
  private boolean compareAndSet(long rowId, ItemState expectedState, String assignments, String condition,
      UnaryOperator<Update> binds) {
    return updatedOne(jdbi.withHandle(handle -> binds.apply(handle.createUpdate("UPDATE " + TABLE
            + " SET " + assignments + " WHERE id = :id AND state = :expectedState" + condition))
        .bind("id", rowId)
        .bind("expectedState", expectedState.name())
        .execute()));
  }

  private static boolean updatedOne(int updated) {
    return updated == 1;
  }

  private static String nameOf(Reason reason) {
    return reason == null ? null : reason.name();
  }

  private static Instant micros(Instant instant) {
    return instant.truncatedTo(ChronoUnit.MICROS);
  }

  /** Microseconds since the epoch, truncated as {@link #micros} truncates: arrays of instants bind as bigint[]. */
  private static long epochMicros(Instant instant) {
    return ChronoUnit.MICROS.between(Instant.EPOCH, micros(instant));
  }

  /** The SQL {@code timestamptz} of a bigint column of {@link #epochMicros}; {@code NULL} stays {@code NULL}. */
  private static String fromMicros(String column) {
    return "(timestamptz 'epoch' + " + column + " * interval '1 microsecond')";
  }
}
