package dev.segmentledger.jdbi;

import static dev.segmentledger.jdbi.Sql.BROADCASTS;
import static dev.segmentledger.jdbi.Sql.TABLE;
import static dev.segmentledger.jdbi.Sql.micros;

import dev.segmentledger.core.spi.Purged;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import org.jdbi.v3.core.Handle;
import org.jdbi.v3.core.Jdbi;

/**
 * The retention part of {@link JdbiStateStore}: {@code purge}, batched deletes by broadcast. One
 * call is one transaction that deletes at most {@code maxRows} rows: it takes the oldest complete
 * broadcast that ended before the cutoff ({@code purge-candidate.sql}, locked {@code FOR UPDATE SKIP
 * LOCKED}), deletes its terminal rows in identity order ({@code purge-rows.sql}) and, once none is
 * left, stamps the broadcast record {@code purged_at} (the tombstone) and deletes the broadcast's
 * sealed playlist parts ({@link PlaylistParts#deleteOf}); then the next broadcast,
 * until the budget is spent or no candidate is left. Stateless over its {@link Jdbi}; thread-safe.
 *
 * <p>Why batched deletes and not partitions dropped by time: see docs/running-for-months.md ("Why
 * batched deletes, not partitions") and benchmarks/results/retention.md. In short, a row's lifetime depends on its broadcast (complete or
 * not), not on its registration time, so a time partition could only be dropped once every
 * broadcast with a row in it is complete; and partitioning would put the partition key into every
 * unique constraint, including the identity that registration relies on.
 */
final class Retention {
  private static final String CANDIDATE = Sql.load("purge-candidate.sql");
  private static final String DELETE_ROWS = Sql.load("purge-rows.sql");
  private static final String ANY_ROW_LEFT = "SELECT EXISTS (SELECT 1 FROM " + TABLE
      + " WHERE broadcast_id = :broadcastId)";
  /** The database's transaction time: informational only, no decision reads it. */
  private static final String STAMP_PURGED = "UPDATE " + BROADCASTS
      + " SET purged_at = now() WHERE broadcast_id = :broadcastId AND purged_at IS NULL";

  private final Jdbi jdbi;

  Retention(Jdbi jdbi) {
    this.jdbi = Objects.requireNonNull(jdbi, "jdbi");
  }

  Purged purge(Instant completedBefore, int maxRows) {
    Objects.requireNonNull(completedBefore, "completedBefore");
    if (maxRows <= 0) {
      throw new IllegalArgumentException("maxRows must be > 0, got " + maxRows);
    }
    Instant cutoff = micros(completedBefore);
    return jdbi.inTransaction(handle -> {
      long deleted = 0;
      List<String> emptied = new ArrayList<>();
      while (deleted < maxRows) {
        Optional<String> candidate = handle.createQuery(CANDIDATE)
            .bind("completedBefore", cutoff)
            .mapTo(String.class)
            .findOne();
        if (candidate.isEmpty()) {
          break;
        }
        String broadcastId = candidate.get();
        int budget = (int) (maxRows - deleted);
        int rows = handle.createUpdate(DELETE_ROWS)
            .bind("broadcastId", broadcastId)
            .bind("limit", budget)
            .execute();
        deleted += rows;
        if (rows == budget) {
          break; // budget spent; the next call goes on with this broadcast
        }
        if (anyRowLeft(handle, broadcastId)) {
          break; // a row was re-opened meanwhile: the broadcast is not complete; nothing more this call
        }
        handle.createUpdate(STAMP_PURGED).bind("broadcastId", broadcastId).execute();
        PlaylistParts.deleteOf(handle, broadcastId); // they render rows that are gone
        emptied.add(broadcastId);
      }
      return new Purged(deleted, emptied);
    });
  }

  private static boolean anyRowLeft(Handle handle, String broadcastId) {
    return handle.createQuery(ANY_ROW_LEFT).bind("broadcastId", broadcastId).mapTo(Boolean.class).one();
  }
}
