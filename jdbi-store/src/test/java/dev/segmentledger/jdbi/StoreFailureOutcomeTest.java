package dev.segmentledger.jdbi;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;
import dev.segmentledger.core.ItemId;
import dev.segmentledger.core.ItemState;
import dev.segmentledger.core.StoreException;
import dev.segmentledger.core.StoreException.Outcome;
import dev.segmentledger.core.spi.Confirmation;
import dev.segmentledger.core.spi.NewItem;
import dev.segmentledger.core.spi.RegisterResult;
import dev.segmentledger.testkit.PostgresExtension;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.function.BooleanSupplier;
import org.jdbi.v3.core.Jdbi;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * What a failed registration or confirm says it may have written ({@link StoreException#writeOutcome()}),
 * decided by {@link StoreFailures} from where the call failed and from PgJDBC's SQLSTATE, checked
 * against what the database holds afterwards. The commit is made slow, refused or hung by a deferred
 * constraint trigger of this test's schema (it runs inside {@code COMMIT}), chosen by broadcast id;
 * sessions are ended with {@code pg_terminate_backend}, the way a fast shutdown or a failover ends
 * them. Waits observe the server's view of the session ({@code pg_stat_activity}), never sleeps.
 * Also: the durable read a confirm of unknown outcome is judged by is a locking read (its commit
 * waits for synchronous replication like any other; that part is measured on a real cluster by
 * the failover benchmark).
 */
class StoreFailureOutcomeTest {
  @RegisterExtension
  static final PostgresExtension PG = PostgresExtension.create();

  private static final Instant T0 = Instant.parse("2026-01-01T00:00:00Z");
  private static final String APPLICATION_NAME = "segment-ledger-outcome-test";

  private static JdbiStateStore store;
  private static HikariDataSource shortSocketTimeout;

  @BeforeAll
  static void migrateAndInstallTheCommitTrigger() throws SQLException {
    store = JdbiStateStore.create(Jdbi.create(PG.dataSource())).migrate();
    try (Connection c = PG.dataSource().getConnection(); Statement s = c.createStatement()) {
      s.execute("CREATE FUNCTION outcome_test_at_commit() RETURNS trigger LANGUAGE plpgsql AS $$ BEGIN"
          + " IF NEW.broadcast_id LIKE 'slow-commit%' THEN PERFORM pg_sleep(3);"
          + " ELSIF NEW.broadcast_id LIKE 'hung-commit%' THEN PERFORM pg_sleep(120);"
          + " ELSIF NEW.broadcast_id LIKE 'refused-commit%' THEN"
          + "   RAISE EXCEPTION 'injected: refused at commit' USING ERRCODE = '23514';"
          + " END IF; RETURN NULL; END $$");
      s.execute("CREATE CONSTRAINT TRIGGER outcome_test_at_commit AFTER INSERT ON segment_ledger_item"
          + " DEFERRABLE INITIALLY DEFERRED FOR EACH ROW EXECUTE FUNCTION outcome_test_at_commit()");
    }
    // The recommended pool, with a socket timeout (1 s) shorter than the slow commit (3 s).
    HikariConfig config = new HikariConfig();
    config.setJdbcUrl(PG.jdbcUrl() + "&socketTimeout=1&ApplicationName=" + APPLICATION_NAME);
    config.setUsername(PG.user());
    config.setPassword(PG.password());
    config.setMaximumPoolSize(2);
    config.setConnectionTimeout(5_000);
    shortSocketTimeout = new HikariDataSource(config);
  }

  @AfterAll
  static void closePool() {
    shortSocketTimeout.close();
  }

  @Test
  void noConnectionIsNothingWritten() {
    Jdbi unreachable = Jdbi.create(() -> {
      throw new SQLException("injected: connection refused", "08001");
    });
    JdbiStateStore down = JdbiStateStore.create(unreachable);
    StoreException registering = assertThrows(StoreException.class, () -> down.registerAll(rows("down")));
    assertEquals(Outcome.NOT_WRITTEN, registering.writeOutcome(), registering.getMessage());
    assertTrue(registering.getMessage().contains("no connection"), registering.getMessage());
    StoreException confirming = assertThrows(StoreException.class, () -> down.confirmAll(List.of(
        new Confirmation(1, ItemId.original("down", "720p", 0), ItemState.PENDING, 100, null, T0),
        new Confirmation(2, ItemId.original("down", "720p", 1), ItemState.PENDING, 100, null, T0))));
    assertEquals(Outcome.NOT_WRITTEN, confirming.writeOutcome(), confirming.getMessage());
  }

  @Test
  void aSessionEndedBeforeTheCommitWasSentIsNothingWritten() throws Exception {
    String broadcast = "ended-before-commit";
    try (Connection other = PG.dataSource().getConnection()) {
      other.setAutoCommit(false); // holds the broadcast's row: the registration waits for it, inside its transaction
      try (PreparedStatement insert = other.prepareStatement(
          "INSERT INTO segment_ledger_broadcast (broadcast_id, created_at) VALUES (?, now())")) {
        insert.setString(1, broadcast);
        insert.executeUpdate();
      }
      CompletableFuture<List<RegisterResult>> registering = registerInBackground(broadcast, PG.dataSource());
      awaitSession("wait_event_type = 'Lock'");
      terminateSession();
      StoreException e = failureOf(registering);
      assertEquals(Outcome.NOT_WRITTEN, e.writeOutcome(), e.getMessage());
      assertTrue(e.getMessage().contains("before its commit was sent"), e.getMessage());
      other.rollback();
    }
    assertEquals(List.of(), store.findByBroadcast(broadcast));
  }

  @Test
  void aCommitTheServerRefusesIsNothingWritten() throws Exception {
    String broadcast = "refused-commit";
    StoreException e = failureOf(registerInBackground(broadcast));
    assertEquals(Outcome.NOT_WRITTEN, e.writeOutcome(), e.getMessage());
    assertTrue(e.getMessage().contains("SQLSTATE 23514"), e.getMessage());
    assertEquals(List.of(), store.findByBroadcast(broadcast));
  }

  @Test
  void aSocketTimeoutWhileCommittingIsUnknownAndTheRowMayExistSoRegisteringAgainReturnsIt() throws Exception {
    String broadcast = "slow-commit";
    StoreException e = failureOf(registerInBackground(broadcast));
    assertEquals(Outcome.UNKNOWN, e.writeOutcome(), e.getMessage());
    assertTrue(e.getMessage().contains("SQLSTATE 08006"), e.getMessage());
    // The server finishes the commit the client stopped waiting for.
    await("the slow commit to complete", () -> !store.findByBroadcast(broadcast).isEmpty());
    List<RegisterResult> again = store.registerAll(rows(broadcast));
    assertFalse(again.get(0).created(), "registered again: the row the unknown commit wrote, not a second one");
    assertEquals(1, store.findByBroadcast(broadcast).size());
  }

  @Test
  void aSessionEndedWhileCommittingIsUnknownEvenIfNothingWasWritten() throws Exception {
    String broadcast = "hung-commit";
    CompletableFuture<List<RegisterResult>> registering = registerInBackground(broadcast, PG.dataSource());
    awaitSession("wait_event = 'PgSleep'");
    terminateSession();
    StoreException e = failureOf(registering);
    assertEquals(Outcome.UNKNOWN, e.writeOutcome(), e.getMessage());
    assertTrue(e.getMessage().contains("SQLSTATE 57P01"), e.getMessage());
    assertEquals(List.of(), store.findByBroadcast(broadcast), "ended inside the commit's trigger: rolled back");
  }

  @Test
  void aDurableReadIsALockingReadThatReturnsWhatTheWriterCommitted() throws Exception {
    RegisterResult row = store.registerAll(rows("durable-read")).get(0);
    assertEquals(row.item(), store.findByRowIdDurably(row.item().rowId()).orElseThrow());
    try (Connection writer = PG.dataSource().getConnection()) {
      writer.setAutoCommit(false);
      try (Statement s = writer.createStatement()) {
        s.executeUpdate("UPDATE segment_ledger_item SET state = 'CONFIRMED', confirmed_at = now()"
            + " WHERE id = " + row.item().rowId());
      }
      CompletableFuture<ItemState> read = CompletableFuture.supplyAsync(
          () -> store.findByRowIdDurably(row.item().rowId()).orElseThrow().state());
      // A plain read answers at once with the committed row; the durable one waits for the writer's lock.
      assertEquals(ItemState.PENDING, store.findByRowId(row.item().rowId()).orElseThrow().state());
      awaitWaitingOnALock();
      assertFalse(read.isDone());
      writer.commit();
      assertEquals(ItemState.CONFIRMED, read.get(1, TimeUnit.MINUTES));
    }
  }

  private static void awaitWaitingOnALock() {
    ServerSessions.await(PG.dataSource(), "wait_event_type = 'Lock' AND query LIKE '%FOR SHARE%'",
        Duration.ofMinutes(1), "a session waiting on a lock");
  }

  private static StoreException failureOf(CompletableFuture<?> call) {
    ExecutionException failed = assertThrows(ExecutionException.class, () -> call.get(1, TimeUnit.MINUTES));
    return assertInstanceOf(StoreException.class, failed.getCause());
  }

  private static CompletableFuture<List<RegisterResult>> registerInBackground(String broadcast) {
    return registerInBackground(broadcast, shortSocketTimeout);
  }

  /** Registers on a connection named {@link #APPLICATION_NAME}, so that its session can be found. */
  private static CompletableFuture<List<RegisterResult>> registerInBackground(String broadcast,
      javax.sql.DataSource source) {
    JdbiStateStore registrar = JdbiStateStore.create(Jdbi.create(() -> {
      Connection connection = source.getConnection();
      try (Statement set = connection.createStatement()) {
        set.execute("SET application_name = '" + APPLICATION_NAME + "'");
      }
      return connection;
    }));
    return CompletableFuture.supplyAsync(() -> registrar.registerAll(rows(broadcast)));
  }

  /** Ends the registering session as a fast shutdown does (SQLSTATE 57P01). */
  private static void terminateSession() throws SQLException {
    try (Connection c = PG.dataSource().getConnection(); Statement s = c.createStatement();
        ResultSet rs = s.executeQuery("SELECT count(*) FILTER (WHERE pg_terminate_backend(pid)) FROM pg_stat_activity"
            + " WHERE application_name = '" + APPLICATION_NAME + "' AND state = 'active'")) {
      rs.next();
      assertEquals(1, rs.getInt(1), "one registering session terminated");
    }
  }

  private static void awaitSession(String condition) {
    ServerSessions.await(PG.dataSource(), "application_name = '" + APPLICATION_NAME + "' AND state = 'active' AND "
        + condition, Duration.ofMinutes(1), "the registering session: " + condition);
  }

  /** Polls what the server says until {@code condition} holds (the event itself, not a sleep). */
  private static void await(String what, BooleanSupplier condition) {
    long deadline = System.nanoTime() + TimeUnit.MINUTES.toNanos(1);
    while (!condition.getAsBoolean()) {
      if (System.nanoTime() > deadline) {
        throw new AssertionError("timed out waiting for " + what);
      }
      Thread.onSpinWait();
    }
  }

  private static List<NewItem> rows(String broadcast) {
    return List.of(NewItem.pending(ItemId.original(broadcast, "720p", 0), "/rec/" + broadcast + "/0.ts", 100, T0));
  }
}
