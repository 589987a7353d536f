package dev.segmentledger.cli;

import dev.segmentledger.core.Axis;
import dev.segmentledger.core.ItemState;
import dev.segmentledger.core.LedgerItem;
import dev.segmentledger.core.query.Page;
import dev.segmentledger.core.query.RowQuery;
import dev.segmentledger.jdbi.JdbiStateStore;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import picocli.CommandLine.Command;
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

  @Option(names = "--limit", paramLabel = "N", defaultValue = "50",
      description = "At most N rows (1 to " + RowQuery.MAX_LIMIT + ", default ${DEFAULT-VALUE}).")
  int limit;

  @Option(names = "--after", paramLabel = "ROW_ID",
      description = "Continue after this row id (the NEXT of the previous page).")
  long after;

  @Override
  public Integer call() {
    RowQuery query = RowQuery.builder().broadcastId(broadcastId).states(states).axis(axis)
        .order(newestFirst ? RowQuery.Order.NEWEST_FIRST : RowQuery.Order.OLDEST_FIRST)
        .limit(limit).after(after).build();
    JdbiStateStore store = database.open();
    requireKnownBroadcast(store, broadcastId);
    Page<LedgerItem> page = store.findRows(query);
    if (json) {
      Map<String, Object> doc = new LinkedHashMap<>();
      doc.put("items", page.items().stream().map(Rows::json).toList());
      doc.put("next", page.hasNext() ? page.next().getAsLong() : null);
      out().println(Json.write(doc));
      return SegmentLedgerCli.EXIT_OK;
    }
    if (page.items().isEmpty()) {
      out().println("no rows match");
      return SegmentLedgerCli.EXIT_OK;
    }
    Table table = Rows.table();
    page.items().forEach(row -> Rows.add(table, row));
    table.print(out());
    if (page.hasNext()) {
      out().println("NEXT " + page.next().getAsLong() + " (more rows: add --after " + page.next().getAsLong() + ")");
    }
    return SegmentLedgerCli.EXIT_OK;
  }
}
