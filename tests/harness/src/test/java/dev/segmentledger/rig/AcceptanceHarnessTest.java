package dev.segmentledger.rig;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.segmentledger.core.ItemId;
import dev.segmentledger.core.spi.NewItem;
import dev.segmentledger.core.spi.StateStore;
import dev.segmentledger.testkit.InMemoryStateStore;
import java.time.Instant;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * The acceptance protocol of docs/design.md on the in-memory store (the cases of
 * {@link AcceptanceProtocolTests}, and more that are cheap in memory), and the harness itself.
 */
class AcceptanceHarnessTest extends AcceptanceProtocolTests {

  @Override
  protected StateStore emptyStore() {
    return new InMemoryStateStore();
  }

  @ParameterizedTest(name = "N={0} G={1}")
  @CsvSource({"4096, 0", "127, 500", "1, 10000", "129, 10000", "4096, 10000"})
  void moreNAreAcceptedByCeilNOver128WhateverTheGhostsInFront(int waiting, int ghosts) {
    assertAcceptedBy(run(waiting, ghosts), (waiting + 127) / 128);
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
