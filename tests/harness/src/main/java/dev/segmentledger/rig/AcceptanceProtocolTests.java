package dev.segmentledger.rig;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.segmentledger.core.spi.StateStore;
import org.junit.jupiter.api.RepeatedTest;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * The acceptance protocol of docs/design.md under its reference conditions (128 rows per round,
 * queue capacity 4,096), written once for every store: N waiting rows are all accepted by round
 * ceil(N/128), with zero saturation, whatever the rows in backoff (ghosts) in front of them. A
 * store's test extends this and supplies an empty store for each run.
 */
public abstract class AcceptanceProtocolTests {

  /** A store with no unconfirmed row, for one run. */
  protected abstract StateStore emptyStore();

  /** Runs the protocol for {@code waiting} rows behind {@code ghosts} rows in backoff. */
  protected final AcceptanceRun run(int waiting, int ghosts) {
    return AcceptanceHarness.builder().store(emptyStore()).waitingRows(waiting).ghostRows(ghosts).build().run();
  }

  /** Asserts that every row was accepted, the last in {@code round}, with no saturation. */
  protected static void assertAcceptedBy(AcceptanceRun run, long round) {
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
  @CsvSource({"1, 0", "127, 0", "129, 0", "1000, 0", "3000, 0", "1, 500", "129, 500", "1100, 500", "4096, 500"})
  void anyNIsAcceptedByCeilNOver128(int waiting, int ghosts) {
    assertAcceptedBy(run(waiting, ghosts), (waiting + 127) / 128);
  }

  @Test
  void tenThousandGhostsInFrontTakeNoSlot() {
    assertAcceptedBy(run(1_100, 10_000), 9);
  }
}
