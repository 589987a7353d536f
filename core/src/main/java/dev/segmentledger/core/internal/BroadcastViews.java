package dev.segmentledger.core.internal;

import dev.segmentledger.core.Axis;
import dev.segmentledger.core.BroadcastStatus;
import dev.segmentledger.core.Identifiers;
import dev.segmentledger.core.ItemId;
import dev.segmentledger.core.ItemState;
import dev.segmentledger.core.LedgerItem;
import dev.segmentledger.core.PlaybackView;
import dev.segmentledger.core.query.RowCount;
import dev.segmentledger.core.spi.BroadcastRecord;
import dev.segmentledger.core.spi.StateStore;
import java.time.Duration;
import java.util.ArrayList;
import java.util.EnumMap;
import java.util.List;
import java.util.Map;

/** Derives broadcast status (from row counts) and playback views (from keyset pages of rows). Stateless. */
final class BroadcastViews {
  /** Rows per keyset page of a playback view. */
  private static final int PAGE = 500;

  private BroadcastViews() {}

  /** The status of {@code broadcastId} as {@code store} holds it now, from its counts (not its rows). */
  static BroadcastStatus status(StateStore store, String broadcastId) {
    Identifiers.requireValid("broadcastId", broadcastId);
    Map<Axis, Map<ItemState, Long>> counts = new EnumMap<>(Axis.class);
    long unconfirmed = 0;
    for (RowCount count : store.countByBroadcast(broadcastId)) {
      counts.computeIfAbsent(count.axis(), a -> new EnumMap<>(ItemState.class))
          .merge(count.state(), count.rows(), Long::sum);
      if (!count.state().isTerminal()) {
        unconfirmed += count.rows();
      }
    }
    boolean ended = store.findBroadcast(broadcastId).map(BroadcastRecord::ended).orElse(false);
    BroadcastStatus.Phase phase = !ended ? BroadcastStatus.Phase.LIVE
        : unconfirmed == 0 ? BroadcastStatus.Phase.COMPLETE : BroadcastStatus.Phase.ENDED;
    return new BroadcastStatus(broadcastId, phase, counts);
  }

  /**
   * What a player may see of one rendition of {@code broadcastId}, as {@code store} holds it now:
   * the status from the counts, the INIT by its identity, and the PLAYBACK rows in keyset pages
   * only until the contiguous confirmed prefix stops (never every row of the broadcast).
   */
  static PlaybackView playback(StateStore store, String broadcastId, String rendition) {
    Identifiers.requireValid("broadcastId", broadcastId);
    Identifiers.requireValid("rendition", rendition);
    BroadcastStatus status = status(store, broadcastId);
    boolean initConfirmed = store.find(ItemId.init(broadcastId, rendition))
        .map(row -> row.state() == ItemState.CONFIRMED).orElse(false);
    List<PlaybackView.Segment> segments = new ArrayList<>();
    long expected = -1;
    long from = 0;
    boolean more = initConfirmed;
    while (more) {
      List<LedgerItem> page = store.findSegments(broadcastId, rendition, from, PAGE);
      for (LedgerItem row : page) {
        if ((expected >= 0 && row.id().sequence() != expected) || row.state() != ItemState.CONFIRMED) {
          more = false;
          break;
        }
        Duration duration = row.mediaDuration() == null ? Duration.ZERO : row.mediaDuration();
        segments.add(new PlaybackView.Segment(row.id().sequence(), row.objectKey(), duration, row.recordedAt()));
        expected = row.id().sequence() + 1;
      }
      if (page.size() < PAGE) {
        more = false;
      }
      from = expected;
    }
    return new PlaybackView(broadcastId, rendition, initConfirmed,
        status.phase() == BroadcastStatus.Phase.COMPLETE, segments);
  }
}
