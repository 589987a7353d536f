package dev.segmentledger.jdbi;

import static dev.segmentledger.jdbi.Sql.NO_LEASE;
import static dev.segmentledger.jdbi.Sql.TABLE;
import static dev.segmentledger.jdbi.Sql.epochMicros;
import static dev.segmentledger.jdbi.Sql.micros;
import static dev.segmentledger.jdbi.Sql.updatedOne;

import dev.segmentledger.core.spi.Claim;
import dev.segmentledger.core.spi.ClaimedRow;
import dev.segmentledger.core.spi.LeaseRenewal;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Types;
import java.time.Duration;
import java.time.Instant;
import java.time.OffsetDateTime;
import java.time.ZoneOffset;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;
import org.jdbi.v3.core.Jdbi;

/**
 * The leases part of {@link JdbiStateStore}: {@code claim}, {@code renew}, {@code renewAll},
 * {@code release} and {@code releaseAllOf}; {@code claimFor} and {@code renewAllFor} judge expiry,
 * and compute the new lease ends, by the database's clock ({@code statement_timestamp()}) instead of
 * the instants the caller gives. A lease is two columns, {@code lease_owner} and {@code lease_until}, folded
 * into {@code next_attempt_at}, so the sweep page needs no condition of its own for it. Each call is
 * one conditional statement (a batch of renewals: with its plan setting, in one transaction). Stateless over its {@link Jdbi} (each call runs on a handle of its
 * own); thread-safe.
 */
final class Leases {
  private static final String CLAIM = Sql.load("claim.sql");
  private static final String RENEW_ALL = Sql.load("renew-batch.sql");
  private static final LedgerItemMapper ROWS = new LedgerItemMapper();

  /**
   * {@link #CLAIM} committed without waiting for its WAL flush ({@code synchronous_commit = off} for
   * its own transaction, set in the same round trip): a lease guards nothing (the confirm is a
   * compare-and-set whoever holds it), and the claim is visible to every other session as soon as
   * it returns, and flushed by the WAL writer within a fraction of a second, or by the next durable
   * commit on the server (every confirm is one). Only a crash of PostgreSQL itself in between can
   * lose it, and with it at most one increment of an abandoned-attempts count; a process of this
   * library that dies does not. Per swept row this saves the wait for a disk flush (design, "Many
   * nodes: leases"); registrations and confirms stay durable.
   */
  private static final PlainStatement CLAIM_PLAIN = PlainStatement.of(
      "SELECT set_config('synchronous_commit', 'off', true); " + CLAIM);
  private static final PlainStatement CLAIM_IN_TRANSACTION = PlainStatement.of(CLAIM);

  /**
   * {@link #CLAIM} judged by the database's clock: the row is due if its {@code next_attempt_at} has
   * passed by the statement's own time, and the new lease ends {@code :leaseMicros} after it.
   */
  private static final String CLAIM_BY_DATABASE_CLOCK = CLAIM.replaceAll(":now\\b", "statement_timestamp()")
      .replaceAll(":until\\b", "(statement_timestamp() + :leaseMicros * interval '1 microsecond')");
  private static final PlainStatement CLAIM_BY_DATABASE_CLOCK_PLAIN = PlainStatement.of(
      "SELECT set_config('synchronous_commit', 'off', true); " + CLAIM_BY_DATABASE_CLOCK);
  private static final PlainStatement CLAIM_BY_DATABASE_CLOCK_IN_TRANSACTION =
      PlainStatement.of(CLAIM_BY_DATABASE_CLOCK);

  /** The end of a lease in {@link #RENEW_ALL}, and as the database's clock computes it instead. */
  private static final String LEASE_END_GIVEN = "(timestamptz 'epoch' + v.until_us * interval '1 microsecond')";
  private static final String LEASE_END_BY_DATABASE_CLOCK = "(statement_timestamp() + v.until_us * interval '1 microsecond')";

  /**
   * {@link #RENEW_ALL} judged by the database's clock: the {@code untils} are lease durations, and
   * each lease ends that long after the statement's own time; returns each row's new lease end.
   */
  private static final String RENEW_ALL_BY_DATABASE_CLOCK = requireContains(RENEW_ALL, LEASE_END_GIVEN)
      .replace(LEASE_END_GIVEN, LEASE_END_BY_DATABASE_CLOCK)
      .replace("RETURNING t.id", "RETURNING t.id, t.lease_until");

  private final Jdbi jdbi;

  Leases(Jdbi jdbi) {
    this.jdbi = Objects.requireNonNull(jdbi, "jdbi");
  }

  /**
   * One statement ({@code claim.sql}): the row is locked ({@code FOR UPDATE}), which serializes
   * racing claims (the loser re-evaluates the condition against the winner's row, which is no
   * longer due), and the conditional {@code UPDATE} reads the lease it replaces from that locked row.
   */
  ClaimedRow claim(long rowId, String owner, Instant leaseUntil, Instant now) {
    Objects.requireNonNull(leaseUntil, "leaseUntil");
    Objects.requireNonNull(now, "now");
    return claim(rowId, owner, false, claim -> claim
        .set("until", micros(leaseUntil).atOffset(ZoneOffset.UTC), Types.TIMESTAMP_WITH_TIMEZONE)
        .set("now", micros(now).atOffset(ZoneOffset.UTC), Types.TIMESTAMP_WITH_TIMEZONE));
  }

  /** {@link #claim}, judged by the database's clock: the lease ends {@code lease} after its now. */
  ClaimedRow claimFor(long rowId, String owner, Duration lease) {
    Objects.requireNonNull(lease, "lease");
    long leaseMicros = TimeUnit.NANOSECONDS.toMicros(lease.toNanos());
    return claim(rowId, owner, true, claim -> claim.set("leaseMicros", leaseMicros));
  }

  /** Binds the instants (or the duration) of a claim. */
  private interface ClaimTimes {
    void bind(PlainStatement.Bound claim) throws SQLException;
  }

  private ClaimedRow claim(long rowId, String owner, boolean byDatabaseClock, ClaimTimes times) {
    Objects.requireNonNull(owner, "owner");
    return jdbi.withHandle(handle -> {
      // Inside a transaction the caller holds (a handle Jdbi reuses on this thread), the setting
      // would make the caller's whole commit asynchronous: then the claim is a statement of it.
      boolean ownTransaction = !handle.isInTransaction();
      PlainStatement statement = byDatabaseClock
          ? (ownTransaction ? CLAIM_BY_DATABASE_CLOCK_PLAIN : CLAIM_BY_DATABASE_CLOCK_IN_TRANSACTION)
          : (ownTransaction ? CLAIM_PLAIN : CLAIM_IN_TRANSACTION);
      try (PlainStatement.Bound claim = statement.prepare(handle.getConnection())) {
        claim.set("owner", owner).set("id", rowId);
        times.bind(claim);
        try (ResultSet rs = ownTransaction ? Confirmations.resultOfSecond(claim.statement())
            : claim.statement().executeQuery()) {
          return rs.next() ? new ClaimedRow(Claim.held(rs.getBoolean("abandoned"), rs.getInt("abandoned_attempts"),
              rs.getInt("blamed_attempts")),
              ROWS.map(rs, null)) : ClaimedRow.REFUSED;
        }
      } catch (SQLException e) {
        throw new SqlFailure(e);
      }
    });
  }

  boolean renew(long rowId, String owner, Instant heldUntil, Instant leaseUntil) {
    Objects.requireNonNull(owner, "owner");
    Objects.requireNonNull(heldUntil, "heldUntil");
    Objects.requireNonNull(leaseUntil, "leaseUntil");
    return updatedOne(jdbi.withHandle(handle -> handle.createUpdate("UPDATE " + TABLE
            + " SET lease_until = :until, next_attempt_at = :until, lease_attempt = true,"
            + " lease_stored_from = CASE WHEN lease_attempt THEN lease_stored_from ELSE stored_bytes END"
            + " WHERE id = :id AND state = 'PENDING' AND lease_owner = :owner AND lease_until = :heldUntil")
        .bind("owner", owner)
        .bind("heldUntil", micros(heldUntil))
        .bind("until", micros(leaseUntil))
        .bind("id", rowId)
        .execute()));
  }

  /**
   * A single renewal is a {@link #renew} (or nothing, for one that does not cover an attempt: see
   * below). A batch is one transaction planned for its arrays ({@link Sql#planForTheseArrays}) with
   * one conditional {@code UPDATE ... FROM unnest(...)} ({@code renew-batch.sql}) whose join carries
   * each row's held lease, its rows in row-id order ({@link Deadlocks#inRowOrder}). A transaction
   * PostgreSQL aborts as a deadlock victim is run again.
   */
  boolean[] renewAll(String owner, List<LeaseRenewal> renewals) {
    Instant[] ends = renewAll(owner, renewals, null);
    boolean[] results = new boolean[ends.length];
    for (int i = 0; i < ends.length; i++) {
      results[i] = ends[i] != null;
    }
    return results;
  }

  /**
   * {@link #renewAll} judged by the database's clock when {@code now} is given: each lease then ends
   * {@code leaseUntil - now} after the statement's time. Returns each renewal's new lease end, or
   * {@code null} if it was not renewed.
   */
  Instant[] renewAll(String owner, List<LeaseRenewal> renewals, Instant now) {
    Objects.requireNonNull(owner, "owner");
    Objects.requireNonNull(renewals, "renewals");
    Instant[] results = new Instant[renewals.size()];
    if (renewals.isEmpty()) {
      return results;
    }
    int n = renewals.size();
    Long[] ids = new Long[n];
    String[] broadcastIds = new String[n];
    Long[] helds = new Long[n];
    Long[] untils = new Long[n];
    Boolean[] attempts = new Boolean[n];
    Long[] storeds = new Long[n];
    Boolean[] isolateds = new Boolean[n];
    List<LeaseRenewal> ordered = Deadlocks.inRowOrder(renewals, LeaseRenewal::rowId);
    for (int i = 0; i < n; i++) {
      LeaseRenewal r = ordered.get(i);
      ids[i] = r.rowId();
      broadcastIds[i] = r.broadcastId();
      helds[i] = epochMicros(r.heldUntil());
      untils[i] = now == null ? epochMicros(r.leaseUntil())
          : Math.max(0, epochMicros(r.leaseUntil()) - epochMicros(now)); // a duration: see RENEW_ALL_BY_DATABASE_CLOCK
      attempts[i] = r.attempt();
      storeds[i] = r.storedBytes();
      isolateds[i] = r.isolated();
    }
    Map<Long, Instant> renewed = Deadlocks.retry(() -> jdbi.inTransaction(handle -> {
      if (n > 1) {
        Sql.planForTheseArrays(handle);
      }
      return handle.createQuery(now == null ? RENEW_ALL : RENEW_ALL_BY_DATABASE_CLOCK)
          .bind("owner", owner)
          .bindArray("ids", Long.class, (Object[]) ids)
          .bindArray("broadcastIds", String.class, (Object[]) broadcastIds)
          .bindArray("helds", Long.class, (Object[]) helds)
          .bindArray("untils", Long.class, (Object[]) untils)
          .bindArray("attempts", Boolean.class, (Object[]) attempts)
          .bindArray("storeds", Long.class, (Object[]) storeds)
          .bindArray("isolateds", Boolean.class, (Object[]) isolateds)
          .map((rs, ctx) -> Map.entry(rs.getLong(1), now == null ? Instant.EPOCH
              : rs.getObject(2, OffsetDateTime.class).toInstant()))
          .collect(Collectors.toMap(Map.Entry::getKey, Map.Entry::getValue, (a, b) -> a, HashMap::new));
    }));
    for (int i = 0; i < n; i++) {
      LeaseRenewal renewal = renewals.get(i);
      Instant end = renewed.remove(renewal.rowId());
      results[i] = end == null ? null : now == null ? micros(renewal.leaseUntil()) : end;
    }
    return results;
  }

  /** The database's clock now. */
  Instant currentTime() {
    return jdbi.withHandle(handle -> handle.createQuery("SELECT clock_timestamp()")
        .mapTo(OffsetDateTime.class).one().toInstant());
  }

  private static String requireContains(String sql, String part) {
    if (!sql.contains(part)) {
      throw new IllegalStateException("renew-batch.sql no longer computes a lease end as " + part);
    }
    return sql;
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
