package dev.segmentledger.testkit;

import dev.segmentledger.core.Axis;
import dev.segmentledger.core.ItemId;
import dev.segmentledger.core.ItemState;
import dev.segmentledger.core.LedgerItem;
import dev.segmentledger.core.Reason;
import dev.segmentledger.core.RegistrationConflictException;
import dev.segmentledger.core.spi.NewItem;
import dev.segmentledger.core.spi.RegisterResult;
import dev.segmentledger.core.spi.StateStore;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.NavigableMap;
import java.util.Objects;
import java.util.Optional;
import java.util.TreeMap;

/**
 * A {@link StateStore} held in memory, with exactly the semantics of the SPI (it passes
 * {@link StateStoreContract}): ids from 1 growing with insertion, idempotent registration,
 * compare-and-set updates. Instants are truncated to microseconds, as PostgreSQL stores them, so
 * that tests observe the same values from this store and from a database.
 *
 * <p>Thread-safe: every method is synchronized on the store, which makes each call atomic. Nothing
 * survives the JVM, so it cannot stand in for a database in crash tests that restart the process.
 */
public final class InMemoryStateStore implements StateStore {
  private final NavigableMap<Long, LedgerItem> rows = new TreeMap<>();
  private final Map<ItemId, Long> rowIds = new HashMap<>();
  private long lastRowId;

  @Override
  public synchronized RegisterResult register(NewItem item) {
    Objects.requireNonNull(item, "item");
    Long existingRowId = rowIds.get(item.id());
    if (existingRowId != null) {
      LedgerItem existing = rows.get(existingRowId);
      if (existing.sizeBytes() != item.sizeBytes()) {
        throw new RegistrationConflictException(existing, item.sizeBytes());
      }
      return new RegisterResult(existing, false);
    }
    long rowId = ++lastRowId;
    Instant registeredAt = micros(item.registeredAt());
    LedgerItem created = new LedgerItem(rowId, item.id(), item.sourcePath(), item.sizeBytes(), item.state(), 0,
        item.reason(), item.detail(), registeredAt, registeredAt, null, null);
    rows.put(rowId, created);
    rowIds.put(item.id(), rowId);
    return new RegisterResult(created, true);
  }

  @Override
  public synchronized List<LedgerItem> findDue(Axis axis, long afterRowId, Instant now, int limit) {
    Objects.requireNonNull(axis, "axis");
    Objects.requireNonNull(now, "now");
    StoreArguments.requirePositiveLimit(limit);
    return rows.tailMap(afterRowId, false).values().stream()
        .filter(row -> row.id().axis() == axis && row.state() == ItemState.PENDING)
        .filter(row -> !row.nextAttemptAt().isAfter(now))
        .limit(limit)
        .toList();
  }

  @Override
  public synchronized Optional<LedgerItem> findByRowId(long rowId) {
    return Optional.ofNullable(rows.get(rowId));
  }

  @Override
  public synchronized Optional<LedgerItem> find(ItemId id) {
    Objects.requireNonNull(id, "id");
    return Optional.ofNullable(rowIds.get(id)).map(rows::get);
  }

  @Override
  public synchronized List<LedgerItem> findByBroadcast(String broadcastId) {
    Objects.requireNonNull(broadcastId, "broadcastId");
    return rows.values().stream().filter(row -> row.id().broadcastId().equals(broadcastId)).toList();
  }

  @Override
  public synchronized boolean confirm(long rowId, ItemState expectedState, long expectedSize, String checksum,
      Instant confirmedAt) {
    StoreArguments.requireUnconfirmed("expectedState", expectedState);
    Objects.requireNonNull(confirmedAt, "confirmedAt");
    LedgerItem row = rows.get(rowId);
    if (row == null || row.state() != expectedState || row.sizeBytes() != expectedSize) {
      return false;
    }
    rows.put(rowId, new LedgerItem(rowId, row.id(), row.sourcePath(), row.sizeBytes(), ItemState.CONFIRMED,
        row.attempts(), row.reason(), row.lastError(), row.registeredAt(), row.nextAttemptAt(),
        micros(confirmedAt), checksum));
    return true;
  }

  @Override
  public synchronized boolean recordFailure(long rowId, ItemState expectedState, Reason reason, String detail,
      Instant nextAttemptAt) {
    StoreArguments.requireUnconfirmed("expectedState", expectedState);
    Objects.requireNonNull(reason, "reason");
    Objects.requireNonNull(nextAttemptAt, "nextAttemptAt");
    LedgerItem row = rows.get(rowId);
    if (row == null || row.state() != expectedState) {
      return false;
    }
    rows.put(rowId, new LedgerItem(rowId, row.id(), row.sourcePath(), row.sizeBytes(), row.state(),
        row.attempts() + 1, reason, detail, row.registeredAt(), micros(nextAttemptAt), row.confirmedAt(),
        row.checksum()));
    return true;
  }

  @Override
  public synchronized boolean markTerminal(long rowId, ItemState expectedState, ItemState terminalState,
      Reason reason, String detail, Instant at) {
    StoreArguments.requireUnconfirmed("expectedState", expectedState);
    StoreArguments.requireRejectedOrExcluded(terminalState);
    Objects.requireNonNull(reason, "reason");
    Objects.requireNonNull(at, "at");
    LedgerItem row = rows.get(rowId);
    if (row == null || row.state() != expectedState) {
      return false;
    }
    rows.put(rowId, new LedgerItem(rowId, row.id(), row.sourcePath(), row.sizeBytes(), terminalState,
        row.attempts(), reason, detail, row.registeredAt(), row.nextAttemptAt(), row.confirmedAt(),
        row.checksum()));
    return true;
  }

  @Override
  public synchronized long count(Axis axis, ItemState state) {
    Objects.requireNonNull(axis, "axis");
    Objects.requireNonNull(state, "state");
    return rows.values().stream().filter(row -> row.id().axis() == axis && row.state() == state).count();
  }

  private static Instant micros(Instant instant) {
    return instant.truncatedTo(ChronoUnit.MICROS);
  }
}
