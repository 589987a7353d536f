package dev.segmentledger.cli;

import java.time.Instant;
import java.time.OffsetDateTime;
import java.time.ZoneOffset;
import org.jdbi.v3.core.Jdbi;

/**
 * The open rows (PENDING, WAITING) of one storage group, and how many of them are under a lease
 * still valid: what {@code storage-group} would change, read in one aggregate statement.
 *
 * @param open the group's open rows
 * @param leased those under a lease valid at the time asked, which {@code --lost} leaves alone
 */
record GroupRows(long open, long leased) {
  static GroupRows of(Jdbi jdbi, String group, Instant now) {
    return jdbi.withHandle(handle -> handle.createQuery("SELECT count(*) AS open,"
            + " count(*) FILTER (WHERE lease_until > :now) AS leased FROM segment_ledger_item"
            + " WHERE state IN ('PENDING', 'WAITING') AND storage_group = :group")
        .bind("group", group)
        .bind("now", OffsetDateTime.ofInstant(now, ZoneOffset.UTC))
        .map((rs, ctx) -> new GroupRows(rs.getLong("open"), rs.getLong("leased")))
        .one());
  }
}
