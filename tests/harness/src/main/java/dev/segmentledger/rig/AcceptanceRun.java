package dev.segmentledger.rig;

import java.time.Duration;
import java.util.OptionalLong;

/**
 * The outcome of one {@link AcceptanceHarness} run, in the terms of the acceptance protocol of
 * docs/design.md. Acceptance only: the harness never drains the queue, so nothing here says anything
 * about storage or confirmation.
 *
 * @param waitingRows N, the due rows seeded
 * @param ghostRows G, the failing rows in backoff seeded in front of them (lower row ids)
 * @param rowsPerRound rows read per axis per sweep round
 * @param queueCapacity the capacity of the ledger's queue
 * @param lastAcceptedRound the round in which the last waiting row was accepted; 0 if N is 0,
 *     {@code -1} if not every waiting row was accepted within {@code roundsRun}
 * @param roundsRun sweep rounds run
 * @param accepted waiting rows accepted (each counted once)
 * @param saturated rows refused by a full queue, summed over the rounds' {@code SweepReport}s
 * @param statsSaturated saturation as counted by the ledger's {@code LedgerStats} (all axes)
 * @param elapsed wall time of the sweep rounds (seeding excluded)
 */
public record AcceptanceRun(
    int waitingRows, int ghostRows, int rowsPerRound, int queueCapacity, long lastAcceptedRound, long roundsRun,
    int accepted, long saturated, long statsSaturated, Duration elapsed) {

  /** The protocol's bound: ceil(N / rowsPerRound). */
  public long expectedRound() {
    return (waitingRows + (long) rowsPerRound - 1) / rowsPerRound;
  }

  /** Whether every waiting row was accepted. */
  public boolean allAccepted() {
    return accepted == waitingRows;
  }

  /** The round of the last acceptance, if every waiting row was accepted. */
  public OptionalLong acceptedByRound() {
    return allAccepted() ? OptionalLong.of(lastAcceptedRound) : OptionalLong.empty();
  }

  /** Whether the run met the protocol: all accepted by round ceil(N/rowsPerRound), zero saturation. */
  public boolean meetsProtocol() {
    return allAccepted() && lastAcceptedRound <= expectedRound() && saturated == 0 && statsSaturated == 0;
  }

  @Override
  public String toString() {
    return "N=" + waitingRows + " G=" + ghostRows + " (" + rowsPerRound + " rows/round, queue " + queueCapacity
        + "): accepted " + accepted + "/" + waitingRows + " by round " + lastAcceptedRound + " (bound "
        + expectedRound() + "), saturated " + saturated + "/" + statsSaturated + ", " + roundsRun + " rounds in "
        + elapsed.toMillis() + " ms";
  }
}
