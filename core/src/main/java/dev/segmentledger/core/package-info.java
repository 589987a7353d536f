/**
 * Segment Ledger's API: build a {@link dev.segmentledger.core.Ledger} with
 * {@link dev.segmentledger.core.Ledger#builder()}, {@linkplain dev.segmentledger.core.Ledger#register
 * register} each closed file under its {@link dev.segmentledger.core.ItemId}, and the ledger uploads
 * it to its {@linkplain dev.segmentledger.core.ObjectKeys contract key} and confirms the row by
 * compare and set.
 *
 * <p>The guarantee: if the process dies at any instant, no upload is lost, the database and the
 * bucket converge, and nothing outside the allowed root is ever uploaded. The row in the
 * {@link dev.segmentledger.core.spi.StateStore} is the ledger; everything in memory may vanish and
 * is rebuilt from the rows. Accept, store and confirm are separate events
 * ({@link dev.segmentledger.core.LedgerListener}, {@link dev.segmentledger.core.LedgerStats}); each
 * {@link dev.segmentledger.core.Axis} is a ledger of its own; every failure carries a named
 * {@link dev.segmentledger.core.Reason}. {@link dev.segmentledger.core.Reconciler} compares ledger
 * and bucket and repairs the ledger; {@link dev.segmentledger.core.ManualLedger} lets tests drive
 * sweeps and time.
 */
package dev.segmentledger.core;
