package dev.segmentledger.core;

/**
 * What one sweep round did. Acceptance is reported here, separately from storage and
 * confirmation (see {@link LedgerStats}).
 *
 * @param round the round number, starting at 1 for the first round of this ledger
 * @param read rows read from the store in this round (all axes)
 * @param accepted rows taken into the queue
 * @param duplicates rows already queued or in flight, not queued twice
 * @param saturated rows not taken because the queue was full (they stay for a later round)
 * @param excluded rows excluded in this round because they are past the cutoff
 * @param fullPage whether some axis returned a full page: more rows may be due right now
 * @param unreadable rows of this round's pages the store could not read (an unknown state or
 *     reason, an invalid identifier): skipped and reported ({@link LedgerListener#onUnreadableRow}),
 *     never a reason to stop the round
 * @param failedAxes axes whose page could not be read in this round (the store failed); the other
 *     axes were swept all the same
 */
public record SweepReport(long round, int read, int accepted, int duplicates, int saturated, int excluded,
    boolean fullPage, int unreadable, int failedAxes) {}
