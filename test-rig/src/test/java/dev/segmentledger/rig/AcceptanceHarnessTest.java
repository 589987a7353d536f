package dev.segmentledger.rig;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.segmentledger.core.ItemId;
import dev.segmentledger.core.spi.NewItem;
import dev.segmentledger.testkit.InMemoryStateStore;
import java.time.Instant;
import org.junit.jupiter.api.RepeatedTest;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/** The acceptance protocol of docs/design.md on the in-memory store, reference conditions. */
class AcceptanceHarnessTest {

  private static AcceptanceRun run(int waiting, int ghosts) {
    return AcceptanceHarness.builder()
        .store(new InMemoryStateStore())
        .waitingRows(waiting)
        .ghostRows(ghosts)
        .build()
        .run();
  }

  private static void assertAcceptedBy(AcceptanceRun run, long round) {
    assertTrue(run.allAccepted(), run::toString);
    assertEquals(round, run.lastAcceptedRound(), run::toString);
    assertEquals(0, run.saturated(), run::toString);
    assertEquals(0, run.statsSaturated(), run::toString);
    assertTrue(run.meetsProtocol(), run::toString);
  }

  @RepeatedTest(5)
  void reference128IsAcceptedInRound1() {
    assertAcceptedBy(run(128, 0), 1);
  }

  @RepeatedTest(5)
  void reference1100IsAcceptedByRound9() {
    assertAcceptedBy(run(1_100, 0), 9);
  }

  @RepeatedTest(5)
  void reference4096IsAcceptedByRound32() {
    assertAcceptedBy(run(4_096, 0), 32);
  }

  @ParameterizedTest(name = "N={0} G={1}")
  @CsvSource({
      "1, 0", "127, 0", "129, 0", "1000, 0", "3000, 0", "4096, 0",
      "1, 500", "127, 500", "129, 500", "1100, 500", "4096, 500",
      "1, 10000", "129, 10000", "1100, 10000", "4096, 10000"})
  void anyNIsAcceptedByCeilNOver128WhateverTheGhostsInFront(int waiting, int ghosts) {
    AcceptanceRun run = run(waiting, ghosts);
    assertAcceptedBy(run, (waiting + 127) / 128);
  }

  @Test
  void otherConditionsFollowTheSameBound() {
    AcceptanceRun run = AcceptanceHarness.builder()
        .store(new InMemoryStateStore())
        .waitingRows(1_000)
        .ghostRows(300)
        .rowsPerRound(50)
        .queueCapacity(1_000)
        .build()
        .run();
    assertAcceptedBy(run, 20);
  }

  @Test
  void aQueueTooSmallIsReportedAsSaturationNotHidden() {
    AcceptanceRun run = AcceptanceHarness.builder()
        .store(new InMemoryStateStore())
        .waitingRows(300)
        .queueCapacity(200)
        .build()
        .run();
    assertFalse(run.allAccepted(), run::toString);
    assertEquals(200, run.accepted());
    assertEquals(-1, run.lastAcceptedRound());
    assertTrue(run.saturated() > 0, run::toString);
    assertEquals(run.saturated(), run.statsSaturated());
    assertFalse(run.meetsProtocol());
  }

  @Test
  void noWaitingRowsMeansRoundZero() {
    AcceptanceRun run = run(0, 10);
    assertEquals(0, run.lastAcceptedRound());
    assertEquals(0, run.roundsRun());
    assertTrue(run.meetsProtocol());
  }

  @Test
  void aStoreWithUnconfirmedRowsIsRefused() {
    InMemoryStateStore store = new InMemoryStateStore();
    store.register(NewItem.pending(ItemId.original("other", "720p", 1), "/tmp/x.ts", 1, Instant.EPOCH));
    AcceptanceHarness harness = AcceptanceHarness.builder().store(store).waitingRows(10).build();
    assertThrows(IllegalStateException.class, harness::run);
  }
}
