package dev.segmentledger.jdbi;

import static dev.segmentledger.jdbi.Sql.NO_LEASE;
import static dev.segmentledger.jdbi.Sql.TABLE;
import static dev.segmentledger.jdbi.Sql.micros;
import static dev.segmentledger.jdbi.Sql.updatedOne;

import dev.segmentledger.core.ItemState;
import dev.segmentledger.core.Reason;
import java.time.Duration;
import java.time.Instant;
import java.util.Objects;
import java.util.function.UnaryOperator;
import org.jdbi.v3.core.Handle;
import org.jdbi.v3.core.Jdbi;
import org.jdbi.v3.core.statement.Query;
import org.jdbi.v3.core.statement.Update;

/**
 * The transitions part of {@link JdbiStateStore}, other than confirmations ({@link Confirmations})
 * and leases ({@link Leases}): {@code recordFailure}, {@code markTerminal}, {@code reopen},
 * {@code recordProduced} and {@code excludeRegisteredBefore}. Each of the first four is one
 * compare-and-set ({@link #compareAndSet}): an {@code UPDATE} whose {@code WHERE} clause carries
 * the expected state, so of racing updates exactly one succeeds. Stateless over its {@link Jdbi}
 * (each call runs on a handle of its own); thread-safe.
 */
final class Transitions {
  /** The row carries no lease, or the caller's ({@code :leaseOwner}): a taken-over holder changes nothing. */
  private static final String HELD_BY_CALLER = " AND (lease_owner IS NULL OR lease_owner = :leaseOwner)";

  /**
   * The row carries no lease still valid (none, or one that has run out) by the database's clock: the
   * one the lease ends are written by ({@link Leases}), so a caller whose clock runs ahead takes no
   * live lease for one that has run out.
   */
  private static final String NO_LIVE_LEASE_BY_DATABASE_CLOCK =
      " AND (lease_until IS NULL OR lease_until <= statement_timestamp())";
  /** Counts a failure among its reason's, for the reasons the ledger caps (V11); binds {@code :reason}. */
  private static final String COUNT_REASON = "internal_errors = internal_errors"
      + " + CASE WHEN :reason = 'INTERNAL_ERROR' THEN 1 ELSE 0 END, repackage_failures = repackage_failures"
      + " + CASE WHEN :reason = 'REPACKAGE_FAILED' THEN 1 ELSE 0 END";

  /**
   * Opens a statement with the CTE {@code picked}: the rows a bounded, locking subquery chose, read
   * once. A subquery in {@code WHERE id IN (...)} may be run again for each outer row under a nested
   * loop plan; each run skips the rows the statement itself already changed and picks further ones,
   * so "up to :limit" changed more. The caller appends the SELECT and its closing parenthesis.
   */
  static final String PICKED = "WITH picked AS MATERIALIZED (";
  private static final String EXCLUDE_REGISTERED_BEFORE = Sql.load("exclude-registered-before.sql");

  private final Jdbi jdbi;

  Transitions(Jdbi jdbi) {
    this.jdbi = Objects.requireNonNull(jdbi, "jdbi");
  }

  boolean recordFailure(long rowId, ItemState expectedState, String leaseOwner, Reason reason, String detail,
      Instant nextAttemptAt) {
    requireUnconfirmed(expectedState);
    Objects.requireNonNull(leaseOwner, "leaseOwner");
    Objects.requireNonNull(reason, "reason");
    Objects.requireNonNull(nextAttemptAt, "nextAttemptAt");
    return endAttempt(rowId, expectedState, leaseOwner, reason, detail,
        "attempts = attempts + 1, next_attempt_at = :nextAttemptAt, " + COUNT_REASON,
        update -> update.bind("nextAttemptAt", micros(nextAttemptAt)));
  }

  boolean markTerminal(long rowId, ItemState expectedState, String leaseOwner, ItemState terminalState,
      Reason reason, String detail, Instant at) {
    requireUnconfirmed(expectedState);
    Objects.requireNonNull(leaseOwner, "leaseOwner");
    if (terminalState != ItemState.REJECTED && terminalState != ItemState.EXCLUDED) {
      throw new IllegalArgumentException("terminalState must be REJECTED or EXCLUDED, got " + terminalState);
    }
    Objects.requireNonNull(reason, "reason");
    Objects.requireNonNull(at, "at");
    return compareAndSetAlteringPlaylists(rowId, expectedState,
        "state = :terminalState, terminal_at = :at, reason = :reason, last_error = :detail, " + COUNT_REASON + ", "
            + NO_LEASE,
        HELD_BY_CALLER, at,
        query -> query
            .bind("leaseOwner", leaseOwner)
            .bind("reason", reason.name())
            .bind("detail", detail)
            .bind("terminalState", terminalState.name())
            .bind("at", micros(at)));
  }

  /**
   * The outcome of the caller's attempt on a row, as a compare-and-set on the expected state and on
   * the lease holder ({@link #HELD_BY_CALLER}): sets {@code assignments} (whose other named values
   * {@code binds} binds), the reason and detail ({@code last_error}), and ends the lease
   * ({@link Sql#NO_LEASE}). Returns whether it changed the row.
   */
  private boolean endAttempt(long rowId, ItemState expectedState, String leaseOwner, Reason reason, String detail,
      String assignments, UnaryOperator<Update> binds) {
    return compareAndSet(rowId, expectedState,
        assignments + ", reason = :reason, last_error = :detail, " + NO_LEASE, HELD_BY_CALLER,
        update -> binds.apply(update
            .bind("leaseOwner", leaseOwner)
            .bind("reason", reason.name())
            .bind("detail", detail)));
  }

  /**
   * One conditional {@code UPDATE ... WHERE id = :id AND state = :expectedState} that increments the
   * row's playlists, then, in the same transaction, a delete of the sealed playlist part covering a
   * re-opened PLAYBACK row ({@link PlaylistParts#UNSEAL_REOPENED}). The delete is a statement of its
   * own, after the increment has locked the media playlist's record: it sees a part that a seal
   * holding that lock stored meanwhile (see {@link PlaylistParts}).
   */
  boolean reopen(long rowId, ItemState expectedState, Reason reason, String detail, Instant at) {
    Objects.requireNonNull(expectedState, "expectedState");
    if (!expectedState.isTerminal()) {
      throw new IllegalArgumentException("expectedState must be terminal (CONFIRMED, REJECTED or EXCLUDED), got "
          + expectedState);
    }
    Objects.requireNonNull(reason, "reason");
    Objects.requireNonNull(at, "at");
    return jdbi.inTransaction(handle -> {
      boolean reopened = compareAndSetAlteringPlaylists(handle, rowId, expectedState,
          "state = 'PENDING', reason = :reason, last_error = :detail, next_attempt_at = :at,"
              + " confirmed_at = NULL, checksum = NULL, attempts = 0, abandoned_attempts = 0, blamed_attempts = 0,"
              + " internal_errors = 0, repackage_failures = 0, stored_bytes = 0, lease_stored_from = 0, lease_isolated = false,"
              + " local_file_done_at = NULL,"
              + " file_identity = CASE WHEN reason = 'FILE_CHANGED' THEN NULL ELSE file_identity END", "", at,
          query -> query
              .bind("reason", reason.name())
              .bind("detail", detail)
              .bind("at", micros(at)));
      if (reopened) {
        handle.createUpdate(PlaylistParts.UNSEAL_REOPENED).bind("id", rowId).execute();
      }
      return reopened;
    });
  }

  /** The row's failures with {@code reason}, for the reasons counted per reason (V11); -1 for the others. */
  int failuresWith(long rowId, Reason reason) {
    Objects.requireNonNull(reason, "reason");
    String column = switch (reason) {
      case INTERNAL_ERROR -> "internal_errors";
      case REPACKAGE_FAILED -> "repackage_failures";
      default -> null;
    };
    if (column == null) {
      return -1;
    }
    return jdbi.withHandle(handle -> handle.createQuery("SELECT " + column + " FROM " + TABLE + " WHERE id = :id")
        .bind("id", rowId)
        .mapTo(Integer.class)
        .findOne()
        .orElse(0));
  }

  boolean recordProduced(long rowId, ItemState expectedState, long expectedSize, String sourcePath,
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

  /** One update of the rows a locking subquery picks ({@code exclude-registered-before.sql}). */
  int excludeRegisteredBefore(Instant threshold, Instant at, int limit) {
    Objects.requireNonNull(threshold, "threshold");
    Objects.requireNonNull(at, "at");
    if (limit <= 0) {
      throw new IllegalArgumentException("limit must be > 0, got " + limit);
    }
    return jdbi.withHandle(handle -> handle.createQuery("WITH changed AS (" + EXCLUDE_REGISTERED_BEFORE
            + " RETURNING broadcast_id, rendition, axis)" + Playlists.BUMP + " SELECT count(*) FROM changed")
        .bind("at", micros(at))
        .bind("bumpAt", micros(at))
        .bind("threshold", micros(threshold))
        .bind("thresholdText", micros(threshold).toString())
        .bind("limit", limit)
        .mapTo(Integer.class)
        .one());
  }

  /**
   * Re-assigns up to {@code limit} unconfirmed rows of {@code fromGroup} to {@code toGroup}: one
   * update of the rows a locking subquery picks (it waits for a row's concurrent claim or confirm
   * rather than skipping it, so that a call returning 0 left no open row of the group behind).
   */
  int handOver(String fromGroup, String toGroup, int limit) {
    requirePositive(limit);
    return jdbi.withHandle(handle -> handle.createUpdate(PICKED + "SELECT id FROM " + TABLE
            + " WHERE state IN ('PENDING', 'WAITING') AND " + ofGroup(fromGroup) + " LIMIT :limit FOR UPDATE)"
            + " UPDATE " + TABLE + " SET storage_group = :toGroup WHERE id IN (SELECT id FROM picked)"
            + " AND state IN ('PENDING', 'WAITING') AND " + ofGroup(fromGroup))
        .bind("fromGroup", fromGroup)
        .bind("toGroup", toGroup)
        .bind("limit", limit)
        .execute());
  }

  /**
   * Rejects up to {@code limit} unconfirmed rows of {@code group} with {@code STORAGE_LOST}, ending
   * their expired leases, and bumps the playlists they belong to, in one statement. A row under a
   * lease still valid by the database's clock is left alone, in the locking read and again on the
   * locked row; {@code at} is only the rows' terminal time.
   */
  int markStorageLost(String group, String detail, Instant at, int limit) {
    Objects.requireNonNull(group, "group");
    Objects.requireNonNull(at, "at");
    requirePositive(limit);
    return jdbi.withHandle(handle -> handle.createQuery(PICKED + "SELECT id FROM " + TABLE
            + " WHERE state IN ('PENDING', 'WAITING') AND storage_group = :fromGroup" + NO_LIVE_LEASE_BY_DATABASE_CLOCK
            + " LIMIT :limit FOR UPDATE), changed AS (UPDATE " + TABLE
            + " SET state = 'REJECTED', reason = 'STORAGE_LOST', last_error = :detail, terminal_at = :at, "
            + NO_LEASE + " WHERE id IN (SELECT id FROM picked)"
            + " AND state IN ('PENDING', 'WAITING') AND storage_group = :fromGroup" + NO_LIVE_LEASE_BY_DATABASE_CLOCK
            + " RETURNING broadcast_id, rendition, axis)" + Playlists.BUMP + " SELECT count(*) FROM changed")
        .bind("fromGroup", group)
        .bind("detail", detail)
        .bind("at", micros(at))
        .bind("bumpAt", micros(at))
        .bind("limit", limit)
        .mapTo(Integer.class)
        .one());
  }

  /** The condition "the row is of {@code :fromGroup}", for a group or for none ({@code null}). */
  private static String ofGroup(String group) {
    return group == null ? "storage_group IS NULL" : "storage_group = :fromGroup";
  }

  private static void requirePositive(int limit) {
    if (limit <= 0) {
      throw new IllegalArgumentException("limit must be > 0, got " + limit);
    }
  }

  private static void requireUnconfirmed(ItemState expectedState) {
    Objects.requireNonNull(expectedState, "expectedState");
    if (expectedState.isTerminal()) {
      throw new IllegalArgumentException("expectedState must be an unconfirmed state (PENDING or WAITING), got "
          + expectedState);
    }
  }

  /**
   * A {@link #compareAndSet} that alters playlists: in the same statement, it increments the
   * playlists the changed row belongs to ({@link Playlists#BUMP}), so a publisher sees the change.
   */
  private boolean compareAndSetAlteringPlaylists(long rowId, ItemState expectedState, String assignments,
      String condition, Instant at, UnaryOperator<Query> binds) {
    return jdbi.withHandle(handle -> compareAndSetAlteringPlaylists(handle, rowId, expectedState, assignments,
        condition, at, binds));
  }

  /** {@link #compareAndSetAlteringPlaylists(long, ItemState, String, String, Instant, UnaryOperator)} on {@code handle}. */
  private static boolean compareAndSetAlteringPlaylists(Handle handle, long rowId, ItemState expectedState,
      String assignments, String condition, Instant at, UnaryOperator<Query> binds) {
    return binds.apply(handle.createQuery("WITH changed AS (UPDATE " + TABLE
            + " SET " + assignments + " WHERE id = :id AND state = :expectedState" + condition
            + " RETURNING broadcast_id, rendition, axis)" + Playlists.BUMP + " SELECT count(*) FROM changed"))
        .bind("id", rowId)
        .bind("expectedState", expectedState.name())
        .bind("bumpAt", micros(at))
        .mapTo(Integer.class)
        .one() == 1;
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
}
