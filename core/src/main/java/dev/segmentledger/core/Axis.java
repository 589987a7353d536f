package dev.segmentledger.core;

/**
 * The independent upload axes of a segment. Each axis is a ledger of its own: its own row
 * state, its own compare-and-set confirm and its own sweep cursor. Success on one axis never
 * implies anything about another.
 */
public enum Axis {
  /** The file the recorder closed, uploaded as recorded. One per (broadcast, rendition, sequence). */
  ORIGINAL,
  /** The repackaged playback segment. One per (broadcast, rendition, sequence). */
  PLAYBACK,
  /** The init segment of a rendition. One per (broadcast, rendition); its sequence is always 0. */
  INIT
}
