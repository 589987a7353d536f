package dev.segmentledger.core.internal;

import dev.segmentledger.core.ObjectKeys;
import dev.segmentledger.core.Printable;
import dev.segmentledger.core.internal.PrintableText;

/**
 * Where a bounded reconcile pass stands, as the text a {@link ReconcileStep} hands back:
 * {@code rows:<row id>} (CONFIRMED rows after that id are still to be checked), {@code
 * objects:<key>} (objects after that key), {@code objects:} (objects from the first key), or
 * {@code final} (the playlists and unfinished uploads). Package-private: callers only pass the
 * text on.
 */
public record ReconcileCursor(Phase phase, long afterRowId, String afterKey) {
  public enum Phase { ROWS, OBJECTS, FINAL }

  static final ReconcileCursor START = new ReconcileCursor(Phase.ROWS, 0, null);

  static ReconcileCursor rowsAfter(long rowId) {
    return new ReconcileCursor(Phase.ROWS, rowId, null);
  }

  static ReconcileCursor objectsAfter(String key) {
    return new ReconcileCursor(Phase.OBJECTS, 0, key);
  }

  static ReconcileCursor finalPhase() {
    return new ReconcileCursor(Phase.FINAL, 0, null);
  }

  /**
   * The cursor of {@code text} for {@code broadcastId}.
   *
   * @throws IllegalArgumentException with what a cursor may be, if {@code text} is none of them
   */
  public static ReconcileCursor parse(String broadcastId, String text) {
    if (text.startsWith("rows:")) {
      try {
        long rowId = Long.parseLong(text.substring("rows:".length()));
        if (rowId >= 0) {
          return rowsAfter(rowId);
        }
      } catch (NumberFormatException e) {
        // refused below
      }
    } else if (text.equals("objects:")) {
      return objectsAfter(null);
    } else if (text.startsWith("objects:") && text.startsWith(ObjectKeys.broadcastPrefix(broadcastId), 8)
        && text.codePoints().allMatch(Printable::isSafe)) {
      return objectsAfter(text.substring("objects:".length()));
    } else if (text.equals("final")) {
      return finalPhase();
    }
    throw new IllegalArgumentException("the cursor must be the 'next' of a previous reconcile step of broadcast "
        + broadcastId + " (rows:<row id>, objects:<key of the broadcast> or final), got: \""
        + PrintableText.escape(text.length() > 80 ? text.substring(0, 80) + "..." : text) + "\"");
  }

  /** The text of this cursor. */
  String text() {
    return switch (phase) {
      case ROWS -> "rows:" + afterRowId;
      case OBJECTS -> "objects:" + (afterKey == null ? "" : afterKey);
      case FINAL -> "final";
    };
  }
}
