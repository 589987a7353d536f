package dev.segmentledger.core;

/**
 * The priority lanes of a node's uploads, highest first. Work is taken in this order, except that
 * each lower lane keeps a reserved share of the work taken while it has work waiting
 * ({@link Uplink#originalShare()}, {@link Uplink#backfillShare()}), so it always progresses.
 *
 * <p>Without a hint ({@link Ledger#prioritize}, {@link Ledger#register(ItemId, java.nio.file.Path,
 * Lane)}) a row's lane follows from what it is: INIT and PLAYBACK rows of a live broadcast are
 * {@link #LIVE}, originals of a live broadcast {@link #ORIGINAL}, every row of an ended broadcast
 * {@link #BACKFILL}. Never from a row's age.
 *
 * <p>Hints are durable: a broadcast's hint is stored on its record and a segment's hint with its rows,
 * in the state store, so every node sharing the store, and a node after a restart, puts the rows in
 * the lane the recorder asked for. A segment's hint takes precedence over its broadcast's.
 */
public enum Lane {
  /** What viewers wait for: INIT and PLAYBACK rows of live broadcasts. */
  LIVE,
  /** Originals of live broadcasts. */
  ORIGINAL,
  /** Everything of ended broadcasts (the backlog after an outage, recordings that are over). */
  BACKFILL
}
