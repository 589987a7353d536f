package dev.segmentledger.core.internal;

import dev.segmentledger.core.Axis;
import dev.segmentledger.core.ItemId;
import dev.segmentledger.core.ItemState;
import dev.segmentledger.core.LedgerItem;
import dev.segmentledger.core.Reason;
import dev.segmentledger.core.query.Backlog;
import dev.segmentledger.core.query.Page;
import dev.segmentledger.core.query.RowQuery;
import dev.segmentledger.core.spi.BroadcastRecord;
import dev.segmentledger.core.spi.Claim;
import dev.segmentledger.core.spi.Confirmation;
import dev.segmentledger.core.spi.DuePage;
import dev.segmentledger.core.spi.LeaseRenewal;
import dev.segmentledger.core.spi.NewItem;
import dev.segmentledger.core.spi.RegisterResult;
import dev.segmentledger.core.spi.StateStore;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Optional;

/** A store whose every method fails; tests override what they use. */
class StubStore implements StateStore {
  @Override
  public List<RegisterResult> registerAll(List<NewItem> items) {
    throw new UnsupportedOperationException();
  }

  @Override
  public DuePage findDue(Axis axis, long afterRowId, Instant now, int limit) {
    throw new UnsupportedOperationException();
  }

  /** The page of {@link #findDue(Axis, long, Instant, int)}: the stub's rows have no storage group. */
  @Override
  public DuePage findDue(Axis axis, String storageGroup, long afterRowId, Instant now, int limit) {
    return findDue(axis, afterRowId, now, limit);
  }

  @Override
  public boolean[] renewAll(String owner, List<LeaseRenewal> renewals) {
    throw new UnsupportedOperationException();
  }

  @Override
  public int handOver(String fromGroup, String toGroup, int limit) {
    throw new UnsupportedOperationException();
  }

  @Override
  public int markStorageLost(String group, String detail, Instant at, int limit) {
    throw new UnsupportedOperationException();
  }

  @Override
  public Optional<LedgerItem> findByRowId(long rowId) {
    throw new UnsupportedOperationException();
  }

  @Override
  public Optional<LedgerItem> find(ItemId id) {
    throw new UnsupportedOperationException();
  }

  @Override
  public List<LedgerItem> findByBroadcast(String broadcastId) {
    throw new UnsupportedOperationException();
  }

  @Override
  public boolean confirm(Confirmation confirmation) {
    throw new UnsupportedOperationException();
  }

  @Override
  public boolean recordFailure(long rowId, ItemState expectedState, String leaseOwner, Reason reason, String detail,
      Instant next) {
    throw new UnsupportedOperationException();
  }

  @Override
  public boolean markTerminal(long rowId, ItemState expectedState, String leaseOwner, ItemState terminalState,
      Reason reason, String detail, Instant at) {
    throw new UnsupportedOperationException();
  }

  @Override
  public boolean recordProduced(long rowId, ItemState expectedState, long expectedSize, String sourcePath,
      long sizeBytes, Duration mediaDuration) {
    throw new UnsupportedOperationException();
  }

  @Override
  public int excludeRegisteredBefore(Instant threshold, Instant at, int limit) {
    throw new UnsupportedOperationException();
  }

  @Override
  public int settleWaiting(Instant at) {
    throw new UnsupportedOperationException();
  }

  @Override
  public boolean endBroadcast(String broadcastId, Instant at) {
    throw new UnsupportedOperationException();
  }

  @Override
  public Optional<BroadcastRecord> findBroadcast(String broadcastId) {
    throw new UnsupportedOperationException();
  }

  @Override
  public long count(Axis axis, ItemState state) {
    throw new UnsupportedOperationException();
  }

  @Override
  public Claim claim(long rowId, String owner, Instant leaseUntil, Instant now) {
    throw new UnsupportedOperationException();
  }

  @Override
  public boolean renew(long rowId, String owner, Instant heldUntil, Instant leaseUntil) {
    throw new UnsupportedOperationException();
  }

  @Override
  public boolean reopen(long rowId, ItemState expectedState, Reason reason, String detail, Instant at) {
    throw new UnsupportedOperationException();
  }

  @Override
  public int releaseAllOf(String owner, Instant dueAt) {
    throw new UnsupportedOperationException();
  }

  @Override
  public boolean release(long rowId, String owner, Instant dueAt) {
    throw new UnsupportedOperationException();
  }

  @Override
  public Page<LedgerItem> findRows(RowQuery query) {
    throw new UnsupportedOperationException();
  }

  @Override
  public Backlog backlog(Instant now) {
    throw new UnsupportedOperationException();
  }

  @Override
  public dev.segmentledger.core.spi.PlaylistStore playlists() {
    throw new UnsupportedOperationException();
  }
}
