package dev.segmentledger.core.spi;

import dev.segmentledger.core.Axis;
import dev.segmentledger.core.ItemId;
import dev.segmentledger.core.ItemState;
import dev.segmentledger.core.LedgerItem;
import dev.segmentledger.core.Reason;
import java.time.Instant;
import java.util.List;
import java.util.Optional;

/**
 * The ledger table: the only durable state of the library. Everything in memory can be rebuilt
 * from it after a crash.
 *
 * <p>Implementations must be thread-safe, and every state change is conditional (compare and
 * set): a call whose precondition no longer holds changes nothing and returns {@code false}.
 * Row ids are assigned by the store, are unique, and grow with insertion order. Every
 * implementation should pass {@code dev.segmentledger.testkit.StateStoreContract}.
 */
public interface StateStore {

  /**
   * Inserts {@code item} unless a row with the same {@link ItemId} exists. Idempotent: the same
   * identity with the same size returns the existing row with {@code created == false}.
   *
   * @throws dev.segmentledger.core.RegistrationConflictException if the identity exists with a
   *     different size; the existing row is unchanged
   */
  RegisterResult register(NewItem item);

  /**
   * One page of the sweep: rows of {@code axis} in state {@link ItemState#PENDING} whose
   * {@code nextAttemptAt <= now} and whose row id is greater than {@code afterRowId}, in
   * ascending row id order, at most {@code limit} rows. Rows in backoff take no slot of the page.
   * Must cost a bounded index scan whatever the size of the table.
   */
  List<LedgerItem> findDue(Axis axis, long afterRowId, Instant now, int limit);

  /** The row with the given store id. */
  Optional<LedgerItem> findByRowId(long rowId);

  /** The row with the given identity. */
  Optional<LedgerItem> find(ItemId id);

  /** Every row of a broadcast, all axes, in row id order. Meant for checks and reports. */
  List<LedgerItem> findByBroadcast(String broadcastId);

  /**
   * Compare-and-set confirm: sets the row to {@link ItemState#CONFIRMED} with {@code checksum}
   * and {@code confirmedAt} only if it is in {@code expectedState} and its size is
   * {@code expectedSize}. Of concurrent confirms of one row exactly one returns {@code true}.
   *
   * @return whether this call confirmed the row
   */
  boolean confirm(long rowId, ItemState expectedState, long expectedSize, String checksum, Instant confirmedAt);

  /**
   * Records a failed attempt on an unconfirmed row: increments {@code attempts}, sets
   * {@code reason}, {@code lastError} and {@code nextAttemptAt}. Changes nothing if the row is
   * no longer in {@code expectedState}.
   *
   * @return whether the row was updated
   */
  boolean recordFailure(long rowId, ItemState expectedState, Reason reason, String detail, Instant nextAttemptAt);

  /**
   * Makes an unconfirmed row terminal ({@link ItemState#REJECTED} or {@link ItemState#EXCLUDED})
   * with its reason. Changes nothing if the row is no longer in {@code expectedState}.
   *
   * @return whether the row was updated
   */
  boolean markTerminal(long rowId, ItemState expectedState, ItemState terminalState, Reason reason, String detail,
      Instant at);

  /** The number of rows of {@code axis} in {@code state}. */
  long count(Axis axis, ItemState state);
}
