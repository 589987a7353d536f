package dev.segmentledger.jdbi;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.segmentledger.testkit.PostgresExtension;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Proxy;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import javax.sql.DataSource;
import org.flywaydb.core.Flyway;
import org.flywaydb.core.api.FlywayException;
import org.flywaydb.core.api.callback.Callback;
import org.flywaydb.core.api.callback.Context;
import org.flywaydb.core.api.callback.Event;
import org.flywaydb.core.api.configuration.FluentConfiguration;
import org.jdbi.v3.core.Jdbi;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * Migrations of a ledger that holds rows, while the ledger is in use: no migration scans the table
 * while it holds ACCESS EXCLUSIVE (which stops every read and write of the ledger for the scan), and a
 * migration that cannot get its lock gives up after {@code lock_timeout} and tries again, rather than
 * queueing behind a long transaction with every registration queued behind it.
 */
class MigrationLockingTest {
  @RegisterExtension
  static final PostgresExtension PG = PostgresExtension.create();

  private static final int ROWS = 2_000;

  private Jdbi jdbi;

  @BeforeEach
  void emptySchema() {
    jdbi = Jdbi.create(PG.dataSource());
    jdbi.useHandle(handle -> handle.execute("DROP TABLE IF EXISTS segment_ledger_item, segment_ledger_broadcast,"
        + " segment_ledger_playlist, segment_ledger_playlist_part, segment_ledger_uplink_cap, segment_ledger_schema_version, ddl_lock_log"));
  }

  @AfterEach
  void dropEventTrigger() {
    jdbi.useHandle(handle -> handle.execute("DROP EVENT TRIGGER IF EXISTS " + eventTrigger()));
  }

  /**
   * From the first version with rows, so that every migration that adds a CHECK runs on a filled
   * table. An event trigger records, after each DDL command, how many CHECK constraints of the table
   * are validated and whether the migrating session holds ACCESS EXCLUSIVE on it: a command that
   * validated a CHECK scanned the table, and must not have done so under that lock.
   */
  @Test
  void noCheckIsValidatedOverExistingRowsUnderAccessExclusive() {
    applyUpTo(1);
    insertRows(ROWS);
    recordLocksAfterEachDdlCommand();

    SchemaMigrations.migrate(jdbi);

    assertEquals(List.of(), checksValidatedUnderAccessExclusive(),
        "commands that validated a CHECK over " + ROWS + " rows while holding ACCESS EXCLUSIVE on the table");
    assertEquals(0, unvalidatedConstraints(), "every constraint is validated once the migrations are done");
    assertEquals(List.of(), indexesBuiltUnderAccessExclusive(),
        "CREATE INDEX commands that scanned " + ROWS + " rows while holding ACCESS EXCLUSIVE on the table");
  }

  /**
   * Indexes built while the migration held ACCESS EXCLUSIVE on the table (taken by an ALTER TABLE of
   * the same script), named by the index: the build scans the table with every read and write of the ledger stopped, where
   * a migration of its own would take a SHARE lock (reads go on). V7, released before this check,
   * adds a column and builds an index in one script; its checksum is pinned, so it stays as released
   * and is the one command allowed here (docs/operations.md tells to build its index beforehand).
   */
  private List<String> indexesBuiltUnderAccessExclusive() {
    return jdbi.withHandle(handle -> handle.createQuery(
            "SELECT objects FROM ddl_lock_log WHERE command_tags LIKE '%CREATE INDEX%' AND holds_access_exclusive"
                + " AND objects <> '" + PG.schema() + ".segment_ledger_item_due_by_group'")
        .mapTo(String.class).list());
  }

  /** The recorded commands after which more CHECKs were validated than before, while the session held ACCESS EXCLUSIVE. */
  private List<String> checksValidatedUnderAccessExclusive() {
    return jdbi.withHandle(handle -> handle.createQuery(
            "SELECT regexp_replace(query, '\\s+', ' ', 'g') FROM (SELECT query, holds_access_exclusive,"
                + " validated_checks - lag(validated_checks) OVER (ORDER BY id) AS newly_validated"
                + " FROM ddl_lock_log) log WHERE newly_validated > 0 AND holds_access_exclusive")
        .mapTo(String.class).list());
  }

  private long unvalidatedConstraints() {
    return jdbi.withHandle(handle -> handle.createQuery("SELECT count(*) FROM pg_constraint"
        + " WHERE conrelid = 'segment_ledger_item'::regclass AND NOT convalidated").mapTo(Long.class).one());
  }

  /** The same with Flyway, which runs each script in a transaction of its own too. */
  @Test
  void flywayValidatesNoCheckOverExistingRowsUnderAccessExclusive() {
    jdbi.useHandle(handle -> handle.execute("DROP TABLE IF EXISTS segment_ledger_schema_history"));
    Flyway.configure().configuration(FlywayMigrationTest.segmentLedger(PG.dataSource()).getConfiguration())
        .target("1").load().migrate();
    insertRows(ROWS);
    recordLocksAfterEachDdlCommand();

    FlywayMigrationTest.segmentLedger(PG.dataSource()).migrate();

    assertEquals(List.of(), checksValidatedUnderAccessExclusive(),
        "commands that validated a CHECK over " + ROWS + " rows while holding ACCESS EXCLUSIVE on the table");
    assertEquals(0, unvalidatedConstraints(), "every constraint is validated once the migrations are done");
    assertEquals(List.of(), indexesBuiltUnderAccessExclusive(),
        "CREATE INDEX commands that scanned " + ROWS + " rows while holding ACCESS EXCLUSIVE on the table");
  }

  /**
   * A long transaction (here a read that stays open) holds a lock that the next migration's ALTER
   * TABLE must wait for. A lock request that waits also holds up every later request that conflicts
   * with it: a registration's INSERT would wait behind the ALTER, for as long as the long
   * transaction lasts. With {@code lock_timeout} the ALTER gives up, the registration goes through,
   * and the migration, tried again, completes once the long transaction ends.
   */
  @Test
  void aMigrationBlockedByALongTransactionLetsRegistrationsThroughAndCompletesAfterIt() throws Exception {
    applyUpTo(7);
    insertRows(ROWS);
    ExecutorService threads = Executors.newFixedThreadPool(2);
    try (Connection longTransaction = PG.dataSource().getConnection();
        Statement statement = longTransaction.createStatement()) {
      longTransaction.setAutoCommit(false);
      statement.execute("SELECT count(*) FROM segment_ledger_item");
      Future<List<Integer>> migration = threads.submit(() -> SchemaMigrations.migrate(jdbi));
      ServerSessions.await(PG.dataSource(), "wait_event_type = 'Lock' AND query ILIKE '%ALTER TABLE%'",
          Duration.ofSeconds(30), "the migration's ALTER TABLE waiting for its lock");

      Future<?> registration = threads.submit(() -> insertRegistration("during-the-wait"));
      try {
        registration.get(10, TimeUnit.SECONDS);
        assertFalse(migration.isDone(), "the migration keeps trying while the long transaction lasts");
      } catch (TimeoutException e) {
        throw new AssertionError("a registration waited more than 10 s behind the migration's lock request,"
            + " for the long transaction to end", e);
      } finally {
        longTransaction.rollback(); // ends the long transaction whatever happened, freeing any waiter
      }

      assertEquals(List.of(8, 9, 10, 11, 12, 13, 14, 15, 16, 17, 18, 19), migration.get(60, TimeUnit.SECONDS),
          "the migration, tried again after the long transaction, applies its versions");
    } finally {
      threads.shutdownNow();
    }
  }

  /**
   * Flyway does not retry: with {@code lock_timeout} set in its migrations (docs/versions.md), a
   * migration blocked by a long transaction fails within the timeout instead of holding up
   * registrations, having applied nothing of its version, and the next run applies it.
   */
  @Test
  void flywayWithALockTimeoutFailsFastBehindALongTransactionAndTheNextRunApplies() throws Exception {
    jdbi.useHandle(handle -> handle.execute("DROP TABLE IF EXISTS segment_ledger_schema_history"));
    Flyway.configure().configuration(FlywayMigrationTest.segmentLedger(PG.dataSource()).getConfiguration())
        .target("7").load().migrate();
    Flyway withLockTimeout = withDocumentedLockTimeout(Flyway.configure()
        .configuration(FlywayMigrationTest.segmentLedger(PG.dataSource()).getConfiguration())).load();
    try (Connection longTransaction = PG.dataSource().getConnection();
        Statement statement = longTransaction.createStatement()) {
      longTransaction.setAutoCommit(false);
      statement.execute("SELECT count(*) FROM segment_ledger_item");

      assertThrows(FlywayException.class, withLockTimeout::migrate);
      longTransaction.rollback();
    }
    assertEquals(12, withLockTimeout.migrate().migrationsExecuted, "V8 to V19 once the long transaction ended");
  }

  /**
   * The lock timeout given to Flyway as docs/versions.md says stays in Flyway's migrations: a
   * connection of the application's pool that Flyway used, and the ledger uses next, keeps its own
   * {@code lock_timeout} (none), so claims and confirms never fail on it.
   */
  @Test
  void flywaysLockTimeoutStaysOutOfThePooledConnectionsTheLedgerUses() throws Exception {
    jdbi.useHandle(handle -> handle.execute("DROP TABLE IF EXISTS segment_ledger_schema_history"));
    try (Connection pooled = PG.dataSource().getConnection()) {
      DataSource pool = onePooledConnection(pooled);
      withDocumentedLockTimeout(Flyway.configure()
          .configuration(FlywayMigrationTest.segmentLedger(pool).getConfiguration())).load().migrate();

      try (Statement statement = pooled.createStatement();
          ResultSet setting = statement.executeQuery("SHOW lock_timeout")) {
        setting.next();
        assertEquals("0", setting.getString(1), "the ledger's connection kept Flyway's lock_timeout");
      }
    }
  }

  /**
   * Flyway with a lock timeout, as docs/versions.md recommends: {@code SET LOCAL} in a callback
   * before each migration, inside the migration's own transaction, so that it ends with it (an
   * {@code initSql} would stay on the connection, and in the application's pool).
   */
  static FluentConfiguration withDocumentedLockTimeout(FluentConfiguration flyway) {
    return flyway.callbacks(new Callback() {
      @Override
      public boolean supports(Event event, Context context) {
        return event == Event.BEFORE_EACH_MIGRATE;
      }

      @Override
      public boolean canHandleInTransaction(Event event, Context context) {
        return true;
      }

      @Override
      public void handle(Event event, Context context) {
        try (Statement statement = context.getConnection().createStatement()) {
          statement.execute("SET LOCAL lock_timeout = '500ms'");
        } catch (SQLException e) {
          throw new FlywayException("could not set the migration's lock_timeout", e);
        }
      }

      @Override
      public String getCallbackName() {
        return "lock_timeout";
      }
    });
  }

  /** A pool of one connection: closing a connection it gave returns it, as a pool does, settings and all. */
  private static DataSource onePooledConnection(Connection connection) {
    Connection returnedOnClose = (Connection) Proxy.newProxyInstance(Connection.class.getClassLoader(),
        new Class<?>[] {Connection.class}, (proxy, method, args) -> {
          if (method.getName().equals("close")) {
            return null;
          }
          try {
            return method.invoke(connection, args);
          } catch (InvocationTargetException e) {
            throw e.getCause();
          }
        });
    return (DataSource) Proxy.newProxyInstance(DataSource.class.getClassLoader(), new Class<?>[] {DataSource.class},
        (proxy, method, args) -> {
          if (method.getName().equals("getConnection")) {
            return returnedOnClose;
          }
          throw new UnsupportedOperationException(method.getName());
        });
  }

  /**
   * A lock that never comes: the migration gives up after its attempts, naming why, and applies
   * nothing; while it tries, a warning every so many attempts names the sessions in its way.
   */
  @Test
  void aMigrationThatNeverGetsItsLockGivesUpAndAppliesNothing() throws Exception {
    applyUpTo(7);
    int attempts = 3;
    try (Connection longTransaction = PG.dataSource().getConnection();
        Statement statement = longTransaction.createStatement()) {
      longTransaction.setAutoCommit(false);
      statement.execute("SELECT count(*) FROM segment_ledger_item");
      String blocker;
      try (ResultSet pid = statement.executeQuery("SELECT pg_backend_pid()")) {
        pid.next();
        blocker = pid.getString(1);
      }

      IllegalStateException refused = assertThrows(IllegalStateException.class,
          () -> SchemaMigrations.migrate(jdbi, Duration.ofMillis(50), attempts));
      assertTrue(refused.getMessage().contains("V8__attempt_evidence.sql")
          && refused.getMessage().contains(attempts + " attempts"), refused.getMessage());
      String named = jdbi.withHandle(SchemaMigrations::lockHolders); // as the warning names them
      assertTrue(named.contains(blocker + " (") && named.contains("SELECT pg_backend_pid()"),
          "names the blocking session " + blocker + " and its last statement: " + named);
      longTransaction.rollback();
    }
    assertEquals(List.of(1, 2, 3, 4, 5, 6, 7), jdbi.withHandle(handle -> handle.createQuery(
        "SELECT version FROM segment_ledger_schema_version ORDER BY version").mapTo(Integer.class).list()));
  }

  private void applyUpTo(int version) {
    jdbi.useHandle(handle -> {
      handle.execute("CREATE TABLE segment_ledger_schema_version ("
          + " version integer PRIMARY KEY, script text NOT NULL, applied_at timestamptz NOT NULL DEFAULT now())");
      for (String script : List.of("V1__ledger_item.sql", "V2__file_identity_and_abandoned_attempts.sql",
          "V3__operations_queries.sql", "V4__playlists.sql", "V5__retention_and_distribution.sql",
          "V6__original_format_and_recording_time.sql", "V7__storage_groups.sql").subList(0, version)) {
        handle.createScript(resource(script)).execute();
        handle.execute("INSERT INTO segment_ledger_schema_version (version, script) VALUES (?, ?)",
            Integer.parseInt(script.substring(1, 2)), script);
      }
    });
  }

  /** Rows as any version registers them: the columns of the first version only. */
  private void insertRows(int rows) {
    jdbi.useHandle(handle -> handle.execute("INSERT INTO segment_ledger_item (broadcast_id, axis, rendition,"
        + " sequence, source_path, size_bytes, state, registered_at, next_attempt_at)"
        + " SELECT 'b1', 'ORIGINAL', '720p', g, '/rec/' || g || '.ts', 10, 'CONFIRMED', now(), now()"
        + " FROM generate_series(0, ?) g", rows - 1));
  }

  /** One registration of a node still running the version before the migration. */
  private void insertRegistration(String broadcast) {
    jdbi.useHandle(handle -> handle.execute("INSERT INTO segment_ledger_item (broadcast_id, axis, rendition,"
        + " sequence, source_path, size_bytes, state, registered_at, next_attempt_at)"
        + " VALUES (?, 'ORIGINAL', '720p', 0, '/rec/0.ts', 10, 'PENDING', now(), now())", broadcast));
  }

  private String eventTrigger() {
    return "ddl_lock_log_" + PG.schema();
  }

  /**
   * Event triggers are database-wide: this one records only commands run in this class's schema,
   * into a table qualified with it.
   */
  private void recordLocksAfterEachDdlCommand() {
    String schema = PG.schema();
    jdbi.useHandle(handle -> {
      handle.execute("CREATE TABLE ddl_lock_log (id bigserial PRIMARY KEY, query text,"
          + " validated_checks integer, holds_access_exclusive boolean, command_tags text, objects text)");
      handle.execute("INSERT INTO ddl_lock_log (query, validated_checks, holds_access_exclusive)"
          + " SELECT 'before the migrations', count(*), false FROM pg_constraint"
          + " WHERE conrelid = 'segment_ledger_item'::regclass AND contype = 'c' AND convalidated");
      handle.execute("CREATE OR REPLACE FUNCTION " + schema + ".ddl_lock_log_record() RETURNS event_trigger"
          + " LANGUAGE plpgsql AS $$ BEGIN"
          + " IF current_schema() = '" + schema + "' THEN"
          + "  INSERT INTO " + schema + ".ddl_lock_log (query, validated_checks, holds_access_exclusive, command_tags, objects)"
          + "  SELECT left(current_query(), 300),"
          + "   (SELECT count(*) FROM pg_constraint WHERE conrelid = '" + schema + ".segment_ledger_item'::regclass"
          + "     AND contype = 'c' AND convalidated),"
          + "   EXISTS (SELECT 1 FROM pg_locks WHERE pid = pg_backend_pid() AND granted"
          + "     AND relation = '" + schema + ".segment_ledger_item'::regclass AND mode = 'AccessExclusiveLock'),"
          + "   (SELECT string_agg(command_tag, ',') FROM pg_event_trigger_ddl_commands()),"
          + "   (SELECT string_agg(object_identity, ',') FROM pg_event_trigger_ddl_commands());"
          + " END IF; END $$");
      handle.execute("CREATE EVENT TRIGGER " + eventTrigger() + " ON ddl_command_end"
          + " EXECUTE FUNCTION " + schema + ".ddl_lock_log_record()");
    });
  }

  private static String resource(String script) {
    String path = "/" + SchemaMigrations.LOCATION + "/" + script;
    try (InputStream in = SchemaMigrations.class.getResourceAsStream(path)) {
      return new String(in.readAllBytes(), StandardCharsets.UTF_8);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }
}
