/**
 * Segment Ledger's {@link dev.segmentledger.core.spi.StateStore} on PostgreSQL through Jdbi 3.
 *
 * <p>The schema ships as SQL under {@code db/migration/segment-ledger} on the class path (a
 * resource directory that is not a package, hence readable by Flyway and others from any module).
 */
module dev.segmentledger.jdbi {
  requires transitive dev.segmentledger.core;
  requires transitive org.jdbi.v3.core;
  requires java.sql;

  exports dev.segmentledger.jdbi;
}
