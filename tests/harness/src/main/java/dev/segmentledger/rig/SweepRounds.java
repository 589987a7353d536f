package dev.segmentledger.rig;

import dev.segmentledger.core.ManualLedger;
import dev.segmentledger.core.SweepReport;

/**
 * Sweep rounds of a {@link ManualLedger} run one after the other until a number of rows has been
 * accepted into its queue, or a number of rounds has been run: the sums of the rounds'
 * {@link SweepReport}s and the number of the last round. Unlike {@link AcceptanceHarness}, it seeds
 * nothing and counts what the reports say, rows read included (the ghost-rows tests check that no
 * ghost is read, on the in-memory store and on PostgreSQL). Immutable.
 *
 * @param accepted rows accepted, summed over the rounds
 * @param read rows read from the store, summed over the rounds
 * @param saturated rows refused by a full queue, summed over the rounds
 * @param lastRound the number of the last round run
 */
public record SweepRounds(int accepted, int read, int saturated, long lastRound) {
  /** Runs rounds of {@code ledger} until {@code rows} have been accepted or {@code maxRounds} rounds have run. */
  public static SweepRounds untilAccepted(ManualLedger ledger, int rows, long maxRounds) {
    int accepted = 0;
    int read = 0;
    int saturated = 0;
    long lastRound = 0;
    while (accepted < rows && lastRound < maxRounds) {
      SweepReport report = ledger.sweepRound();
      accepted += report.accepted();
      read += report.read();
      saturated += report.saturated();
      lastRound = report.round();
    }
    return new SweepRounds(accepted, read, saturated, lastRound);
  }
}
