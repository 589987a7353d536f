package dev.segmentledger.jdbi;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.segmentledger.core.BroadcastEndedException;
import dev.segmentledger.core.ItemId;
import dev.segmentledger.core.spi.NewItem;
import dev.segmentledger.core.spi.RegisterResult;
import dev.segmentledger.testkit.PostgresExtension;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.stream.IntStream;
import org.jdbi.v3.core.Jdbi;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * The broadcast lock of a registration takes one statement (insert unless it exists, read and lock
 * FOR SHARE, and for a batch the plan mode). These tests pin the case that statement
 * cannot decide alone: a broadcast row committed by another transaction while the statement's
 * insert waited for it, invisible to the statement's snapshot. The registration must then read it
 * again and, if that transaction ended the broadcast (an {@code endBroadcast} of a broadcast
 * without rows), refuse, exactly as the separate locking read always did. The waiting is observed
 * in {@code pg_stat_activity} (the registering session waits on a lock), not slept.
 */
class RegisterBroadcastLockTest {
  @RegisterExtension
  static final PostgresExtension PG = PostgresExtension.create();

  private static final Instant T0 = Instant.parse("2026-01-01T00:00:00Z");
  private static final String APPLICATION_NAME = "segment-ledger-broadcast-lock-test";

  private static JdbiStateStore store;

  @BeforeAll
  static void migrate() {
    store = JdbiStateStore.create(Jdbi.create(PG.dataSource())).migrate();
  }

  @Test
  void aBroadcastEndedByATransactionCommittedWhileTheInsertWaitedRefusesOneRow() throws Exception {
    registerWhileAnotherTransactionEndsTheBroadcast("race-one", 1);
  }

  @Test
  void aBroadcastEndedByATransactionCommittedWhileTheInsertWaitedRefusesABatch() throws Exception {
    registerWhileAnotherTransactionEndsTheBroadcast("race-batch", 10); // > ROW_BY_ROW_MAX: arrays
  }

  @Test
  void aBroadcastCreatedLiveByATransactionCommittedWhileTheInsertWaitedIsRegisteredInto() throws Exception {
    String broadcast = "race-live";
    try (Connection other = PG.dataSource().getConnection()) {
      other.setAutoCommit(false);
      try (PreparedStatement insert = other.prepareStatement(
          "INSERT INTO segment_ledger_broadcast (broadcast_id, created_at) VALUES (?, now())")) {
        insert.setString(1, broadcast);
        insert.executeUpdate();
      }
      CompletableFuture<List<RegisterResult>> registering = registerInBackground(broadcast, 1);
      awaitRegistrationWaitingOnALock();
      other.commit();
      List<RegisterResult> results = registering.get(1, TimeUnit.MINUTES);
      assertEquals(1, results.size());
      assertTrue(results.get(0).created());
    }
  }

  @Test
  void anEndedBroadcastIsRefusedAndANewOneAcceptedWithoutARace() {
    assertTrue(store.endBroadcast("ended-before", T0));
    assertThrows(BroadcastEndedException.class, () -> store.registerAll(rows("ended-before", 1)));
    assertThrows(BroadcastEndedException.class, () -> store.registerAll(rows("ended-before", 10)));
    assertEquals(10, store.registerAll(rows("fresh", 10)).stream().filter(RegisterResult::created).count());
    assertEquals(1, store.registerAll(rows("fresh-one", 1)).stream().filter(RegisterResult::created).count());
    assertEquals(0, store.registerAll(rows("fresh", 10)).stream().filter(RegisterResult::created).count(),
        "registered again into an existing live broadcast: the rows are there");
  }

  private static void registerWhileAnotherTransactionEndsTheBroadcast(String broadcast, int rows) throws Exception {
    try (Connection other = PG.dataSource().getConnection()) {
      other.setAutoCommit(false);
      try (PreparedStatement end = other.prepareStatement(
          "INSERT INTO segment_ledger_broadcast (broadcast_id, created_at, ended_at) VALUES (?, now(), now())")) {
        end.setString(1, broadcast); // what endBroadcast does for a broadcast without a row
        end.executeUpdate();
      }
      CompletableFuture<List<RegisterResult>> registering = registerInBackground(broadcast, rows);
      awaitRegistrationWaitingOnALock();
      other.commit();
      ExecutionException failed = assertThrows(ExecutionException.class, () -> registering.get(1, TimeUnit.MINUTES));
      assertTrue(failed.getCause() instanceof BroadcastEndedException, String.valueOf(failed.getCause()));
    }
    assertEquals(List.of(), store.findByBroadcast(broadcast), "no row written into the ended broadcast");
  }

  /** Registers on a connection of its own, named so that its wait can be seen. */
  private static CompletableFuture<List<RegisterResult>> registerInBackground(String broadcast, int rows) {
    Jdbi named = Jdbi.create(() -> {
      Connection connection = PG.dataSource().getConnection();
      try (var set = connection.createStatement()) {
        set.execute("SET application_name = '" + APPLICATION_NAME + "'");
      }
      return connection;
    });
    JdbiStateStore registrar = JdbiStateStore.create(named);
    return CompletableFuture.supplyAsync(() -> registrar.registerAll(rows(broadcast, rows)));
  }

  /** Returns once the registering session waits on a lock (the other transaction's insert). */
  private static void awaitRegistrationWaitingOnALock() {
    ServerSessions.await(PG.dataSource(), "application_name = '" + APPLICATION_NAME + "' AND wait_event_type = 'Lock'",
        Duration.ofMinutes(1), "the registration to wait on the other transaction's lock");
  }

  private static List<NewItem> rows(String broadcast, int n) {
    return IntStream.range(0, n)
        .mapToObj(i -> NewItem.pending(ItemId.original(broadcast, "720p", i), "/rec/" + broadcast + "/" + i + ".ts",
            100 + i, T0))
        .toList();
  }
}
