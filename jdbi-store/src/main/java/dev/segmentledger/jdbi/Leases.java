package dev.segmentledger.jdbi;

import static dev.segmentledger.jdbi.Sql.NO_LEASE;
import static dev.segmentledger.jdbi.Sql.TABLE;
import static dev.segmentledger.jdbi.Sql.micros;
import static dev.segmentledger.jdbi.Sql.updatedOne;

import dev.segmentledger.core.spi.Claim;
import java.time.Instant;
import java.util.Objects;
import org.jdbi.v3.core.Jdbi;

/**
 * The leases part of {@link JdbiStateStore}: {@code claim}, {@code renew}, {@code release} and
 * {@code releaseAllOf}. A lease is two columns, {@code lease_owner} and {@code lease_until}, folded
 * into {@code next_attempt_at}, so the sweep page needs no condition of its own for it. Each call is
 * one conditional statement. Stateless over its {@link Jdbi} (each call runs on a handle of its
 * own); thread-safe.
 */
final class Leases {
  private static final String CLAIM = Sql.load("claim.sql");

  private final Jdbi jdbi;

  Leases(Jdbi jdbi) {
    this.jdbi = Objects.requireNonNull(jdbi, "jdbi");
  }

  /**
   * One statement ({@code claim.sql}): the row is locked ({@code FOR UPDATE}), which serializes
   * racing claims (the loser re-evaluates the condition against the winner's row, which is no
   * longer due), and the conditional {@code UPDATE} reads the lease it replaces from that locked row.
   */
  Claim claim(long rowId, String owner, Instant leaseUntil, Instant now) {
    Objects.requireNonNull(owner, "owner");
    Objects.requireNonNull(leaseUntil, "leaseUntil");
    Objects.requireNonNull(now, "now");
    return jdbi.withHandle(handle -> handle.createQuery(CLAIM)
        .bind("owner", owner)
        .bind("until", micros(leaseUntil))
        .bind("now", micros(now))
        .bind("id", rowId)
        .map((rs, ctx) -> Claim.held(rs.getBoolean("abandoned"), rs.getInt("abandoned_attempts")))
        .findOne()
        .orElse(Claim.REFUSED));
  }

  boolean renew(long rowId, String owner, Instant heldUntil, Instant leaseUntil) {
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

  boolean release(long rowId, String owner, Instant dueAt) {
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

  /** The leases keep their owner and end at {@code dueAt}, so the next claim counts them. */
  int releaseAllOf(String owner, Instant dueAt) {
    Objects.requireNonNull(owner, "owner");
    Objects.requireNonNull(dueAt, "dueAt");
    return jdbi.withHandle(handle -> handle.createUpdate("UPDATE " + TABLE
            + " SET lease_until = :dueAt, next_attempt_at = :dueAt"
            + " WHERE lease_owner = :owner AND state = 'PENDING' AND lease_until > :dueAt")
        .bind("owner", owner)
        .bind("dueAt", micros(dueAt))
        .execute());
  }
}
