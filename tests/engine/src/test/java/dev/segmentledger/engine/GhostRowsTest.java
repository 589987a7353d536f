package dev.segmentledger.engine;

import static org.junit.jupiter.api.Assertions.assertEquals;

import dev.segmentledger.core.Axis;
import dev.segmentledger.core.ItemId;
import dev.segmentledger.core.ItemState;
import dev.segmentledger.core.ManualLedger;
import dev.segmentledger.core.Reason;
import dev.segmentledger.core.spi.NewItem;
import dev.segmentledger.core.spi.RegisterResult;
import dev.segmentledger.rig.SweepRounds;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * docs/design.md acceptance, "any number of failing ghost rows in front": 10,000 rows in backoff
 * registered before 1,000 fresh rows take no slot of any sweep page. With 1,024 rows per round all
 * 1,000 fresh rows are accepted in round 1; with the reference 128 rows per round, by round
 * ceil(1000/128) = 8, exactly as without ghosts. Queue capacity 4,096, zero saturation, no ghost
 * ever read. In-memory store; the same on PostgreSQL is in integration-tests.
 */
class GhostRowsTest {
  static final int GHOSTS = 10_000;
  static final int FRESH = 1_000;

  @TempDir Path temp;

  @ParameterizedTest(name = "batch {0}: all fresh rows accepted by round {1}")
  @CsvSource({"1024, 1", "128, 8"})
  void ghostsInBackoffTakeNoSlotOfAnyRound(int batch, int expectedRound) {
    LedgerFixture f = new LedgerFixture(temp);
    Instant now = f.clock.instant();
    List<NewItem> ghosts = new ArrayList<>();
    for (int i = 0; i < GHOSTS; i++) {
      ItemId id = ItemId.original("ghosts", "720p", i);
      ghosts.add(NewItem.pending(id, f.root.resolve("gone-" + i + ".ts").toString(), 10, now));
    }
    for (RegisterResult ghost : f.store.registerAll(ghosts)) {
      f.store.recordFailure(ghost.item().rowId(), ItemState.PENDING, "node-a", Reason.SINK_TRANSIENT, "503 SlowDown",
          now.plus(Duration.ofHours(1)));
    }
    for (int i = 0; i < FRESH; i++) {
      ItemId id = ItemId.original("fresh", "720p", i);
      Path file = f.record(id);
      f.store.register(NewItem.pending(id, file.toString(), fileSize(file), now));
    }

    ManualLedger ledger = f.builder().sweepBatchSize(batch).queueCapacity(4_096).buildManual();
    SweepRounds rounds = SweepRounds.untilAccepted(ledger, FRESH, 100);
    System.out.printf("ghosts: batch %d, %d ghosts ahead of %d fresh rows: all accepted in round %d, %d rows read,"
        + " %d saturated%n", batch, GHOSTS, FRESH, rounds.lastRound(), rounds.read(), rounds.saturated());

    assertEquals(FRESH, rounds.accepted());
    assertEquals(expectedRound, rounds.lastRound(), "the round in which the last fresh row is accepted");
    assertEquals(FRESH, rounds.read(), "no ghost was read");
    assertEquals(0, rounds.saturated());
    ledger.drainQueue();
    assertEquals(FRESH, f.store.count(Axis.ORIGINAL, ItemState.CONFIRMED));
    assertEquals(GHOSTS, f.store.count(Axis.ORIGINAL, ItemState.PENDING), "ghosts untouched, still pending");
    assertEquals(FRESH, f.sink.putCount(), "no PUT for a ghost");
  }

  private static long fileSize(Path file) {
    try {
      return Files.size(file);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }
}
