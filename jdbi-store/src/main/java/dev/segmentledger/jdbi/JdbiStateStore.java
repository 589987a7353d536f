package dev.segmentledger.jdbi;

import static dev.segmentledger.jdbi.LedgerItemMapper.COLUMNS;

import dev.segmentledger.core.Axis;
import dev.segmentledger.core.BroadcastEndedException;
import dev.segmentledger.core.ItemId;
import dev.segmentledger.core.ItemState;
import dev.segmentledger.core.LedgerItem;
import dev.segmentledger.core.Reason;
import dev.segmentledger.core.RegistrationConflictException;
import dev.segmentledger.core.spi.BroadcastRecord;
import dev.segmentledger.core.spi.NewItem;
import dev.segmentledger.core.spi.RegisterResult;
import dev.segmentledger.core.spi.StateStore;
import java.time.Duration;
import java.time.Instant;
import java.time.OffsetDateTime;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.function.UnaryOperator;
import org.jdbi.v3.core.Handle;
import org.jdbi.v3.core.Jdbi;
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
 * microseconds. Thread-safe; each call runs on a handle of its own from the given {@link Jdbi}.
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

  /** Ends the lease of a row; part of every update that moves a row on from an attempt. */
  private static final String NO_LEASE = "lease_owner = NULL, lease_until = NULL";

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
   * <p>One transaction: each broadcast row is created if missing and locked {@code FOR SHARE}
   * (so {@link #endBroadcast} waits for it, and it for {@link #endBroadcast}); a PLAYBACK item's
   * INIT row is locked {@code FOR SHARE} before its state is read (so a confirm of that INIT, which
   * locks the row for update, either precedes it and is seen, or follows it and releases it).
   */
  @Override
  public List<RegisterResult> registerAll(List<NewItem> items) {
    Objects.requireNonNull(items, "items");
    return jdbi.inTransaction(handle -> {
      for (String broadcastId : items.stream().map(item -> item.id().broadcastId()).distinct().toList()) {
        lockLiveBroadcast(handle, broadcastId, items.get(0).registeredAt());
      }
      List<RegisterResult> results = new ArrayList<>(items.size());
      for (NewItem item : items) {
        results.add(insert(handle, item));
      }
      return results;
    });
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

  private RegisterResult insert(Handle handle, NewItem item) {
    ItemState state = item.state();
    if (state == ItemState.WAITING && item.id().axis() == Axis.PLAYBACK && initConfirmed(handle, item.id())) {
      state = ItemState.PENDING;
    }
    Instant registeredAt = micros(item.registeredAt());
    Optional<LedgerItem> created = handle.createQuery("INSERT INTO " + TABLE
            + " (broadcast_id, axis, rendition, sequence, source_path, origin_path, size_bytes, state, reason,"
            + " last_error, registered_at, next_attempt_at)"
            + " VALUES (:broadcastId, :axis, :rendition, :sequence, :sourcePath, :originPath, :sizeBytes, :state,"
            + " :reason, :detail, :registeredAt, :registeredAt)"
            + " ON CONFLICT (broadcast_id, axis, rendition, sequence) DO NOTHING RETURNING " + COLUMNS)
        .bindMap(identity(item.id()))
        .bind("sourcePath", item.sourcePath())
        .bind("originPath", item.originPath())
        .bind("sizeBytes", item.sizeBytes())
        .bind("state", state.name())
        .bind("reason", nameOf(item.reason()))
        .bind("detail", item.detail())
        .bind("registeredAt", registeredAt)
        .map(mapper)
        .findOne();
    if (created.isPresent()) {
      return new RegisterResult(created.get(), true);
    }
    LedgerItem existing = handle.createQuery("SELECT " + COLUMNS + " FROM " + TABLE + " WHERE " + IDENTITY)
        .bindMap(identity(item.id()))
        .map(mapper)
        .findOne()
        .orElseThrow(() -> new IllegalStateException("insert of " + item.id()
            + " conflicted, but no row with that identity exists"));
    if (item.sizeBytes() != LedgerItem.UNKNOWN_SIZE && existing.sizeBytes() != item.sizeBytes()) {
      throw new RegistrationConflictException(existing, item.sizeBytes());
    }
    return new RegisterResult(existing, false);
  }

  private static boolean initConfirmed(Handle handle, ItemId playback) {
    return handle.createQuery("SELECT state FROM " + TABLE + " WHERE " + IDENTITY + " FOR SHARE")
        .bindMap(identity(ItemId.init(playback.broadcastId(), playback.rendition())))
        .mapTo(String.class)
        .findOne()
        .map(ItemState.CONFIRMED.name()::equals)
        .orElse(false);
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
    requireUnconfirmed(expectedState);
    Objects.requireNonNull(confirmedAt, "confirmedAt");
    return jdbi.inTransaction(handle -> {
      Optional<ItemId> confirmed = handle.createQuery("UPDATE " + TABLE
              + " SET state = 'CONFIRMED', checksum = :checksum, confirmed_at = :confirmedAt, " + NO_LEASE
              + " WHERE id = :id AND state = :expectedState AND size_bytes = :expectedSize"
              + " RETURNING broadcast_id, axis, rendition, sequence")
          .bind("checksum", checksum)
          .bind("confirmedAt", micros(confirmedAt))
          .bind("id", rowId)
          .bind("expectedState", expectedState.name())
          .bind("expectedSize", expectedSize)
          .map((rs, ctx) -> new ItemId(rs.getString("broadcast_id"), Axis.valueOf(rs.getString("axis")),
              rs.getString("rendition"), rs.getLong("sequence")))
          .findOne();
      confirmed.filter(id -> id.axis() == Axis.INIT).ifPresent(init -> handle.createUpdate("UPDATE " + TABLE
              + " SET state = 'PENDING' WHERE state = 'WAITING' AND axis = 'PLAYBACK'"
              + " AND broadcast_id = :broadcastId AND rendition = :rendition")
          .bind("broadcastId", init.broadcastId())
          .bind("rendition", init.rendition())
          .execute());
      return confirmed.isPresent();
    });
  }

  @Override
  public boolean recordFailure(long rowId, ItemState expectedState, Reason reason, String detail,
      Instant nextAttemptAt) {
    requireUnconfirmed(expectedState);
    Objects.requireNonNull(reason, "reason");
    Objects.requireNonNull(nextAttemptAt, "nextAttemptAt");
    return compareAndSet(rowId, expectedState,
        "attempts = attempts + 1, reason = :reason, last_error = :detail, next_attempt_at = :nextAttemptAt, "
            + NO_LEASE, "",
        update -> update
            .bind("reason", reason.name())
            .bind("detail", detail)
            .bind("nextAttemptAt", micros(nextAttemptAt)));
  }

  @Override
  public boolean markTerminal(long rowId, ItemState expectedState, ItemState terminalState, Reason reason,
      String detail, Instant at) {
    requireUnconfirmed(expectedState);
    if (terminalState != ItemState.REJECTED && terminalState != ItemState.EXCLUDED) {
      throw new IllegalArgumentException("terminalState must be REJECTED or EXCLUDED, got " + terminalState);
    }
    Objects.requireNonNull(reason, "reason");
    Objects.requireNonNull(at, "at");
    return compareAndSet(rowId, expectedState,
        "state = :terminalState, reason = :reason, last_error = :detail, terminal_at = :at, " + NO_LEASE, "",
        update -> update
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
            + " confirmed_at = NULL, checksum = NULL", "",
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
   * <p>One conditional {@code UPDATE}: the row lock it takes serializes racing claims, and the
   * loser re-evaluates the condition against the winner's row, which is no longer due.
   */
  @Override
  public boolean claim(long rowId, String owner, Instant leaseUntil, Instant now) {
    Objects.requireNonNull(owner, "owner");
    Objects.requireNonNull(leaseUntil, "leaseUntil");
    Objects.requireNonNull(now, "now");
    return updatedOne(jdbi.withHandle(handle -> handle.createUpdate("UPDATE " + TABLE
            + " SET lease_owner = :owner, lease_until = :until, next_attempt_at = :until"
            + " WHERE id = :id AND state = 'PENDING' AND (next_attempt_at <= :now OR lease_owner = :owner)")
        .bind("owner", owner)
        .bind("until", micros(leaseUntil))
        .bind("now", micros(now))
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

  @Override
  public int releaseAllOf(String owner, Instant dueAt) {
    Objects.requireNonNull(owner, "owner");
    Objects.requireNonNull(dueAt, "dueAt");
    return jdbi.withHandle(handle -> handle.createUpdate("UPDATE " + TABLE
            + " SET " + NO_LEASE + ", next_attempt_at = :dueAt"
            + " WHERE lease_owner = :owner AND state = 'PENDING'")
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
}
