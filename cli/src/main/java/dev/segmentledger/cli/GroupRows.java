package dev.segmentledger.cli;

import org.jdbi.v3.core.Jdbi;

/**
 * The open rows (PENDING, WAITING) of one storage group, and how many of them are under a lease
 * still valid: what {@code storage-group} would change, read in one aggregate statement. A lease is
 * judged by the database's clock, as the store judges it ({@code markStorageLost}), never by this
 * machine's.
 *
 * @param open the group's open rows
 * @param leased those under a lease valid now by the database's clock, which {@code --lost} leaves alone
 */
record GroupRows(long open, long leased) {
  static GroupRows of(Jdbi jdbi, String group) {
    return jdbi.withHandle(handle -> handle.createQuery("SELECT count(*) AS open,"
            + " count(*) FILTER (WHERE lease_until > statement_timestamp()) AS leased FROM segment_ledger_item"
            + " WHERE state IN ('PENDING', 'WAITING') AND storage_group = :group")
        .bind("group", group)
        .map((rs, ctx) -> new GroupRows(rs.getLong("open"), rs.getLong("leased")))
        .one());
  }
}
