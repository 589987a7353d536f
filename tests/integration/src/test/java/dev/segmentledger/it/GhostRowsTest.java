package dev.segmentledger.it;

import static org.junit.jupiter.api.Assertions.assertEquals;

import dev.segmentledger.core.Axis;
import dev.segmentledger.core.ItemId;
import dev.segmentledger.core.ItemState;
import dev.segmentledger.core.Ledger;
import dev.segmentledger.core.ManualLedger;
import dev.segmentledger.core.Reason;
import dev.segmentledger.core.spi.NewItem;
import dev.segmentledger.core.spi.RegisterResult;
import dev.segmentledger.rig.SweepRounds;
import dev.segmentledger.testkit.ConsistencyAssertions;
import dev.segmentledger.testkit.DirectoryObjectSink;
import dev.segmentledger.testkit.FakeObjectSink;
import dev.segmentledger.testkit.InMemoryStateStore;
import dev.segmentledger.testkit.PostgresExtension;
import dev.segmentledger.testkit.SettableClock;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * docs/design.md acceptance, "any number of failing ghost rows in front", on the testkit's in-memory
 * store and on real PostgreSQL. In memory: 10,000 rows in backoff registered before 1,000 fresh rows
 * take no slot of any sweep page. On PostgreSQL: 10,000 rows in backoff (seeded with one
 * {@code INSERT ... SELECT}, as a long outage leaves them) registered before 1,000 fresh rows. The
 * sweep page reads the partial due index and filters the ghosts by {@code next_attempt_at} in the
 * index tuple, so they take no slot: with 1,024 rows per round every fresh row is accepted in round
 * 1, with the reference 128 by round 8; zero saturation (queue 4,096), no ghost read or PUT.
 */
class GhostRowsTest {
  @RegisterExtension static final PostgresExtension PG = PostgresExtension.create();
  private static final int GHOSTS = 10_000;
  private static final int FRESH = 1_000;
  private static PooledStore db;

  @TempDir Path temp;

  @BeforeAll
  static void migrate() {
    db = PooledStore.migrated(PG, 2);
  }

  @AfterAll
  static void closePool() {
    db.close();
  }

  @ParameterizedTest(name = "in memory, batch {0}: all fresh rows accepted by round {1}")
  @CsvSource({"1024, 1", "128, 8"})
  void ghostsInBackoffTakeNoSlotOfAnyRoundInMemory(int batch, int expectedRound) throws Exception {
    InMemoryStateStore store = new InMemoryStateStore();
    FakeObjectSink sink = new FakeObjectSink();
    SettableClock clock = SettableClock.atFixedStart();
    Path root = Files.createDirectories(temp.resolve("recordings")).toRealPath();
    Instant now = clock.instant();
    List<NewItem> ghosts = new ArrayList<>();
    for (int i = 0; i < GHOSTS; i++) {
      ItemId id = ItemId.original("ghosts", "720p", i);
      ghosts.add(NewItem.pending(id, root.resolve("gone-" + i + ".ts").toString(), 10, now));
    }
    for (RegisterResult ghost : store.registerAll(ghosts)) {
      store.recordFailure(ghost.item().rowId(), ItemState.PENDING, "node-a", Reason.SINK_TRANSIENT, "503 SlowDown",
          now.plus(Duration.ofHours(1)));
    }
    for (int i = 0; i < FRESH; i++) {
      ItemId id = ItemId.original("fresh", "720p", i);
      Path file = Wiring.record(root, id);
      store.register(NewItem.pending(id, file.toString(), Files.size(file), now));
    }

    try (ManualLedger ledger = Ledger.builder().stateStore(store).objectSink(sink).allowedRoot(root).clock(clock)
        .sweepBatchSize(batch).queueCapacity(4_096).buildManual()) {
      SweepRounds rounds = SweepRounds.untilAccepted(ledger, FRESH, 100);
      System.out.printf("ghosts in memory: batch %d, %d ghosts ahead of %d fresh rows: all accepted in round %d,"
          + " %d rows read, %d saturated%n", batch, GHOSTS, FRESH, rounds.lastRound(), rounds.read(),
          rounds.saturated());

      assertEquals(FRESH, rounds.accepted());
      assertEquals(expectedRound, rounds.lastRound(), "the round in which the last fresh row is accepted");
      assertEquals(FRESH, rounds.read(), "no ghost was read");
      assertEquals(0, rounds.saturated());
      ledger.drainQueue();
    }
    assertEquals(FRESH, store.count(Axis.ORIGINAL, ItemState.CONFIRMED));
    assertEquals(GHOSTS, store.count(Axis.ORIGINAL, ItemState.PENDING), "ghosts untouched, still pending");
    assertEquals(FRESH, sink.putCount(), "no PUT for a ghost");
  }

  @ParameterizedTest(name = "on PostgreSQL, batch {0}: all fresh rows accepted by round {1}")
  @CsvSource({"1024, 1", "128, 8"})
  void ghostsInBackoffTakeNoSlotOfAnyRound(int batch, int expectedRound) throws Exception {
    db.jdbi().useHandle(h -> h.execute("TRUNCATE segment_ledger_item"));
    db.jdbi().useHandle(h -> h.execute("INSERT INTO segment_ledger_item (broadcast_id, axis, rendition, sequence,"
        + " source_path, size_bytes, state, attempts, reason, last_error, registered_at, next_attempt_at)"
        + " SELECT 'ghosts', 'ORIGINAL', '720p', s, '/gone/' || s || '.ts', 10, 'PENDING', 7, 'SINK_TRANSIENT',"
        + " '503 SlowDown', now(), now() + interval '1 hour' FROM generate_series(0, ?) s", GHOSTS - 1));
    Path root = Files.createDirectories(temp.resolve("root")).toRealPath();
    String broadcast = "fresh-" + batch;
    List<NewItem> fresh = new ArrayList<>();
    for (int i = 0; i < FRESH; i++) {
      ItemId id = ItemId.original(broadcast, "720p", i);
      Path file = Wiring.record(root, id);
      fresh.add(NewItem.pending(id, file.toString(), Files.size(file), Instant.now()));
    }
    db.store().registerAll(fresh);
    DirectoryObjectSink sink = new DirectoryObjectSink(temp.resolve("bucket"));

    try (ManualLedger ledger = Ledger.builder().stateStore(db.store()).objectSink(sink).allowedRoot(root)
        .sweepBatchSize(batch).queueCapacity(4_096).buildManual()) {
      SweepRounds rounds = SweepRounds.untilAccepted(ledger, FRESH, 100);
      System.out.printf("ghosts on PostgreSQL: batch %d, %d ghosts ahead of %d fresh rows: all accepted in round %d,"
          + " %d rows read, %d saturated%n", batch, GHOSTS, FRESH, rounds.lastRound(), rounds.read(),
          rounds.saturated());

      assertEquals(FRESH, rounds.accepted());
      assertEquals(expectedRound, rounds.lastRound(), "the round in which the last fresh row is accepted");
      assertEquals(FRESH, rounds.read(), "no ghost was read");
      assertEquals(0, rounds.saturated());
      ledger.drainQueue();
    }
    assertEquals(FRESH, db.store().count(Axis.ORIGINAL, ItemState.CONFIRMED));
    assertEquals(GHOSTS, db.store().count(Axis.ORIGINAL, ItemState.PENDING), "ghosts untouched, still pending");
    assertEquals(0, sink.list("ghosts/").size(), "no PUT for a ghost");
    ConsistencyAssertions.assertConsistent(db.store(), sink, broadcast);
  }
}
