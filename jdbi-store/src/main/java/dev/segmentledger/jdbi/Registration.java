package dev.segmentledger.jdbi;

import static dev.segmentledger.jdbi.Sql.BROADCASTS;
import static dev.segmentledger.jdbi.Sql.COLUMNS;
import static dev.segmentledger.jdbi.Sql.IDENTITY;
import static dev.segmentledger.jdbi.Sql.INSERT_COLUMNS;
import static dev.segmentledger.jdbi.Sql.TABLE;
import static dev.segmentledger.jdbi.Sql.identity;
import static dev.segmentledger.jdbi.Sql.micros;
import static dev.segmentledger.jdbi.Sql.nameOf;

import dev.segmentledger.core.Axis;
import dev.segmentledger.core.BroadcastEndedException;
import dev.segmentledger.core.ItemId;
import dev.segmentledger.core.ItemState;
import dev.segmentledger.core.Lane;
import dev.segmentledger.core.LedgerItem;
import dev.segmentledger.core.RegistrationConflictException;
import dev.segmentledger.core.StoreException;
import dev.segmentledger.core.spi.NewItem;
import dev.segmentledger.core.spi.RegisterResult;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;
import java.util.stream.IntStream;
import org.jdbi.v3.core.Handle;
import org.jdbi.v3.core.Jdbi;
import org.jdbi.v3.core.JdbiException;

/**
 * The registration part of {@link JdbiStateStore}: {@code registerAll} and the broadcasts' life
 * ({@code endBroadcast}). A batch of more than {@value #ROW_BY_ROW_MAX} rows is inserted by
 * {@link BatchRegistration}. Stateless over its {@link Jdbi} (each call runs on a handle of its
 * own); thread-safe.
 */
final class Registration {
  /** Batches up to this size are inserted a row per statement (cheaper to plan than arrays). */
  static final int ROW_BY_ROW_MAX = 3;

  private static final String INSERT_ONE = "INSERT INTO " + TABLE + " (" + INSERT_COLUMNS + ")"
      + " VALUES (:broadcastId, :axis, :rendition, :sequence, :sourcePath, :originPath, :sizeBytes, :state,"
      + " :reason, :detail, :registeredAt, :nextAttemptAt, :leaseOwner, :leaseUntil, :fileIdentity,"
      + " :mediaFormat, :recordedAt, :storageGroup, :traceContext, :lane)"
      + " ON CONFLICT (broadcast_id, axis, rendition, sequence) DO NOTHING RETURNING " + COLUMNS;

  /**
   * Creates a broadcast's row unless it exists, and reads and locks it FOR SHARE: {@code created}
   * if this statement inserted it, else {@code ended} (NULL if the row is not visible to this
   * statement, see {@link #lockLiveBroadcast}). With a non-NULL {@code :planMode}, also sets
   * {@code plan_cache_mode} for the rest of the transaction.
   */
  private static final String LOCK_BROADCAST = Sql.load("lock-broadcast.sql");

  private final Jdbi jdbi;
  private final LedgerItemMapper mapper = new LedgerItemMapper();
  private final BatchRegistration batch = new BatchRegistration();
  private final LiveRegistration live;

  Registration(Jdbi jdbi) {
    this.jdbi = Objects.requireNonNull(jdbi, "jdbi");
    this.live = new LiveRegistration();
  }

  /**
   * {@link JdbiStateStore#registerAll}: the items in {@link ItemId#IDENTITY_ORDER}, inserted in one
   * transaction (run again as a deadlock victim), the results in the caller's order.
   *
   * @throws StoreException if the database fails the registration, including as a deadlock victim
   *     on every attempt; the {@link JdbiException} is its cause, and its outcome is decided by
   *     {@link StoreFailures} (whether the commit was sent, then the SQLSTATE)
   */
  List<RegisterResult> registerAll(List<NewItem> items) {
    Objects.requireNonNull(items, "items");
    if (items.isEmpty()) {
      return List.of();
    }
    int[] order = inIdentityOrder(items);
    List<NewItem> sorted = Arrays.stream(order).mapToObj(items::get).toList();
    Instant broadcastsCreatedAt = items.get(0).registeredAt();
    List<RegisterResult> inserted;
    StoreFailures.Commit commit = new StoreFailures.Commit();
    try {
      inserted = Deadlocks.retry(() -> jdbi.inTransaction(handle -> {
        commit.starting();
        return commit.sending(insertLive(handle, sorted, broadcastsCreatedAt)
            .orElseGet(() -> insertInOrder(handle, sorted, broadcastsCreatedAt)));
      }));
    } catch (JdbiException e) {
      throw StoreFailures.of("registering " + items.size() + " rows"
          + (Deadlocks.isDeadlock(e) ? " (a deadlock victim " + Deadlocks.ATTEMPTS + " times)" : ""), e, commit.sent());
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
    boolean arrays = items.size() > ROW_BY_ROW_MAX;
    // In a fixed order, so that batches of many broadcasts cannot lock them in opposite orders. The
    // first lock also sets the plan mode of a batch (Sql.planForTheseArrays), in the same round trip.
    boolean first = true;
    for (String broadcastId : items.stream().map(item -> item.id().broadcastId()).distinct().sorted().toList()) {
      lockLiveBroadcast(handle, broadcastId, broadcastsCreatedAt, first && arrays);
      first = false;
    }
    if (!arrays) {
      List<RegisterResult> results = new ArrayList<>(items.size());
      for (NewItem item : items) {
        results.add(insertOne(handle, item));
      }
      return results;
    }
    Set<ItemId> confirmedInits = batch.lockInitsOfWaiting(handle, items);
    Map<ItemId, LedgerItem> created = batch.insertAll(handle, items, confirmedInits);
    return results(handle, items, created);
  }

  /**
   * The usual registration in one statement ({@link LiveRegistration}), for a batch none of whose
   * rows waits for an INIT and whose broadcasts that statement can read; empty otherwise, having
   * inserted no row (then {@link #insertInOrder} registers it in the same transaction). The rows of
   * identities that existed are read afterwards in the same transaction, which a conflict among
   * them rolls back, as in {@link #insertInOrder}.
   */
  private Optional<List<RegisterResult>> insertLive(Handle handle, List<NewItem> items, Instant broadcastsCreatedAt) {
    if (items.stream().anyMatch(Registration::waitsForInit)) {
      return Optional.empty();
    }
    List<String> broadcasts = items.stream().map(item -> item.id().broadcastId()).distinct().sorted().toList();
    return live.insertAll(handle, items, broadcasts, broadcastsCreatedAt)
        .map(created -> results(handle, items, created));
  }

  /**
   * The result of each of {@code items} (in identity order): created, or the existing row of its
   * identity, read on {@code handle}.
   */
  private List<RegisterResult> results(Handle handle, List<NewItem> items, Map<ItemId, LedgerItem> created) {
    // Keyed by position: a row found there may have been registered with another format.
    Map<ItemId, LedgerItem> existing = created.size() == items.size() ? Map.of()
        : batch.findAll(handle, items.stream().map(NewItem::id).map(LedgerItemMapper::position)
            .filter(id -> !created.containsKey(id)).toList());
    List<RegisterResult> results = new ArrayList<>(items.size());
    Set<ItemId> reported = new HashSet<>();
    for (NewItem item : items) {
      ItemId position = LedgerItemMapper.position(item.id());
      LedgerItem row = created.get(position);
      if (row != null && reported.add(position)) {
        results.add(new RegisterResult(row, true));
        continue;
      }
      results.add(alreadyRegistered(item, Optional.ofNullable(row != null ? row : existing.get(position))));
    }
    return results;
  }

  /**
   * Creates the broadcast's row unless it exists and locks it against {@code endBroadcast} (FOR
   * SHARE) until the transaction ends; throws if it has ended. One round trip in the usual case
   * ({@link #LOCK_BROADCAST}): the insert and the locking read in one statement, with, if
   * {@code planForArrays}, the plan mode of {@link Sql#planForTheseArrays} set in the same
   * statement ({@code set_config(..., true)} is {@code SET LOCAL}). The read of that statement
   * cannot see a row that a concurrent transaction committed after the statement began (the insert
   * waited for it and skipped it); then, and only then, a second statement reads and locks it in a
   * fresh snapshot, as the read alone always did. A row this statement created is this
   * transaction's own and not ended.
   */
  private static void lockLiveBroadcast(Handle handle, String broadcastId, Instant at, boolean planForArrays) {
    LockedBroadcast locked = handle.createQuery(LOCK_BROADCAST)
        .bind("id", broadcastId)
        .bind("at", micros(at))
        .bind("planMode", planForArrays ? Sql.FORCE_CUSTOM_PLAN : null)
        .map((rs, ctx) -> new LockedBroadcast(rs.getBoolean("created"), (Boolean) rs.getObject("ended")))
        .one();
    boolean ended;
    if (locked.created()) {
      ended = false;
    } else if (locked.ended() != null) {
      ended = locked.ended();
    } else { // committed by another transaction while this statement ran: read it again, locking it
      ended = handle.createQuery("SELECT ended_at IS NOT NULL FROM " + BROADCASTS
              + " WHERE broadcast_id = :id FOR SHARE")
          .bind("id", broadcastId)
          .mapTo(Boolean.class)
          .one();
    }
    if (ended) {
      throw new BroadcastEndedException(broadcastId);
    }
  }

  private record LockedBroadcast(boolean created, Boolean ended) {}

  /** Inserts one row, or returns the existing row of its identity. */
  private RegisterResult insertOne(Handle handle, NewItem item) {
    ItemState state = item.state();
    if (waitsForInit(item) && initConfirmed(handle, initOf(item.id()))) {
      state = ItemState.PENDING;
    }
    Optional<LedgerItem> created = handle.createQuery(INSERT_ONE)
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
        .bind("mediaFormat", LedgerItemMapper.formatColumn(item.id()))
        .bind("recordedAt", item.recordedAt() == null ? null : micros(item.recordedAt()))
        .bind("storageGroup", item.storageGroup())
        .bind("traceContext", item.traceContext())
        .bind("lane", nameOf(item.lane()))
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
   * The result for an item whose insert conflicted: the existing row at its position, unless the
   * item names another format or another size ({@link RegistrationConflictException}).
   */
  private static RegisterResult alreadyRegistered(NewItem item, Optional<LedgerItem> existing) {
    LedgerItem row = existing.orElseThrow(() -> new IllegalStateException("insert of " + item.id()
        + " conflicted, but no row with that identity exists"));
    if (!row.id().equals(item.id())) { // the same position in another format
      throw new RegistrationConflictException(row, item.id());
    }
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
  static boolean waitsForInit(NewItem item) {
    return item.state() == ItemState.WAITING && item.id().axis() == Axis.PLAYBACK;
  }

  /** The INIT of the rendition of {@code id}. */
  static ItemId initOf(ItemId id) {
    return ItemId.init(id.broadcastId(), id.rendition());
  }

  /**
   * {@link JdbiStateStore#prioritize}: one upsert of the broadcast's {@code lane} (creating its
   * record, live, if unknown), or with {@code null} one update that clears it (creating nothing).
   */
  void prioritize(String broadcastId, Lane lane, Instant at) {
    Objects.requireNonNull(broadcastId, "broadcastId");
    Objects.requireNonNull(at, "at");
    jdbi.useHandle(handle -> {
      if (lane == null) {
        handle.createUpdate("UPDATE " + BROADCASTS + " SET lane = NULL WHERE broadcast_id = :id")
            .bind("id", broadcastId)
            .execute();
      } else {
        handle.createUpdate("INSERT INTO " + BROADCASTS + " (broadcast_id, created_at, lane) VALUES (:id, :at, :lane)"
                + " ON CONFLICT (broadcast_id) DO UPDATE SET lane = EXCLUDED.lane")
            .bind("id", broadcastId)
            .bind("at", micros(at))
            .bind("lane", lane.name())
            .execute();
      }
    });
  }

  /**
   * {@link JdbiStateStore#endBroadcast}: one upsert that sets {@code ended_at} unless it is set and,
   * in the same transaction, the increment of the broadcast's playlists.
   */
  boolean endBroadcast(String broadcastId, Instant at) {
    Objects.requireNonNull(broadcastId, "broadcastId");
    Objects.requireNonNull(at, "at");
    return jdbi.inTransaction(handle -> {
      boolean ended = handle.createQuery("INSERT INTO " + BROADCASTS
              + " (broadcast_id, created_at, ended_at) VALUES (:id, :at, :at)"
              + " ON CONFLICT (broadcast_id) DO UPDATE SET ended_at = EXCLUDED.ended_at"
              + " WHERE " + BROADCASTS + ".ended_at IS NULL RETURNING broadcast_id")
          .bind("id", broadcastId)
          .bind("at", micros(at))
          .mapTo(String.class)
          .findOne()
          .isPresent();
      if (ended) {
        Playlists.bumpBroadcast(handle, broadcastId, at); // the end may complete every playlist
      }
      return ended;
    });
  }
}
