package dev.segmentledger.core.internal;

import dev.segmentledger.core.Axis;
import dev.segmentledger.core.ItemId;
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
 * The lane a row's intent gives it: the recorder's hint for the row (stored with it,
 * {@link LedgerItem#lane()}), else its broadcast's hint (stored on the broadcast's record,
 * {@link BroadcastRecord#lane()}), else its axis and its broadcast's phase (INIT and PLAYBACK of a
 * live broadcast {@link Lane#LIVE}, originals of a live broadcast {@link Lane#ORIGINAL}, anything of
 * an ended broadcast {@link Lane#BACKFILL}).
 *
 * <p>Hints live in the store, so every node and every restart honours them. A broadcast's record
 * (its phase and its hint) is read from the store at most once per {@link #BROADCAST_TTL} and kept
 * as a cache: a hint given on another node, or its end there, reaches this node's next offers
 * within that time; a hint given here, at once. A store that fails counts as it was last read (as
 * live without a hint if never). A store that keeps no hints ({@link StateStore#prioritize} not
 * implemented, rows returned without the lane they were registered with) gets the hints of this
 * node kept in its memory only, as before hints were stored. Thread-safe.
 */
final class LaneOf implements Function<LedgerItem, Lane> {
  private static final Logger log = LoggerFactory.getLogger(LaneOf.class);
  /** How long a broadcast's record read from the store (its phase, its hint) is taken as it was read. */
  static final Duration BROADCAST_TTL = Duration.ofSeconds(5);
  /** How many broadcasts, and segment hints of a store that keeps none, are remembered. */
  static final int MAX_REMEMBERED = 10_000;

  private final StateStore store;
  private final Clock clock;
  private final Map<String, Read> broadcasts = new ConcurrentHashMap<>();
  /** Broadcast hints of a store that keeps none: this node's memory only. */
  private final Map<String, Lane> unstoredBroadcastHints = new ConcurrentHashMap<>();
  /** Segment hints of a store that keeps none (the oldest forgotten first): this node's memory only. */
  private final Map<String, Lane> unstoredSegmentHints = new LinkedHashMap<>(16, 0.75f, false) {
    @Override
    protected boolean removeEldestEntry(Map.Entry<String, Lane> eldest) {
      return size() > MAX_REMEMBERED;
    }
  };

  /** A broadcast's record as read at some time: its phase and hint, trusted until {@code until}. */
  private record Read(boolean ended, Lane hint, Instant until) {}

  LaneOf(StateStore store, Clock clock) {
    this.store = store;
    this.clock = clock;
  }

  /**
   * Puts every row of the broadcast in {@code lane} ({@code null} removes the hint): stored on the
   * broadcast's record, and honoured by this node's next offers at once.
   *
   * @throws dev.segmentledger.core.StoreException if the store fails; the hint is not stored
   */
  void hintBroadcast(String broadcastId, Lane lane) {
    try {
      store.prioritize(broadcastId, lane, clock.instant());
    } catch (UnsupportedOperationException e) {
      log.debug("the state store keeps no lane hints: the hint of broadcast {} is this node's memory only", broadcastId);
      if (lane == null) {
        unstoredBroadcastHints.remove(broadcastId);
      } else {
        unstoredBroadcastHints.put(broadcastId, lane);
      }
      return;
    }
    broadcasts.computeIfPresent(broadcastId, (id, read) -> new Read(read.ended(), lane, read.until()));
  }

  /**
   * The store returned the row {@code id}, registered just now in {@code lane}, without that lane:
   * it keeps no hints, so this node remembers it for the rows of the segment (all axes) instead.
   */
  void hintUnstoredSegment(ItemId id, Lane lane) {
    synchronized (unstoredSegmentHints) {
      unstoredSegmentHints.put(segmentKey(id), lane);
    }
  }

  /** The broadcast has just been ended here: its rows without a hint are backfill from now on. */
  void ended(String broadcastId) {
    broadcasts.computeIfPresent(broadcastId, (id, read) -> new Read(true, read.hint(), read.until()));
  }

  @Override
  public Lane apply(LedgerItem item) {
    if (item.lane() != null) {
      return item.lane();
    }
    Lane hint = unstoredSegmentHint(item.id());
    if (hint != null) {
      return hint;
    }
    String broadcastId = item.id().broadcastId();
    Read read = read(broadcastId, item);
    hint = read.hint() != null ? read.hint() : unstoredBroadcastHints.get(broadcastId);
    if (hint != null) {
      return hint;
    }
    if (read.ended()) {
      return Lane.BACKFILL;
    }
    return item.id().axis() == Axis.ORIGINAL ? Lane.ORIGINAL : Lane.LIVE;
  }

  private Lane unstoredSegmentHint(ItemId id) {
    synchronized (unstoredSegmentHints) {
      return unstoredSegmentHints.isEmpty() ? null : unstoredSegmentHints.get(segmentKey(id));
    }
  }

  /** The broadcast's record as cached, or read again once its time is up. */
  private Read read(String broadcastId, LedgerItem item) {
    Instant now = clock.instant();
    Read cached = broadcasts.get(broadcastId);
    if (cached != null && now.isBefore(cached.until())) {
      return cached;
    }
    Instant until = now.plus(BROADCAST_TTL);
    Read fresh;
    try {
      Optional<BroadcastRecord> record = store.findBroadcast(broadcastId);
      fresh = new Read(record.map(BroadcastRecord::ended).orElse(false), record.map(BroadcastRecord::lane).orElse(null),
          until);
    } catch (RuntimeException e) {
      log.debug("the record of broadcast {} could not be read for row {}; taken as last read", broadcastId,
          item.rowId(), e);
      fresh = cached == null ? new Read(false, null, until) : new Read(cached.ended(), cached.hint(), until);
    }
    if (broadcasts.size() >= MAX_REMEMBERED) {
      broadcasts.clear(); // read again from the store: a bounded memory
    }
    broadcasts.put(broadcastId, fresh);
    return fresh;
  }

  private static String segmentKey(ItemId id) {
    return id.broadcastId() + '/' + id.rendition() + '/' + id.sequence();
  }
}
