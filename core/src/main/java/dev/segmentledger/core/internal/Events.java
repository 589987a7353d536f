package dev.segmentledger.core.internal;

import dev.segmentledger.core.Axis;
import dev.segmentledger.core.CircuitState;
import dev.segmentledger.core.LedgerItem;
import dev.segmentledger.core.LedgerListener;
import dev.segmentledger.core.LedgerStats;
import dev.segmentledger.core.Reason;
import dev.segmentledger.core.StoredObjectInfo;
import dev.segmentledger.core.internal.PrintableText;
import java.nio.file.Path;
import java.time.Duration;
import java.util.EnumMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.LongAdder;
import java.util.function.Consumer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Counts every event per axis and fans it out to the user's listeners, isolating the ledger from
 * listener failures. Thread-safe.
 */
final class Events implements LedgerListener {
  private static final Logger log = LoggerFactory.getLogger(Events.class);

  private final List<LedgerListener> listeners;
  private final Map<Axis, Counters> counters = new EnumMap<>(Axis.class);
  /** Told after this node confirmed or made terminal a PLAYBACK or INIT row: its playlists changed. */
  private final Signals signals;

  Events(List<LedgerListener> listeners, Signals signals) {
    this.listeners = listeners;
    this.signals = signals;
    for (Axis axis : Axis.values()) {
      counters.put(axis, new Counters());
    }
  }

  LedgerStats snapshot(int queued, int inFlight, CircuitState circuit, long playlistsAwaiting, Duration clockSkew,
      LedgerStats.LocalDisk localDisk) {
    Map<Axis, LedgerStats.AxisStats> byAxis = new EnumMap<>(Axis.class);
    counters.forEach((axis, c) -> byAxis.put(axis, c.snapshot()));
    return new LedgerStats(byAxis, queued, inFlight, circuit, playlistsAwaiting, clockSkew, localDisk);
  }

  private void playlistsMayHaveChanged(LedgerItem item) {
    if (item.id().axis() != Axis.ORIGINAL) {
      signals.playlistsChanged();
    }
  }

  @Override
  public void onPlaylistPublished(String broadcastId, String rendition, int entries, boolean complete) {
    log.debug("playlist {}/{} published: {} entries{}", broadcastId, rendition == null ? "master" : rendition,
        entries, complete ? ", complete" : "");
    fanOut("playlist", broadcastId + "/" + rendition,
        l -> l.onPlaylistPublished(broadcastId, rendition, entries, complete));
  }

  @Override
  public void onPlaylistRefused(String broadcastId, String rendition, String key, String detail) {
    log.warn("playlist {} not published: {}; derived again from the ledger by a later round", key, detail);
    fanOut("playlist refusal", key, l -> l.onPlaylistRefused(broadcastId, rendition, key, detail));
  }

  @Override
  public void onCircuitStateChanged(CircuitState state) {
    if (state != CircuitState.OPEN) { // OPEN is logged with its cause by onCircuitOpened
      log.info("circuit breaker {}", state);
    }
    fanOut("circuit state", state, l -> l.onCircuitStateChanged(state));
  }

  /** Logs the cause of an opening once (the rows' own failure lines for it are at DEBUG) and fans it out. */
  @Override
  public void onCircuitOpened(Reason reason, String detail) {
    log.warn("circuit breaker OPEN after {}: {}; uploads pause, rows stay PENDING{}", reason, detail,
        reason == Reason.SINK_CONFIGURATION ? " until the sink's configuration is fixed" : "");
    fanOut("circuit", "opening", l -> l.onCircuitOpened(reason, detail));
  }

  /** Logs a re-opened allowed root (a replaced root is worth an operator's look) and fans it out. */
  @Override
  public void onAllowedRootReopened(Path root, String change) {
    log.warn("allowed root {} was replaced while running ({}) and is re-opened: files are judged against the"
        + " directory now at that path", PrintableText.escape(root), change);
    fanOut("allowed root", root, l -> l.onAllowedRootReopened(root, change));
  }

  @Override
  public void onAccepted(LedgerItem item) {
    counters.get(item.id().axis()).accepted.increment();
    fanOut("item", item.id(), l -> l.onAccepted(item));
  }

  @Override
  public void onSaturated(LedgerItem item) {
    counters.get(item.id().axis()).saturated.increment();
    fanOut("item", item.id(), l -> l.onSaturated(item));
  }

  @Override
  public void onStored(LedgerItem item, StoredObjectInfo object, Duration putTime) {
    counters.get(item.id().axis()).stored.increment();
    fanOut("item", item.id(), l -> l.onStored(item, object, putTime));
  }

  @Override
  public void onConfirmed(LedgerItem item) {
    counters.get(item.id().axis()).confirmed.increment();
    playlistsMayHaveChanged(item);
    fanOut("item", item.id(), l -> l.onConfirmed(item));
  }

  @Override
  public void onConfirmLost(LedgerItem item) {
    counters.get(item.id().axis()).confirmLost.increment();
    fanOut("item", item.id(), l -> l.onConfirmLost(item));
  }

  @Override
  public void onClaimLost(LedgerItem item) {
    fanOut("item", item.id(), l -> l.onClaimLost(item));
  }

  @Override
  public void onUnreadableRow(long rowId, String problem) {
    log.warn("row {} cannot be read and is skipped by the sweep (the other rows are swept as usual): {}", rowId,
        PrintableText.escape(problem));
    fanOut("row", rowId, l -> l.onUnreadableRow(rowId, problem));
  }

  @Override
  public void onFailed(LedgerItem item, Reason reason, String detail, boolean terminal) {
    Counters c = counters.get(item.id().axis());
    (terminal ? c.rejected : c.failed).increment();
    if (terminal) {
      playlistsMayHaveChanged(item);
    }
    fanOut("item", item.id(), l -> l.onFailed(item, reason, detail, terminal));
  }

  /** Calls every listener; one that throws is logged as failing on {@code event} {@code subject} and skipped. */
  private void fanOut(String event, Object subject, Consumer<LedgerListener> call) {
    for (LedgerListener listener : listeners) {
      try {
        call.accept(listener);
      } catch (RuntimeException | AssertionError e) {
        log.warn("listener {} failed on {} {}; ignored", listener, event, subject, e);
      }
    }
  }

  private static final class Counters {
    final LongAdder accepted = new LongAdder();
    final LongAdder saturated = new LongAdder();
    final LongAdder stored = new LongAdder();
    final LongAdder confirmed = new LongAdder();
    final LongAdder confirmLost = new LongAdder();
    final LongAdder failed = new LongAdder();
    final LongAdder rejected = new LongAdder();

    LedgerStats.AxisStats snapshot() {
      return new LedgerStats.AxisStats(accepted.sum(), saturated.sum(), stored.sum(), confirmed.sum(),
          confirmLost.sum(), failed.sum(), rejected.sum());
    }
  }
}
