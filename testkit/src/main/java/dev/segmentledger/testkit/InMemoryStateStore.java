package dev.segmentledger.testkit;

import dev.segmentledger.core.Axis;
import dev.segmentledger.core.BroadcastEndedException;
import dev.segmentledger.core.ItemId;
import dev.segmentledger.core.ItemState;
import dev.segmentledger.core.Lane;
import dev.segmentledger.core.LedgerItem;
import dev.segmentledger.core.Reason;
import dev.segmentledger.core.RegistrationConflictException;
import dev.segmentledger.core.query.Backlog;
import dev.segmentledger.core.query.Page;
import dev.segmentledger.core.query.RowQuery;
import dev.segmentledger.core.spi.BroadcastRecord;
import dev.segmentledger.core.spi.Claim;
import dev.segmentledger.core.spi.ClaimedRow;
import dev.segmentledger.core.spi.Confirmation;
import dev.segmentledger.core.spi.DuePage;
import dev.segmentledger.core.spi.LeaseRenewal;
import dev.segmentledger.core.spi.NewItem;
import dev.segmentledger.core.spi.PlaylistPart;
import dev.segmentledger.core.spi.PlaylistStore;
import dev.segmentledger.core.spi.Purged;
import dev.segmentledger.core.spi.RegisterResult;
import dev.segmentledger.core.spi.StateStore;
import dev.segmentledger.core.spi.StoredUplinkCap;
import java.time.Duration;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.Collection;
import java.util.Comparator;
import java.util.EnumMap;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.NavigableMap;
import java.util.Objects;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.Set;
import java.util.TreeMap;
import java.util.function.Predicate;
import java.util.stream.IntStream;

/**
 * A {@link StateStore} held in memory, with exactly the semantics of the SPI (it passes
 * {@link dev.segmentledger.testkit.contract.StateStoreContract}): ids from 1 growing with insertion (a batch's in identity order),
 * idempotent and atomic registration, compare-and-set updates, leases folded into the due time,
 * the init gate and broadcast lifecycle. Instants are truncated to microseconds, as PostgreSQL stores them, so that
 * tests observe the same values from this store and from a database.
 *
 * <p>Thread-safe: every method is synchronized on the store, which makes each call atomic. Nothing
 * survives the JVM, so it cannot stand in for a database in crash tests that restart the process.
 */
public final class InMemoryStateStore implements StateStore {
  private final NavigableMap<Long, LedgerItem> rows = new TreeMap<>();
  private final Map<ItemId, Long> rowIds = new HashMap<>();
  private final Map<String, BroadcastRecord> broadcasts = new HashMap<>();
  /** Leases by row id: only PENDING rows have one; every state change away from PENDING ends it. */
  private final Map<Long, Lease> leases = new HashMap<>();
  /** The evidence of attempts that ended without an outcome, by row id (see {@link StateStore#claim}). */
  private final Map<Long, Evidence> evidence = new HashMap<>();
  /** The failures recorded on each row per reason, since its registration or last re-open ({@link #failuresWith}). */
  private final Map<Long, Map<Reason, Integer>> failures = new HashMap<>();
  /** Broadcasts whose rows {@link #purge} deleted to the last one; their records stay as tombstones. */
  private final Set<String> emptied = new HashSet<>();
  /** When the ledger was done with each row's local file ({@link #markLocalFileDone}); a re-open removes it. */
  private final Map<Long, Instant> localFileDone = new HashMap<>();
  /** The stored uplink caps by node, in node order. */
  private final NavigableMap<String, StoredUplinkCap> uplinkCaps = new TreeMap<>();
  private final InMemoryPlaylists playlists = new InMemoryPlaylists(this,
      broadcastId -> broadcasts.containsKey(broadcastId) && broadcasts.get(broadcastId).ended(),
      this::listsItsRowsAsTheyAre);
  private long lastRowId;

  /**
   * Whether every PLAYBACK row {@code part} covers is settled and its CONFIRMED ones are as many as
   * its segment entries. Called by the playlists with the lock held.
   */
  private boolean listsItsRowsAsTheyAre(PlaylistPart part) {
    long confirmed = 0;
    for (LedgerItem row : rows.values()) {
      ItemId id = row.id();
      if (id.axis() == Axis.PLAYBACK && id.broadcastId().equals(part.broadcastId())
          && id.rendition().equals(part.rendition()) && id.sequence() >= part.firstSequence()
          && id.sequence() < part.nextSequence()) {
        if (!row.state().isTerminal()) {
          return false;
        }
        confirmed += row.state() == ItemState.CONFIRMED ? 1 : 0;
      }
    }
    return confirmed == part.entries() - part.gaps();
  }

  @Override
  public synchronized List<RegisterResult> registerAll(List<NewItem> items) {
    Objects.requireNonNull(items, "items");
    // Check everything first so that the batch is all or nothing.
    Map<ItemId, NewItem> earlier = new HashMap<>();
    for (NewItem item : items) {
      NewItem first = earlier.putIfAbsent(position(item.id()), item);
      if (first != null && !first.id().equals(item.id())) {
        throw new RegistrationConflictException(pendingRow(first), item.id());
      }
      if (first != null && item.sizeBytes() != LedgerItem.UNKNOWN_SIZE && first.sizeBytes() != item.sizeBytes()) {
        throw new RegistrationConflictException(pendingRow(first), item.sizeBytes());
      }
      BroadcastRecord broadcast = broadcasts.get(item.id().broadcastId());
      if (broadcast != null && broadcast.ended()) {
        throw new BroadcastEndedException(item.id().broadcastId());
      }
      Long existingRowId = rowIds.get(position(item.id()));
      if (existingRowId != null) {
        LedgerItem existing = rows.get(existingRowId);
        if (!existing.id().equals(item.id())) {
          throw new RegistrationConflictException(existing, item.id());
        }
        if (item.sizeBytes() != LedgerItem.UNKNOWN_SIZE && existing.sizeBytes() != item.sizeBytes()) {
          throw new RegistrationConflictException(existing, item.sizeBytes());
        }
      }
    }
    // Inserted in identity order, as the SPI requires; results in the caller's order.
    RegisterResult[] results = new RegisterResult[items.size()];
    for (int i : inIdentityOrder(items)) {
      results[i] = insert(items.get(i));
    }
    return List.of(results);
  }

  /** The positions of {@code items} in {@link ItemId#IDENTITY_ORDER}; an identity's repeats keep their order. */
  private static List<Integer> inIdentityOrder(List<NewItem> items) {
    return IntStream.range(0, items.size()).boxed()
        .sorted(Comparator.comparing(i -> items.get(i).id(), ItemId.IDENTITY_ORDER))
        .toList();
  }

  /** How {@code item} would look once inserted, for the message of a conflict inside one batch. */
  private static LedgerItem pendingRow(NewItem item) {
    return new LedgerItem(0, item.id(), item.sourcePath(), item.originPath(), item.sizeBytes(), item.state(), 0, item.reason(), item.detail(), item.registeredAt(), item.registeredAt(), null, null, null, null, null, null, null);
  }

  /**
   * The position of {@code id} (broadcast, axis, rendition, sequence) as an identity of its axis's
   * default format: rows are unique by position, whatever their format.
   */
  private static ItemId position(ItemId id) {
    return new ItemId(id.broadcastId(), id.axis(), id.rendition(), id.sequence());
  }

  private RegisterResult insert(NewItem item) {
    Long existingRowId = rowIds.get(position(item.id()));
    if (existingRowId != null) {
      return new RegisterResult(rows.get(existingRowId), false);
    }
    Instant registeredAt = micros(item.registeredAt());
    broadcasts.putIfAbsent(item.id().broadcastId(), new BroadcastRecord(item.id().broadcastId(), registeredAt, null));
    ItemState state = item.state();
    if (state == ItemState.WAITING && item.id().axis() == Axis.PLAYBACK && initConfirmed(item.id())) {
      state = ItemState.PENDING;
    }
    long rowId = ++lastRowId;
    Instant nextAttemptAt = micros(item.nextAttemptAt());
    if (item.leased()) {
      leases.put(rowId, new Lease(item.leaseOwner(), nextAttemptAt, false, 0, false));
    }
    LedgerItem created = new LedgerItem(rowId, item.id(), item.sourcePath(), item.originPath(), item.sizeBytes(),
        state, 0, item.reason(), item.detail(), registeredAt, nextAttemptAt, null, null, null, item.fileIdentity(),
        item.recordedAt() == null ? null : micros(item.recordedAt()), item.storageGroup(), item.traceContext(),
        item.lane());
    rows.put(rowId, created);
    rowIds.put(position(item.id()), rowId);
    return new RegisterResult(created, true);
  }

  private boolean initConfirmed(ItemId playback) {
    return find(ItemId.init(playback.broadcastId(), playback.rendition()))
        .map(init -> init.state() == ItemState.CONFIRMED)
        .orElse(false);
  }

  @Override
  public synchronized DuePage findDue(Axis axis, String storageGroup, long afterRowId, Instant now, int limit) {
    Objects.requireNonNull(axis, "axis");
    Objects.requireNonNull(now, "now");
    StoreArguments.requirePositiveLimit(limit);
    return DuePage.of(rows.tailMap(afterRowId, false).values().stream()
        .filter(row -> row.id().axis() == axis && row.state() == ItemState.PENDING)
        .filter(row -> row.storageGroup() == null || row.storageGroup().equals(storageGroup))
        .filter(row -> !row.nextAttemptAt().isAfter(now))
        .limit(limit)
        .toList());
  }

  @Override
  public synchronized Optional<LedgerItem> findByRowId(long rowId) {
    return Optional.ofNullable(rows.get(rowId));
  }

  @Override
  public synchronized Optional<LedgerItem> find(ItemId id) {
    Objects.requireNonNull(id, "id");
    return Optional.ofNullable(rowIds.get(position(id))).map(rows::get);
  }

  @Override
  public synchronized List<LedgerItem> findByBroadcast(String broadcastId) {
    Objects.requireNonNull(broadcastId, "broadcastId");
    return rows.values().stream().filter(row -> row.id().broadcastId().equals(broadcastId)).toList();
  }

  @Override
  public synchronized List<LedgerItem> findSegments(String broadcastId, String rendition, long fromSequence,
      int limit) {
    Objects.requireNonNull(broadcastId, "broadcastId");
    Objects.requireNonNull(rendition, "rendition");
    StoreArguments.requirePositiveLimit(limit);
    return rows.values().stream()
        .filter(row -> row.id().axis() == Axis.PLAYBACK && row.id().broadcastId().equals(broadcastId)
            && row.id().rendition().equals(rendition) && row.id().sequence() >= fromSequence)
        .sorted(Comparator.comparingLong(row -> row.id().sequence()))
        .limit(limit)
        .toList();
  }

  @Override
  public synchronized boolean hasOpenRows(String broadcastId) {
    Objects.requireNonNull(broadcastId, "broadcastId");
    return rows.values().stream()
        .anyMatch(row -> row.id().broadcastId().equals(broadcastId) && !row.state().isTerminal());
  }

  @Override
  public synchronized Page<LedgerItem> findRows(RowQuery query) {
    Objects.requireNonNull(query, "query");
    Collection<LedgerItem> ordered = query.order() == RowQuery.Order.OLDEST_FIRST
        ? rows.values() : rows.descendingMap().values();
    List<LedgerItem> matching = ordered.stream()
        .filter(row -> query.isAfterCursor(row.rowId()) && query.matches(row))
        .limit(query.limit() + 1L)
        .toList();
    if (matching.size() <= query.limit()) {
      return new Page<>(matching, OptionalLong.empty());
    }
    List<LedgerItem> page = matching.subList(0, query.limit());
    return new Page<>(page, OptionalLong.of(page.get(page.size() - 1).rowId()));
  }

  @Override
  public synchronized Backlog backlog(Instant now) {
    Objects.requireNonNull(now, "now");
    Instant at = micros(now);
    Map<Axis, Backlog.AxisBacklog> axes = new EnumMap<>(Axis.class);
    for (Axis axis : Axis.values()) {
      long unconfirmed = 0;
      long due = 0;
      long leased = 0;
      long inBackoff = 0;
      long waiting = 0;
      long bytes = 0;
      Instant oldest = null;
      for (LedgerItem row : rows.values()) {
        if (row.id().axis() != axis || row.state().isTerminal()) {
          continue;
        }
        unconfirmed++;
        bytes += Math.max(0, row.sizeBytes());
        oldest = oldest == null || row.registeredAt().isBefore(oldest) ? row.registeredAt() : oldest;
        if (row.state() == ItemState.WAITING) {
          waiting++;
        } else if (!row.nextAttemptAt().isAfter(at)) {
          due++;
        } else if (leasedAt(row.rowId(), at)) {
          leased++;
        } else {
          inBackoff++;
        }
      }
      axes.put(axis, new Backlog.AxisBacklog(unconfirmed, oldest, due, leased, inBackoff, waiting, bytes));
    }
    return new Backlog(at, axes);
  }

  @Override
  public synchronized boolean confirm(Confirmation confirmation) {
    LedgerItem row = rows.get(confirmation.rowId());
    if (row == null || !row.id().broadcastId().equals(confirmation.broadcastId())
        || row.id().axis() != confirmation.id().axis() || row.state() != confirmation.expectedState()
        || row.sizeBytes() != confirmation.expectedSize()) {
      return false;
    }
    long rowId = confirmation.rowId();
    leases.remove(rowId);
    rows.put(rowId, new LedgerItem(rowId, row.id(), row.sourcePath(), row.originPath(), row.sizeBytes(),
        ItemState.CONFIRMED, row.attempts(), row.reason(), row.lastError(), row.registeredAt(), row.nextAttemptAt(),
        micros(confirmation.confirmedAt()), confirmation.checksum(), row.mediaDuration(), row.fileIdentity(), row.recordedAt(), row.storageGroup(), row.traceContext(), row.lane()));
    if (row.id().axis() == Axis.INIT) {
      releaseWaitingPlayback(row.id());
    }
    playlists.rowChanged(row.id(), confirmation.confirmedAt());
    return true;
  }

  private void releaseWaitingPlayback(ItemId init) {
    for (LedgerItem row : List.copyOf(rows.values())) {
      ItemId id = row.id();
      if (id.axis() == Axis.PLAYBACK && row.state() == ItemState.WAITING
          && id.broadcastId().equals(init.broadcastId()) && id.rendition().equals(init.rendition())) {
        rows.put(row.rowId(), withState(row, ItemState.PENDING, row.reason(), row.lastError()));
      }
    }
  }

  @Override
  public synchronized boolean recordFailure(long rowId, ItemState expectedState, String leaseOwner, Reason reason,
      String detail, Instant nextAttemptAt) {
    StoreArguments.requireUnconfirmed("expectedState", expectedState);
    Objects.requireNonNull(leaseOwner, "leaseOwner");
    Objects.requireNonNull(reason, "reason");
    Objects.requireNonNull(nextAttemptAt, "nextAttemptAt");
    LedgerItem row = rows.get(rowId);
    if (row == null || row.state() != expectedState || !heldByCallerOrFree(rowId, leaseOwner)) {
      return false;
    }
    leases.remove(rowId);
    countFailure(rowId, reason);
    rows.put(rowId, new LedgerItem(rowId, row.id(), row.sourcePath(), row.originPath(), row.sizeBytes(), row.state(),
        row.attempts() + 1, reason, detail, row.registeredAt(), micros(nextAttemptAt), row.confirmedAt(),
        row.checksum(), row.mediaDuration(), row.fileIdentity(), row.recordedAt(), row.storageGroup(), row.traceContext(), row.lane()));
    return true;
  }

  @Override
  public synchronized boolean markTerminal(long rowId, ItemState expectedState, String leaseOwner,
      ItemState terminalState, Reason reason, String detail, Instant at) {
    StoreArguments.requireUnconfirmed("expectedState", expectedState);
    Objects.requireNonNull(leaseOwner, "leaseOwner");
    StoreArguments.requireRejectedOrExcluded(terminalState);
    Objects.requireNonNull(reason, "reason");
    Objects.requireNonNull(at, "at");
    LedgerItem row = rows.get(rowId);
    if (row == null || row.state() != expectedState || !heldByCallerOrFree(rowId, leaseOwner)) {
      return false;
    }
    leases.remove(rowId);
    countFailure(rowId, reason);
    rows.put(rowId, withState(row, terminalState, reason, detail));
    playlists.rowChanged(row.id(), at);
    return true;
  }

  private void countFailure(long rowId, Reason reason) {
    failures.computeIfAbsent(rowId, id -> new EnumMap<>(Reason.class)).merge(reason, 1, Integer::sum);
  }

  @Override
  public synchronized int failuresWith(long rowId, Reason reason) {
    Objects.requireNonNull(reason, "reason");
    return failures.getOrDefault(rowId, Map.of()).getOrDefault(reason, 0);
  }

  /** The row carries no lease, or {@code owner}'s. */
  private boolean heldByCallerOrFree(long rowId, String owner) {
    Lease lease = leases.get(rowId);
    return lease == null || lease.owner().equals(owner);
  }

  @Override
  public synchronized boolean reopen(long rowId, ItemState expectedState, Reason reason, String detail, Instant at) {
    StoreArguments.requireTerminal("expectedState", expectedState);
    Objects.requireNonNull(reason, "reason");
    Objects.requireNonNull(at, "at");
    LedgerItem row = rows.get(rowId);
    if (row == null || row.state() != expectedState) {
      return false;
    }
    evidence.remove(rowId);
    failures.remove(rowId);
    localFileDone.remove(rowId);
    String identity = row.reason() == Reason.FILE_CHANGED ? null : row.fileIdentity();
    rows.put(rowId, new LedgerItem(rowId, row.id(), row.sourcePath(), row.originPath(), row.sizeBytes(),
        ItemState.PENDING, 0, reason, detail, row.registeredAt(), micros(at), null, null,
        row.mediaDuration(), identity, row.recordedAt(), row.storageGroup(), row.traceContext(), row.lane()));
    playlists.rowReopened(row.id(), at);
    return true;
  }

  @Override
  public synchronized boolean recordProduced(long rowId, ItemState expectedState, long expectedSize,
      String sourcePath, long sizeBytes, Duration mediaDuration) {
    StoreArguments.requireUnconfirmed("expectedState", expectedState);
    Objects.requireNonNull(sourcePath, "sourcePath");
    LedgerItem row = rows.get(rowId);
    if (row == null || row.state() != expectedState || row.sizeBytes() != expectedSize) {
      return false;
    }
    rows.put(rowId, new LedgerItem(rowId, row.id(), sourcePath, row.originPath(), sizeBytes, row.state(),
        row.attempts(), row.reason(), row.lastError(), row.registeredAt(), row.nextAttemptAt(), row.confirmedAt(),
        row.checksum(), mediaDuration == null ? null : mediaDuration.truncatedTo(ChronoUnit.MICROS),
        row.fileIdentity(), row.recordedAt(), row.storageGroup(), row.traceContext(), row.lane()));
    return true;
  }

  @Override
  public synchronized int excludeRegisteredBefore(Instant threshold, Instant at, int limit) {
    Objects.requireNonNull(threshold, "threshold");
    Objects.requireNonNull(at, "at");
    StoreArguments.requirePositiveLimit(limit);
    List<LedgerItem> old = rows.values().stream()
        .filter(row -> !row.state().isTerminal() && row.registeredAt().isBefore(threshold))
        .filter(row -> row.id().axis() != Axis.INIT || !hasRecentUnconfirmedPlayback(row.id(), threshold))
        .filter(row -> !leasedAt(row.rowId(), at))
        .limit(limit)
        .toList();
    for (LedgerItem row : old) {
      leases.remove(row.rowId());
      rows.put(row.rowId(), withState(row, ItemState.EXCLUDED, Reason.PAST_CUTOFF,
          "registered at " + row.registeredAt() + ", before the cutoff " + threshold));
      playlists.rowChanged(row.id(), at);
    }
    return old.size();
  }

  @Override
  public synchronized int handOver(String fromGroup, String toGroup, int limit) {
    StoreArguments.requirePositiveLimit(limit);
    List<LedgerItem> open = openRowsOf(fromGroup, row -> true, limit);
    for (LedgerItem row : open) {
      rows.put(row.rowId(), new LedgerItem(row.rowId(), row.id(), row.sourcePath(), row.originPath(),
          row.sizeBytes(), row.state(), row.attempts(), row.reason(), row.lastError(), row.registeredAt(),
          row.nextAttemptAt(), row.confirmedAt(), row.checksum(), row.mediaDuration(), row.fileIdentity(), row.recordedAt(),
          toGroup, row.traceContext(), row.lane()));
    }
    return open.size();
  }

  @Override
  public synchronized int markStorageLost(String group, String detail, Instant at, int limit) {
    Objects.requireNonNull(group, "group");
    Objects.requireNonNull(at, "at");
    StoreArguments.requirePositiveLimit(limit);
    List<LedgerItem> open = openRowsOf(group, row -> !leasedAt(row.rowId(), at), limit);
    for (LedgerItem row : open) {
      leases.remove(row.rowId());
      rows.put(row.rowId(), withState(row, ItemState.REJECTED, Reason.STORAGE_LOST, detail));
      playlists.rowChanged(row.id(), at);
    }
    return open.size();
  }

  /**
   * The first {@code limit} unconfirmed rows of {@code group} (null: of no group) that also pass
   * {@code also}, in row id order.
   */
  private List<LedgerItem> openRowsOf(String group, Predicate<LedgerItem> also, int limit) {
    return rows.values().stream()
        .filter(row -> !row.state().isTerminal() && Objects.equals(row.storageGroup(), group) && also.test(row))
        .limit(limit)
        .toList();
  }

  /** Whether the row is being uploaded: under a lease still valid at {@code at}. */
  private boolean leasedAt(long rowId, Instant at) {
    Lease lease = leases.get(rowId);
    return lease != null && lease.until().isAfter(at);
  }

  private boolean hasRecentUnconfirmedPlayback(ItemId init, Instant threshold) {
    return rows.values().stream().anyMatch(row -> row.id().axis() == Axis.PLAYBACK
        && row.id().broadcastId().equals(init.broadcastId()) && row.id().rendition().equals(init.rendition())
        && !row.state().isTerminal() && !row.registeredAt().isBefore(threshold));
  }

  @Override
  public synchronized int settleWaiting(Instant at) {
    Objects.requireNonNull(at, "at");
    int changed = 0;
    for (LedgerItem row : List.copyOf(rows.values())) {
      if (row.id().axis() != Axis.PLAYBACK || row.state() != ItemState.WAITING) {
        continue;
      }
      ItemState init = find(ItemId.init(row.id().broadcastId(), row.id().rendition()))
          .map(LedgerItem::state).orElse(ItemState.PENDING);
      if (init == ItemState.CONFIRMED) {
        rows.put(row.rowId(), withState(row, ItemState.PENDING, row.reason(), row.lastError()));
        changed++;
      } else if (init == ItemState.REJECTED || init == ItemState.EXCLUDED) {
        rows.put(row.rowId(), withState(row, ItemState.REJECTED, Reason.INIT_FAILED,
            "the rendition's init is " + init));
        playlists.rowChanged(row.id(), at);
        changed++;
      }
    }
    return changed;
  }

  @Override
  public synchronized boolean endBroadcast(String broadcastId, Instant at) {
    Objects.requireNonNull(broadcastId, "broadcastId");
    Objects.requireNonNull(at, "at");
    BroadcastRecord current = broadcasts.get(broadcastId);
    if (current != null && current.ended()) {
      return false;
    }
    Instant createdAt = current == null ? micros(at) : current.createdAt();
    broadcasts.put(broadcastId, new BroadcastRecord(broadcastId, createdAt, micros(at), current == null ? null : current.lane()));
    playlists.broadcastChanged(broadcastId, at);
    return true;
  }

  /**
   * {@inheritDoc}
   *
   * <p>Atomic: the whole call holds the store's lock, so no row changes state while it runs.
   */
  @Override
  public synchronized Purged purge(Instant completedBefore, int maxRows) {
    Objects.requireNonNull(completedBefore, "completedBefore");
    if (maxRows <= 0) {
      throw new IllegalArgumentException("maxRows must be > 0, got " + maxRows);
    }
    List<BroadcastRecord> candidates = broadcasts.values().stream()
        .filter(b -> b.ended() && b.endedAt().isBefore(completedBefore) && !emptied.contains(b.broadcastId()))
        .sorted(Comparator.comparing(BroadcastRecord::endedAt).thenComparing(BroadcastRecord::broadcastId))
        .toList();
    long deleted = 0;
    List<String> done = new ArrayList<>();
    for (BroadcastRecord broadcast : candidates) {
      if (deleted >= maxRows) {
        break;
      }
      List<LedgerItem> ofBroadcast = rows.values().stream()
          .filter(row -> row.id().broadcastId().equals(broadcast.broadcastId()))
          .sorted(Comparator.comparing(LedgerItem::id, ItemId.IDENTITY_ORDER))
          .toList();
      if (ofBroadcast.stream().anyMatch(row -> !row.state().isTerminal())) {
        continue; // not complete: every row is kept
      }
      playlists.broadcastPurged(broadcast.broadcastId()); // parts are derived from the rows deleted here
      for (LedgerItem row : ofBroadcast) {
        if (deleted >= maxRows) {
          break;
        }
        rows.remove(row.rowId());
        rowIds.remove(position(row.id()));
        leases.remove(row.rowId());
        evidence.remove(row.rowId());
        localFileDone.remove(row.rowId());
        deleted++;
      }
      if (rows.values().stream().noneMatch(row -> row.id().broadcastId().equals(broadcast.broadcastId()))) {
        emptied.add(broadcast.broadcastId());
        done.add(broadcast.broadcastId());
      }
    }
    return new Purged(deleted, done);
  }

  @Override
  public synchronized List<LedgerItem> findLocalFilesToRemove(String storageGroup, long afterRowId, int limit) {
    if (limit <= 0) {
      throw new IllegalArgumentException("limit must be > 0, got " + limit);
    }
    return rows.tailMap(afterRowId, false).values().stream()
        .filter(row -> row.state() == ItemState.CONFIRMED && row.originPath() != null
            && !localFileDone.containsKey(row.rowId())
            && (row.storageGroup() == null || row.storageGroup().equals(storageGroup)))
        .limit(limit)
        .toList();
  }

  @Override
  public synchronized List<LedgerItem> findOriginalsToRemove(String storageGroup, Instant confirmedBefore,
      Instant afterConfirmedAt, long afterRowId, int limit) {
    Objects.requireNonNull(confirmedBefore, "confirmedBefore");
    Objects.requireNonNull(afterConfirmedAt, "afterConfirmedAt");
    if (limit <= 0) {
      throw new IllegalArgumentException("limit must be > 0, got " + limit);
    }
    return rows.values().stream()
        .filter(row -> row.id().axis() == Axis.ORIGINAL && row.state() == ItemState.CONFIRMED
            && !localFileDone.containsKey(row.rowId()) && Objects.equals(row.storageGroup(), storageGroup)
            && !row.confirmedAt().isAfter(confirmedBefore)
            && (row.confirmedAt().isAfter(afterConfirmedAt)
                || row.confirmedAt().equals(afterConfirmedAt) && row.rowId() > afterRowId))
        .sorted(Comparator.comparing(LedgerItem::confirmedAt).thenComparingLong(LedgerItem::rowId))
        .limit(limit)
        .toList();
  }

  @Override
  public synchronized boolean hasUnconfirmedRowWithSourcePath(String sourcePath, long exceptRowId) {
    Objects.requireNonNull(sourcePath, "sourcePath");
    return rows.values().stream().anyMatch(row -> row.rowId() != exceptRowId && row.state() != ItemState.CONFIRMED
        && sourcePath.equals(row.sourcePath()));
  }

  @Override
  public synchronized boolean markLocalFileDone(long rowId, Instant at) {
    Objects.requireNonNull(at, "at");
    LedgerItem row = rows.get(rowId);
    if (row == null || row.state() != ItemState.CONFIRMED || localFileDone.containsKey(rowId)) {
      return false;
    }
    localFileDone.put(rowId, micros(at));
    return true;
  }

  @Override
  public PlaylistStore playlists() {
    return playlists;
  }

  @Override
  public synchronized void prioritize(String broadcastId, Lane lane, Instant at) {
    Objects.requireNonNull(broadcastId, "broadcastId");
    Objects.requireNonNull(at, "at");
    BroadcastRecord current = broadcasts.get(broadcastId);
    if (current != null) {
      broadcasts.put(broadcastId, new BroadcastRecord(broadcastId, current.createdAt(), current.endedAt(), lane));
    } else if (lane != null) {
      broadcasts.put(broadcastId, new BroadcastRecord(broadcastId, micros(at), null, lane));
    }
  }

  @Override
  public synchronized List<StoredUplinkCap> uplinkCaps() {
    return List.copyOf(uplinkCaps.values());
  }

  @Override
  public synchronized void putUplinkCap(StoredUplinkCap cap) {
    Objects.requireNonNull(cap, "cap");
    uplinkCaps.put(cap.node(), new StoredUplinkCap(cap.node(), cap.bytesPerSecond(), cap.requestsPerSecond(),
        micros(cap.setAt())));
  }

  @Override
  public synchronized boolean removeUplinkCap(String node) {
    Objects.requireNonNull(node, "node");
    return uplinkCaps.remove(node) != null;
  }

  @Override
  public synchronized Optional<BroadcastRecord> findBroadcast(String broadcastId) {
    Objects.requireNonNull(broadcastId, "broadcastId");
    return Optional.ofNullable(broadcasts.get(broadcastId));
  }

  @Override
  public synchronized long count(Axis axis, ItemState state) {
    Objects.requireNonNull(axis, "axis");
    Objects.requireNonNull(state, "state");
    return rows.values().stream().filter(row -> row.id().axis() == axis && row.state() == state).count();
  }

  @Override
  public synchronized Claim claim(long rowId, String owner, Instant leaseUntil, Instant now) {
    return claimRow(rowId, owner, leaseUntil, now).claim();
  }

  @Override
  public synchronized ClaimedRow claimRow(long rowId, String owner, Instant leaseUntil, Instant now) {
    Objects.requireNonNull(owner, "owner");
    Objects.requireNonNull(leaseUntil, "leaseUntil");
    Objects.requireNonNull(now, "now");
    LedgerItem row = rows.get(rowId);
    if (row == null || row.state() != ItemState.PENDING) {
      return ClaimedRow.REFUSED;
    }
    Lease current = leases.get(rowId);
    boolean due = !row.nextAttemptAt().isAfter(now);
    if (!due && (current == null || !current.owner().equals(owner))) {
      return ClaimedRow.REFUSED;
    }
    Instant until = micros(leaseUntil);
    Evidence before = evidence.getOrDefault(rowId, Evidence.NONE);
    leases.put(rowId, new Lease(owner, until, true, before.storedBytes(), false));
    boolean tookOver = current != null && current.attempt() && !current.until().isAfter(micros(now));
    Evidence after = before;
    if (tookOver) {
      boolean stalled = before.storedBytes() <= current.storedFrom();
      boolean blamed = stalled && current.isolated();
      after = stalled ? new Evidence(before.abandoned() + 1, before.blamed() + (blamed ? 1 : 0), before.storedBytes())
          : new Evidence(0, 0, before.storedBytes()); // progress since the previous death clears the counts
      evidence.put(rowId, after);
      String weight = !stalled ? " (it had stored " + before.storedBytes() + " bytes: progress, not blamed)"
          : blamed ? " (it ran alone and stored nothing more: blamed on this row)"
          : " (it stored nothing more, beside other work: a suspect, not blamed)";
      row = new LedgerItem(rowId, row.id(), row.sourcePath(), row.originPath(), row.sizeBytes(), row.state(),
          row.attempts() + 1, Reason.ATTEMPT_ABANDONED, "the attempt of " + current.owner()
              + " ended without an outcome: its process died or froze past its lease" + weight, row.registeredAt(),
          row.nextAttemptAt(), row.confirmedAt(), row.checksum(), row.mediaDuration(), row.fileIdentity(),
          row.recordedAt(), row.storageGroup(), row.traceContext(), row.lane());
    }
    LedgerItem claimed = withNextAttemptAt(row, until);
    rows.put(rowId, claimed);
    return new ClaimedRow(Claim.held(tookOver, after.abandoned(), after.blamed()), claimed);
  }

  @Override
  public synchronized boolean renew(long rowId, String owner, Instant heldUntil, Instant leaseUntil) {
    Objects.requireNonNull(owner, "owner");
    Objects.requireNonNull(heldUntil, "heldUntil");
    Objects.requireNonNull(leaseUntil, "leaseUntil");
    LedgerItem row = rows.get(rowId);
    Lease current = leases.get(rowId);
    if (row == null || row.state() != ItemState.PENDING || current == null || !current.owner().equals(owner)
        || !current.until().equals(micros(heldUntil))) {
      return false;
    }
    Instant until = micros(leaseUntil);
    leases.put(rowId, current.attempt() ? new Lease(owner, until, true, current.storedFrom(), current.isolated())
        : new Lease(owner, until, true, evidence.getOrDefault(rowId, Evidence.NONE).storedBytes(), false));
    rows.put(rowId, withNextAttemptAt(row, until));
    return true;
  }

  @Override
  public synchronized boolean[] renewAll(String owner, List<LeaseRenewal> renewals) {
    Objects.requireNonNull(owner, "owner");
    boolean[] renewed = new boolean[renewals.size()];
    for (int i = 0; i < renewed.length; i++) {
      LeaseRenewal renewal = renewals.get(i);
      long rowId = renewal.rowId();
      LedgerItem row = rows.get(rowId);
      Lease current = leases.get(rowId);
      if (row == null || !row.id().broadcastId().equals(renewal.broadcastId()) || row.state() != ItemState.PENDING
          || current == null || !current.owner().equals(owner)
          || !current.until().equals(micros(renewal.heldUntil()))) {
        continue;
      }
      Instant until = micros(renewal.leaseUntil());
      Evidence before = evidence.getOrDefault(rowId, Evidence.NONE);
      if (renewal.attempt()) {
        long storedFrom = current.attempt() ? current.storedFrom() : before.storedBytes();
        evidence.put(rowId, renewal.storedBytes() > before.storedBytes()
            ? new Evidence(0, 0, renewal.storedBytes()) // progress clears the counts of deaths without it
            : before);
        leases.put(rowId, new Lease(owner, until, true, storedFrom, renewal.isolated()));
      } else {
        leases.put(rowId, new Lease(owner, until, current.attempt(), current.storedFrom(), current.isolated()));
      }
      rows.put(rowId, withNextAttemptAt(row, until));
      renewed[i] = true;
    }
    return renewed;
  }

  @Override
  public synchronized boolean release(long rowId, String owner, Instant dueAt) {
    Objects.requireNonNull(owner, "owner");
    Objects.requireNonNull(dueAt, "dueAt");
    LedgerItem row = rows.get(rowId);
    Lease current = leases.get(rowId);
    if (row == null || row.state() != ItemState.PENDING || current == null || !current.owner().equals(owner)) {
      return false;
    }
    leases.remove(rowId);
    rows.put(rowId, withNextAttemptAt(row, micros(dueAt)));
    return true;
  }

  @Override
  public synchronized int releaseAllOf(String owner, Instant dueAt) {
    Objects.requireNonNull(owner, "owner");
    Objects.requireNonNull(dueAt, "dueAt");
    Instant due = micros(dueAt);
    int ended = 0;
    for (Map.Entry<Long, Lease> lease : leases.entrySet()) {
      LedgerItem row = rows.get(lease.getKey());
      if (lease.getValue().owner().equals(owner) && row.state() == ItemState.PENDING
          && lease.getValue().until().isAfter(due)) {
        Lease held = lease.getValue();
        lease.setValue(new Lease(owner, due, held.attempt(), held.storedFrom(), held.isolated())); // ended, not cleared: a claim counts it
        rows.put(row.rowId(), withNextAttemptAt(row, due));
        ended++;
      }
    }
    return ended;
  }

  /**
   * A lease; {@code attempt}: taken for an upload attempt (claim, renew), not only at registration;
   * {@code storedFrom}: the row's stored bytes when the attempt began; {@code isolated}: the attempt
   * runs alone in its process.
   */
  private record Lease(String owner, Instant until, boolean attempt, long storedFrom, boolean isolated) {}

  /** Of one row: abandoned attempts without progress, those blamed, and the greatest stored bytes. */
  private record Evidence(int abandoned, int blamed, long storedBytes) {
    static final Evidence NONE = new Evidence(0, 0, 0);
  }

  private static LedgerItem withNextAttemptAt(LedgerItem row, Instant nextAttemptAt) {
    return new LedgerItem(row.rowId(), row.id(), row.sourcePath(), row.originPath(), row.sizeBytes(), row.state(),
        row.attempts(), row.reason(), row.lastError(), row.registeredAt(), nextAttemptAt, row.confirmedAt(),
        row.checksum(), row.mediaDuration(), row.fileIdentity(), row.recordedAt(), row.storageGroup(), row.traceContext(), row.lane());
  }

  private static LedgerItem withState(LedgerItem row, ItemState state, Reason reason, String detail) {
    return new LedgerItem(row.rowId(), row.id(), row.sourcePath(), row.originPath(), row.sizeBytes(), state,
        row.attempts(), reason, detail, row.registeredAt(), row.nextAttemptAt(), row.confirmedAt(), row.checksum(),
        row.mediaDuration(), row.fileIdentity(), row.recordedAt(), row.storageGroup(), row.traceContext(), row.lane());
  }

  private static Instant micros(Instant instant) {
    return instant.truncatedTo(ChronoUnit.MICROS);
  }
}
