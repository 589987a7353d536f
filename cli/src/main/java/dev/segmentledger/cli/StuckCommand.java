package dev.segmentledger.cli;

import dev.segmentledger.core.Axis;
import dev.segmentledger.core.ItemState;
import dev.segmentledger.core.Reason;
import dev.segmentledger.core.query.RowQuery;
import dev.segmentledger.jdbi.JdbiStateStore;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;

/**
 * {@code stuck}: rows across every broadcast by state and reason, attempts and age, one keyset page
 * at a time ({@link dev.segmentledger.core.spi.StateStore#findRows}). Read-only.
 */
@Command(name = "stuck", description = "Rows that are not confirmed (or any state you ask for) across every "
    + "broadcast, newest first, one page at a time: continue with --after the NEXT row id printed.")
final class StuckCommand extends LedgerCommand {
  @Option(names = "--state", paramLabel = "STATE", split = ",",
      description = "Only these states (repeat or comma-separate): ${COMPLETION-CANDIDATES}. "
          + "Default: PENDING, WAITING, REJECTED, EXCLUDED.")
  List<ItemState> states = new ArrayList<>();

  @Option(names = "--reason", paramLabel = "REASON", split = ",",
      description = "Only rows with one of these reasons (repeat or comma-separate), e.g. SINK_PERMANENT.")
  List<Reason> reasons = new ArrayList<>();

  @Option(names = "--min-attempts", paramLabel = "N", description = "Only rows with at least N attempts.")
  int minAttempts;

  @Option(names = "--older-than", paramLabel = "DURATION", converter = Durations.class,
      description = "Only rows registered more than DURATION ago: 90s, 15m, 2h, 3d or ISO-8601 (PT1H).")
  Duration olderThan;

  @Option(names = "--broadcast", paramLabel = "BROADCAST", description = "Only rows of this broadcast.")
  String broadcastId;

  @Option(names = "--axis", paramLabel = "AXIS", description = "Only rows of this axis: ${COMPLETION-CANDIDATES}.")
  Axis axis;

  @Option(names = "--oldest-first", description = "Oldest rows first (default: newest first).")
  boolean oldestFirst;

  @Mixin PageOptions page;

  @Override
  public Integer call() {
    RowQuery query = query(now());
    JdbiStateStore store = database.open();
    PageOptions.print(store.findRows(query), json, out());
    return SegmentLedgerCli.EXIT_OK;
  }

  /** The query of the options; validates them (IllegalArgumentException: a usage error). */
  RowQuery query(Instant now) {
    RowQuery.Builder builder = RowQuery.builder()
        .states(states.isEmpty()
            ? List.of(ItemState.PENDING, ItemState.WAITING, ItemState.REJECTED, ItemState.EXCLUDED) : states)
        .reasons(reasons)
        .axis(axis)
        .minAttempts(minAttempts)
        .order(oldestFirst ? RowQuery.Order.OLDEST_FIRST : RowQuery.Order.NEWEST_FIRST);
    page.applyTo(builder);
    if (broadcastId != null) {
      builder.broadcastId(broadcastId);
    }
    if (olderThan != null) {
      builder.registeredBefore(now.minus(olderThan));
    }
    return builder.build();
  }
}
