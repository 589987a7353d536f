package dev.segmentledger.core.internal;

import dev.segmentledger.core.ItemId;
import dev.segmentledger.core.LedgerItem;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The PLAYBACK rows registered here while their rendition's INIT was not yet confirmed (WAITING),
 * so that this node's confirm of that INIT offers them at once. Without this the sweep alone found
 * them, and a sweep reaches a rendition's first segments only after every due row before them in
 * their axis: behind a backlog of produced rows of an ended broadcast, several rounds (about a
 * second at the benchmark's full size). The sweep stays the way for every other case (an INIT
 * confirmed on another node, a row forgotten here). A bounded memory: at most {@link #MAX_ROWS}
 * rows, the renditions registered first forgotten first. Thread-safe.
 */
final class InitWaiters {
  /** How many waiting rows are remembered in all. */
  static final int MAX_ROWS = 10_000;

  private final Map<String, List<LedgerItem>> byRendition = new LinkedHashMap<>();
  private int rows;

  /** A PLAYBACK row was registered here WAITING for its rendition's INIT. */
  synchronized void waiting(LedgerItem playback) {
    byRendition.computeIfAbsent(key(playback.id()), k -> new ArrayList<>()).add(playback);
    rows++;
    Iterator<List<LedgerItem>> eldest = byRendition.values().iterator();
    while (rows > MAX_ROWS && eldest.hasNext()) {
      rows -= eldest.next().size();
      eldest.remove();
    }
  }

  /** The INIT {@code init} was confirmed here: the rows registered here waiting for it, forgotten now. */
  synchronized List<LedgerItem> released(ItemId init) {
    List<LedgerItem> released = byRendition.remove(key(init));
    if (released == null) {
      return List.of();
    }
    rows -= released.size();
    return released;
  }

  synchronized int size() {
    return rows;
  }

  private static String key(ItemId id) {
    return id.broadcastId() + '/' + id.rendition();
  }
}
