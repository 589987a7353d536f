package dev.segmentledger.core.internal;

import dev.segmentledger.core.Axis;
import dev.segmentledger.core.Lane;
import dev.segmentledger.core.LedgerItem;
import dev.segmentledger.core.spi.BroadcastRecord;
import dev.segmentledger.core.spi.StateStore;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Function;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The lane a row's intent gives it: the recorder's hint for the segment, else its broadcast's hint,
 * else its axis and its broadcast's phase (INIT and PLAYBACK of a live broadcast {@link Lane#LIVE},
 * originals of a live broadcast {@link Lane#ORIGINAL}, anything of an ended broadcast
 * {@link Lane#BACKFILL}). A broadcast's phase is read from the store at most once per
 * {@link #PHASE_TTL} while live and never again once ended; a store that fails counts as live.
 * Hints are this node's memory only. Thread-safe.
 */
final class LaneOf implements Function<LedgerItem, Lane> {
  private static final Logger log = LoggerFactory.getLogger(LaneOf.class);
  /** How long a broadcast read as live is taken as live. */
  static final Duration PHASE_TTL = Duration.ofSeconds(5);
  /** How many segment hints are remembered (the oldest are forgotten first). */
  static final int MAX_SEGMENT_HINTS = 10_000;

  private final StateStore store;
  private final Clock clock;
  private final Map<String, Lane> broadcastHints = new ConcurrentHashMap<>();
  private final Map<String, Instant> liveUntil = new ConcurrentHashMap<>();
  private final Map<String, Boolean> ended = new ConcurrentHashMap<>();
  private final Map<String, Lane> segmentHints = new LinkedHashMap<>(16, 0.75f, false) {
    @Override
    protected boolean removeEldestEntry(Map.Entry<String, Lane> eldest) {
      return size() > MAX_SEGMENT_HINTS;
    }
  };

  LaneOf(StateStore store, Clock clock) {
    this.store = store;
    this.clock = clock;
  }

  /** Puts every row of the broadcast in {@code lane}; {@code null} removes the hint. */
  void hintBroadcast(String broadcastId, Lane lane) {
    if (lane == null) {
      broadcastHints.remove(broadcastId);
    } else {
      broadcastHints.put(broadcastId, lane);
    }
  }

  /** Puts the rows of one segment (its original, its PLAYBACK) in {@code lane}. */
  void hintSegment(String broadcastId, String rendition, long sequence, Lane lane) {
    synchronized (segmentHints) {
      segmentHints.put(segmentKey(broadcastId, rendition, sequence), lane);
    }
  }

  /** The broadcast has just been ended here: its rows are backfill from now on. */
  void ended(String broadcastId) {
    if (ended.size() >= MAX_SEGMENT_HINTS) {
      ended.clear(); // read again from the store: a bounded memory
    }
    ended.put(broadcastId, Boolean.TRUE);
    liveUntil.remove(broadcastId);
  }

  @Override
  public Lane apply(LedgerItem item) {
    String broadcastId = item.id().broadcastId();
    Lane hint;
    synchronized (segmentHints) {
      hint = segmentHints.get(segmentKey(broadcastId, item.id().rendition(), item.id().sequence()));
    }
    if (hint == null) {
      hint = broadcastHints.get(broadcastId);
    }
    if (hint != null) {
      return hint;
    }
    if (ended(broadcastId, item)) {
      return Lane.BACKFILL;
    }
    return item.id().axis() == Axis.ORIGINAL ? Lane.ORIGINAL : Lane.LIVE;
  }

  private boolean ended(String broadcastId, LedgerItem item) {
    if (ended.containsKey(broadcastId)) {
      return true;
    }
    Instant now = clock.instant();
    Instant until = liveUntil.get(broadcastId);
    if (until != null && now.isBefore(until)) {
      return false;
    }
    try {
      Optional<BroadcastRecord> record = store.findBroadcast(broadcastId);
      if (record.isPresent() && record.get().ended()) {
        ended(broadcastId);
        return true;
      }
    } catch (RuntimeException e) {
      log.debug("the phase of broadcast {} could not be read for row {}; taken as live", broadcastId, item.rowId(), e);
    }
    if (liveUntil.size() >= MAX_SEGMENT_HINTS) {
      liveUntil.clear();
    }
    liveUntil.put(broadcastId, now.plus(PHASE_TTL));
    return false;
  }

  private static String segmentKey(String broadcastId, String rendition, long sequence) {
    return broadcastId + '/' + rendition + '/' + sequence;
  }
}
