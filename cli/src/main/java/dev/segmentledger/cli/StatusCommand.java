package dev.segmentledger.cli;

import dev.segmentledger.core.Axis;
import dev.segmentledger.core.BroadcastStatus;
import dev.segmentledger.core.ItemState;
import dev.segmentledger.core.query.RowCount;
import dev.segmentledger.core.spi.BroadcastRecord;
import dev.segmentledger.jdbi.JdbiStateStore;
import java.time.Instant;
import java.util.EnumMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;
import picocli.CommandLine.Command;
import picocli.CommandLine.Parameters;

/**
 * {@code status <broadcast>}: the lifecycle phase and row counts of one broadcast, from the store's
 * counts ({@link dev.segmentledger.core.spi.StateStore#countByBroadcast}), never every row. Read-only.
 */
@Command(name = "status", description = "A broadcast's phase (LIVE, ENDED, COMPLETE), its rows per axis and "
    + "state, and its rejected and excluded rows per reason. Its rows themselves: the rows command.")
final class StatusCommand extends LedgerCommand {
  @Parameters(index = "0", paramLabel = "BROADCAST", description = "The broadcast id.")
  String broadcastId;

  @Override
  public Integer call() {
    JdbiStateStore store = database.open();
    requireKnownBroadcast(store, broadcastId);
    List<RowCount> rowCounts = store.countByBroadcast(broadcastId);
    Optional<BroadcastRecord> record = store.findBroadcast(broadcastId);
    Map<Axis, Map<ItemState, Long>> counts = new EnumMap<>(Axis.class);
    Map<String, Long> problems = new TreeMap<>();
    Instant oldestUnconfirmed = null;
    long unconfirmed = 0;
    for (RowCount count : rowCounts) {
      counts.computeIfAbsent(count.axis(), a -> new EnumMap<>(ItemState.class))
          .merge(count.state(), count.rows(), Long::sum);
      if (count.state() == ItemState.REJECTED || count.state() == ItemState.EXCLUDED) {
        problems.merge(count.state() + " " + count.reason(), count.rows(), Long::sum);
      }
      if (!count.state().isTerminal()) {
        unconfirmed += count.rows();
        if (oldestUnconfirmed == null || count.oldestRegisteredAt().isBefore(oldestUnconfirmed)) {
          oldestUnconfirmed = count.oldestRegisteredAt();
        }
      }
    }
    boolean ended = record.map(BroadcastRecord::ended).orElse(false);
    BroadcastStatus status = new BroadcastStatus(broadcastId, !ended ? BroadcastStatus.Phase.LIVE
        : unconfirmed == 0 ? BroadcastStatus.Phase.COMPLETE : BroadcastStatus.Phase.ENDED, counts);
    Instant endedAt = record.map(BroadcastRecord::endedAt).orElse(null);
    if (json) {
      Map<String, Object> doc = new LinkedHashMap<>();
      doc.put("broadcast", broadcastId);
      doc.put("phase", status.phase());
      doc.put("endedAt", endedAt);
      doc.put("unconfirmed", status.unconfirmed());
      doc.put("oldestUnconfirmedRegisteredAt", oldestUnconfirmed);
      Map<String, Object> axes = new LinkedHashMap<>();
      for (Axis axis : Axis.values()) {
        Map<String, Object> states = new LinkedHashMap<>();
        for (ItemState state : ItemState.values()) {
          states.put(state.name(), status.count(axis, state));
        }
        axes.put(axis.name(), states);
      }
      doc.put("counts", axes);
      doc.put("problems", problems);
      out().println(Json.write(doc));
      return SegmentLedgerCli.EXIT_OK;
    }
    out().println("broadcast " + broadcastId + ": " + status.phase()
        + (endedAt == null ? "" : " (ended " + endedAt + ")") + ", " + status.unconfirmed() + " unconfirmed"
        + (oldestUnconfirmed == null ? "" : ", the oldest registered " + oldestUnconfirmed));
    Table table = new Table("AXIS", "PENDING", "WAITING", "CONFIRMED", "REJECTED", "EXCLUDED");
    for (Axis axis : Axis.values()) {
      table.row(axis, status.count(axis, ItemState.PENDING), status.count(axis, ItemState.WAITING),
          status.count(axis, ItemState.CONFIRMED), status.count(axis, ItemState.REJECTED),
          status.count(axis, ItemState.EXCLUDED));
    }
    table.print(out());
    if (!problems.isEmpty()) {
      out().println();
      Table reasons = new Table("STATE_AND_REASON", "ROWS");
      problems.forEach(reasons::row);
      reasons.print(out());
    }
    return SegmentLedgerCli.EXIT_OK;
  }
}
