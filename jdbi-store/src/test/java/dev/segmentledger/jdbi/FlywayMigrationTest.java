package dev.segmentledger.jdbi;

import static org.junit.jupiter.api.Assertions.assertEquals;

import dev.segmentledger.testkit.PostgresExtension;
import java.util.List;
import javax.sql.DataSource;
import org.flywaydb.core.Flyway;
import org.jdbi.v3.core.Jdbi;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * The shipped migrations applied by Flyway, as docs/versions.md shows, in the schema of an
 * application that runs Flyway for its own tables too: each Flyway keeps its own history table, so
 * the application's {@code V1__...} and Segment Ledger's {@code V1__ledger_item.sql} do not
 * collide, whichever runs first.
 */
class FlywayMigrationTest {
  /**
   * The tables of other test classes' schemas, which the test classes running beside this one in
   * another fork create in the same database, are not this test's concern.
   */
  private static final String OTHER_TESTS_SCHEMAS_LEFT_OUT =
      " AND (table_schema = current_schema() OR table_schema NOT LIKE 'sl\\_test\\_%')";

  @RegisterExtension
  static final PostgresExtension PG = PostgresExtension.create();

  private Jdbi jdbi;

  @BeforeEach
  void emptySchema() {
    jdbi = Jdbi.create(PG.dataSource());
    jdbi.useHandle(handle -> handle.execute("DROP TABLE IF EXISTS segment_ledger_item, segment_ledger_broadcast, segment_ledger_playlist,"
        + " segment_ledger_playlist_part, segment_ledger_uplink_cap, segment_ledger_schema_history, app_recorder, flyway_schema_history"));
  }

  /** Segment Ledger's migrations, configured exactly as in docs/versions.md. */
  static Flyway segmentLedger(DataSource dataSource) {
    return Flyway.configure()
        .dataSource(dataSource)
        .locations("classpath:db/migration/segment-ledger")
        .table("segment_ledger_schema_history")
        .baselineOnMigrate(true)
        .baselineVersion("0")
        .load();
  }

  /** The application's own migrations, with Flyway's default history table. */
  static Flyway application(DataSource dataSource) {
    return Flyway.configure()
        .dataSource(dataSource)
        .locations("classpath:db/migration/app")
        .baselineOnMigrate(true)
        .baselineVersion("0")
        .load();
  }

  @Test
  void applicationFirstThenSegmentLedger() {
    assertEquals(1, application(PG.dataSource()).migrate().migrationsExecuted);
    assertEquals(SchemaMigrations.versions().size(), segmentLedger(PG.dataSource()).migrate().migrationsExecuted);

    assertBothApplied();
  }

  @Test
  void segmentLedgerFirstThenApplication() {
    assertEquals(SchemaMigrations.versions().size(), segmentLedger(PG.dataSource()).migrate().migrationsExecuted);
    assertEquals(1, application(PG.dataSource()).migrate().migrationsExecuted);

    assertBothApplied();
  }

  @Test
  void aSecondRunAppliesNothingAndValidates() {
    segmentLedger(PG.dataSource()).migrate();
    application(PG.dataSource()).migrate();

    assertEquals(0, segmentLedger(PG.dataSource()).migrate().migrationsExecuted);
    assertEquals(0, application(PG.dataSource()).migrate().migrationsExecuted);
    segmentLedger(PG.dataSource()).validate();
    application(PG.dataSource()).validate();
  }

  /**
   * The checksums Flyway recorded for the scripts of release candidate 1.0.0-rc.1 (V1 to V8): a
   * ledger that applied them with Flyway validates against these scripts, and Flyway's
   * {@code validateOnMigrate} lets its next migration run. V2, V6 and V8 were rewritten since (their
   * CHECKs are added NOT VALID, V10 validates them); each ends with a comment line that keeps
   * Flyway's checksum (a CRC32 of the script's lines) that of the script released.
   */
  @Test
  void theScriptsOfTheReleaseCandidateKeepTheChecksumsFlywayRecordedForThem() {
    segmentLedger(PG.dataSource()).migrate();

    assertEquals(List.of("1:970255131", "2:461950110", "3:-259982528", "4:1581945968", "5:1476561526",
            "6:-1014659391", "7:-349746164", "8:-169944561"),
        jdbi.withHandle(handle -> handle.createQuery("SELECT version || ':' || checksum"
                + " FROM segment_ledger_schema_history WHERE version::int BETWEEN 1 AND 8 ORDER BY installed_rank")
            .mapTo(String.class).list()));
  }

  private void assertBothApplied() {
    assertEquals(List.of("1:ledger item", "2:file identity and abandoned attempts", "3:operations queries",
            "4:playlists", "5:retention and distribution", "6:original format and recording time",
            "7:storage groups", "8:attempt evidence", "9:trace context", "10:validate checks",
            "11:failures per reason", "12:long broadcasts", "13:recorder disk",
            "14:recorder disk indexes", "15:validate playlist checks", "16:playlist part totals",
            "17:playlist etags", "18:lane hints", "19:uplink caps"),
        history("segment_ledger_schema_history"));
    assertEquals(List.of("1:app recorder"), history("flyway_schema_history"));
    assertEquals(List.of(PG.schema(), PG.schema(), PG.schema()), jdbi.withHandle(handle -> handle.createQuery(
            "SELECT table_schema FROM information_schema.tables"
                + " WHERE table_name IN ('segment_ledger_item', 'segment_ledger_broadcast', 'app_recorder')"
                + OTHER_TESTS_SCHEMAS_LEFT_OUT)
        .mapTo(String.class).list()));
    long rows = jdbi.withHandle(handle -> handle.createQuery("SELECT count(*) FROM segment_ledger_item")
        .mapTo(Long.class).one());
    assertEquals(0, rows);
  }

  /** The applied versioned migrations of one history table, as "version:description". */
  private List<String> history(String table) {
    return jdbi.withHandle(handle -> handle.createQuery("SELECT version || ':' || description FROM " + table
            + " WHERE success AND version IS NOT NULL AND type = 'SQL' ORDER BY installed_rank")
        .mapTo(String.class).list());
  }
}
