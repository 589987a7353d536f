package dev.segmentledger.cli;

import dev.segmentledger.core.Axis;
import dev.segmentledger.core.ItemState;
import dev.segmentledger.core.query.RowQuery;
import dev.segmentledger.jdbi.JdbiStateStore;
import java.util.ArrayList;
import java.util.List;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

/**
 * {@code rows <broadcast>}: one broadcast's rows, every state unless asked, oldest first, one keyset
 * page at a time ({@link dev.segmentledger.core.spi.StateStore#findRows}). Read-only.
 */
@Command(name = "rows", description = "One broadcast's rows (every state unless --state), oldest first, one page "
    + "at a time: continue with --after the NEXT row id printed.")
final class RowsCommand extends LedgerCommand {
  @Parameters(index = "0", paramLabel = "BROADCAST", description = "The broadcast id.")
  String broadcastId;

  @Option(names = "--state", paramLabel = "STATE", split = ",",
      description = "Only these states (repeat or comma-separate): ${COMPLETION-CANDIDATES}. Default: every state.")
  List<ItemState> states = new ArrayList<>();

  @Option(names = "--axis", paramLabel = "AXIS", description = "Only rows of this axis: ${COMPLETION-CANDIDATES}.")
  Axis axis;

  @Option(names = "--newest-first", description = "Newest rows first (default: oldest first).")
  boolean newestFirst;

  @Mixin PageOptions page;

  @Override
  public Integer call() {
    RowQuery query = page.applyTo(RowQuery.builder().broadcastId(broadcastId).states(states).axis(axis)
        .order(newestFirst ? RowQuery.Order.NEWEST_FIRST : RowQuery.Order.OLDEST_FIRST)).build();
    JdbiStateStore store = database.open();
    requireKnownBroadcast(store, broadcastId);
    PageOptions.print(store.findRows(query), json, out());
    return SegmentLedgerCli.EXIT_OK;
  }
}
