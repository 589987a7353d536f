/**
 * Segment Ledger's {@link dev.segmentledger.core.spi.StateStore} on PostgreSQL through Jdbi 3.
 *
 * <p>The schema ships as SQL under {@code db/migration/segment-ledger} on the class path (a
 * resource directory that is not a package, hence readable by Flyway and others from any module).
 */
// Jdbi 3 is an automatic module (no module-info), and its Jdbi type appears in this module's API.
@SuppressWarnings({"requires-automatic", "requires-transitive-automatic"})
module dev.segmentledger.jdbi {
  requires transitive dev.segmentledger.core;
  requires transitive org.jdbi.v3.core;
  requires java.sql;
  requires org.slf4j;

  exports dev.segmentledger.jdbi;
}
