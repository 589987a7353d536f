package dev.segmentledger.testkit.crash;

import dev.segmentledger.core.Axis;
import java.util.EnumSet;
import java.util.Set;

/**
 * Named instants along the path of one item at which a crash test kills the process. Each
 * names where recovery must start from (see the crash table of docs/design.md).
 */
public enum CrashPoint {
  /** The row is committed; the item was not yet offered to the queue. */
  AFTER_REGISTRATION(EnumSet.of(Axis.ORIGINAL)),
  /** The item is in the in-memory queue; no PUT has started. */
  AFTER_ACCEPT(EnumSet.allOf(Axis.class)),
  /** Half of the object's bytes have been sent. */
  DURING_PUT_BODY(EnumSet.allOf(Axis.class)),
  /** The PUT returned success; the compare-and-set confirm has not run. */
  AFTER_PUT_BEFORE_CONFIRM(EnumSet.allOf(Axis.class)),
  /** The confirm committed. */
  AFTER_CONFIRM(EnumSet.allOf(Axis.class)),
  /** The repackager is producing the PLAYBACK or INIT file. */
  DURING_REPACKAGE(EnumSet.of(Axis.PLAYBACK, Axis.INIT)),
  /**
   * A playlist (media or multivariant; counted on the PLAYBACK axis) is about to be PUT: its entry
   * count is already recorded as intended, the object not yet written.
   */
  BEFORE_PLAYLIST_PUT(EnumSet.of(Axis.PLAYBACK)),
  /** A playlist PUT returned success; its publication is not yet recorded in the ledger. */
  AFTER_PLAYLIST_PUT_BEFORE_RECORD(EnumSet.of(Axis.PLAYBACK)),
  /** A playlist's publication was recorded in the ledger. */
  AFTER_PLAYLIST_RECORD(EnumSet.of(Axis.PLAYBACK));

  private final Set<Axis> axes;

  CrashPoint(Set<Axis> axes) {
    this.axes = axes;
  }

  /** Whether an item of {@code axis} passes this point. */
  public boolean appliesTo(Axis axis) {
    return axes.contains(axis);
  }
}
