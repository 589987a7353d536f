package dev.segmentledger.jdbi;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.segmentledger.core.ItemId;
import dev.segmentledger.core.LedgerItem;
import dev.segmentledger.core.MediaFormat;
import dev.segmentledger.core.spi.NewItem;
import dev.segmentledger.testkit.PostgresExtension;
import java.sql.Connection;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.jdbi.v3.core.Jdbi;
import org.jdbi.v3.core.statement.SqlLogger;
import org.jdbi.v3.core.statement.SqlStatements;
import org.jdbi.v3.core.statement.StatementContext;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

class SchemaMigrationsTest {
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
    jdbi.useHandle(handle -> handle.execute("DROP TABLE IF EXISTS segment_ledger_item, segment_ledger_broadcast, segment_ledger_playlist, segment_ledger_playlist_part, segment_ledger_uplink_cap, segment_ledger_schema_version"));
  }

  /** Every version shipped, in order. */
  private static final List<Integer> ALL_VERSIONS = SchemaMigrations.versions();

  @Test
  void migrateAppliesEveryVersionOnceAndRecordsIt() {
    assertEquals(ALL_VERSIONS, SchemaMigrations.migrate(jdbi));
    assertEquals(List.of(), SchemaMigrations.migrate(jdbi), "second run is a no-op");

    assertEquals(ALL_VERSIONS, jdbi.withHandle(handle -> handle
        .createQuery("SELECT version FROM segment_ledger_schema_version ORDER BY version").mapTo(Integer.class).list()));
    long rows = jdbi.withHandle(handle -> handle.createQuery("SELECT count(*) FROM segment_ledger_item")
        .mapTo(Long.class).one());
    assertEquals(0, rows);
  }

  @Test
  void anErrorWhileMigratingReleasesTheMigrationLockOfAConnectionThatLivesOn() throws Exception {
    try (Connection pooled = PG.dataSource().getConnection()) { // as a pool keeps it after the error
      Jdbi onPooled = Jdbi.create(pooled);
      onPooled.getConfig(SqlStatements.class).setSqlLogger(new SqlLogger() {
        @Override
        public void logBeforeExecution(StatementContext context) {
          if (context.getRawSql().contains("CREATE TABLE IF NOT EXISTS segment_ledger_schema_version")) {
            throw new AssertionError("injected: an Error while the migration lock is held");
          }
        }
      });
      assertThrows(AssertionError.class, () -> SchemaMigrations.migrate(onPooled));

      long held = Jdbi.create(pooled).withHandle(handle -> handle.createQuery("SELECT count(*) FROM pg_locks"
          + " WHERE locktype = 'advisory' AND pid = pg_backend_pid()").mapTo(Long.class).one());
      assertEquals(0, held, "the connection still holds the migration lock: every later migrate waits forever");
    }
  }

  @Test
  void aLedgerOfTheFirstVersionIsUpgradedWithItsRows() {
    jdbi.useHandle(handle -> {
      handle.execute("CREATE TABLE segment_ledger_schema_version ("
          + " version integer PRIMARY KEY, script text NOT NULL, applied_at timestamptz NOT NULL DEFAULT now())");
      handle.createScript(resource("V1__ledger_item.sql")).execute();
      handle.execute("INSERT INTO segment_ledger_schema_version (version, script) VALUES (1, 'V1__ledger_item.sql')");
      handle.execute("INSERT INTO segment_ledger_item (broadcast_id, axis, rendition, sequence, source_path,"
          + " size_bytes, state, registered_at, next_attempt_at) VALUES ('b1', 'ORIGINAL', '720p', 0, '/rec/0.ts', 10,"
          + " 'PENDING', now(), now())");
    });

    assertEquals(ALL_VERSIONS.subList(1, ALL_VERSIONS.size()), SchemaMigrations.migrate(jdbi));

    LedgerItem row = JdbiStateStore.create(jdbi).find(ItemId.original("b1", "720p", 0)).orElseThrow();
    assertEquals(null, row.fileIdentity(), "not recorded before V2: the upload checks the size only");
    assertTrue(JdbiStateStore.create(jdbi).claim(row.rowId(), "node-a", Instant.now().plusSeconds(60), Instant.now())
        .held(), "the upgraded row is claimed as any other");
  }

  @Test
  void aLedgerOfTheFifthVersionKeepsItsRowsAsMpegTsWithoutRecordingTimeAndTakesTheNewColumns() {
    jdbi.useHandle(handle -> {
      handle.execute("CREATE TABLE segment_ledger_schema_version ("
          + " version integer PRIMARY KEY, script text NOT NULL, applied_at timestamptz NOT NULL DEFAULT now())");
      for (String script : List.of("V1__ledger_item.sql", "V2__file_identity_and_abandoned_attempts.sql",
          "V3__operations_queries.sql", "V4__playlists.sql", "V5__retention_and_distribution.sql")) {
        handle.createScript(resource(script)).execute();
        handle.execute("INSERT INTO segment_ledger_schema_version (version, script) VALUES (?, ?)",
            Integer.parseInt(script.substring(1, 2)), script);
      }
      for (String axis : List.of("ORIGINAL", "PLAYBACK", "INIT")) {
        handle.execute("INSERT INTO segment_ledger_item (broadcast_id, axis, rendition, sequence, source_path,"
            + " size_bytes, state, registered_at, next_attempt_at) VALUES ('b1', ?, '720p', 0, '/rec/0', 10,"
            + " 'PENDING', now(), now())", axis);
      }
    });

    assertEquals(List.of(6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16, 17, 18, 19), SchemaMigrations.migrate(jdbi));

    JdbiStateStore store = JdbiStateStore.create(jdbi);
    for (ItemId id : List.of(ItemId.original("b1", "720p", 0), ItemId.playback("b1", "720p", 0),
        ItemId.init("b1", "720p"))) {
      LedgerItem row = store.find(id).orElseThrow();
      assertEquals(id, row.id(), "a row of V5 reads back in its axis's default format");
      assertEquals(null, row.recordedAt());
    }
    ItemId fmp4 = ItemId.original("b1", "720p", 1, MediaFormat.FMP4);
    Instant recorded = Instant.parse("2026-11-30T17:00:00.123456Z");
    LedgerItem row = store.register(NewItem.pending(fmp4, "/rec/1.m4s", 10, Instant.now()).withRecordedAt(recorded))
        .item();
    assertEquals(fmp4, store.findByRowId(row.rowId()).orElseThrow().id());
    assertEquals(recorded, store.findByRowId(row.rowId()).orElseThrow().recordedAt());
    // The CHECK keeps formats to originals.
    assertThrows(Exception.class, () -> jdbi.useHandle(handle -> handle.execute(
        "UPDATE segment_ledger_item SET media_format = 'FMP4' WHERE axis = 'PLAYBACK'")));
  }

  @Test
  void theOperationsIndexCreatedConcurrentlyBeforehandIsFoundByTheMigration() {
    jdbi.useHandle(handle -> {
      handle.execute("CREATE TABLE segment_ledger_schema_version ("
          + " version integer PRIMARY KEY, script text NOT NULL, applied_at timestamptz NOT NULL DEFAULT now())");
      for (String script : List.of("V1__ledger_item.sql", "V2__file_identity_and_abandoned_attempts.sql")) {
        handle.createScript(resource(script)).execute();
        handle.execute("INSERT INTO segment_ledger_schema_version (version, script) VALUES (?, ?)",
            Integer.parseInt(script.substring(1, 2)), script);
      }
    });
    // As docs/operations.md tells operators of a large ledger: outside a transaction, before upgrading.
    jdbi.useHandle(handle -> handle.execute("CREATE INDEX CONCURRENTLY IF NOT EXISTS segment_ledger_item_open"
        + " ON segment_ledger_item (state, id) INCLUDE (axis, registered_at, next_attempt_at, lease_until)"
        + " WHERE state <> 'CONFIRMED'"));

    assertEquals(ALL_VERSIONS.subList(2, ALL_VERSIONS.size()), SchemaMigrations.migrate(jdbi));
    long indexes = jdbi.withHandle(handle -> handle.createQuery("SELECT count(*) FROM pg_indexes"
        + " WHERE schemaname = current_schema() AND tablename = 'segment_ledger_item'"
        + " AND indexname = 'segment_ledger_item_open'")
        .mapTo(Long.class).one());
    assertEquals(1, indexes);
  }

  private static String resource(String script) {
    try (var in = SchemaMigrations.class.getResourceAsStream("/" + SchemaMigrations.LOCATION + "/" + script)) {
      return new String(in.readAllBytes(), java.nio.charset.StandardCharsets.UTF_8);
    } catch (java.io.IOException e) {
      throw new java.io.UncheckedIOException(e);
    }
  }

  @Test
  void tablesLandInTheCurrentSchema() {
    SchemaMigrations.migrate(jdbi);

    assertEquals(List.of(PG.schema(), PG.schema()), jdbi.withHandle(handle -> handle.createQuery(
            "SELECT table_schema FROM information_schema.tables"
                + " WHERE table_name IN ('segment_ledger_item', 'segment_ledger_schema_version')"
                + OTHER_TESTS_SCHEMAS_LEFT_OUT)
        .mapTo(String.class).list()));
  }

  @Test
  void concurrentMigrationsApplyEachVersionExactlyOnce() throws Exception {
    int callers = 2;
    CountDownLatch start = new CountDownLatch(1);
    ExecutorService threads = Executors.newFixedThreadPool(callers);
    try {
      List<Future<List<Integer>>> results = new ArrayList<>();
      for (int i = 0; i < callers; i++) {
        results.add(threads.submit(() -> {
          start.await();
          return SchemaMigrations.migrate(jdbi);
        }));
      }
      start.countDown();
      List<Integer> applied = new ArrayList<>();
      for (Future<List<Integer>> result : results) {
        applied.addAll(result.get(60, TimeUnit.SECONDS));
      }
      assertEquals(ALL_VERSIONS, applied, "one caller applied every version, the other found them applied");
    } finally {
      threads.shutdownNow();
    }
    assertTrue(SchemaMigrations.migrate(jdbi).isEmpty());
  }
}
