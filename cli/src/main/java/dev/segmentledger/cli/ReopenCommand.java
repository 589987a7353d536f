package dev.segmentledger.cli;

import dev.segmentledger.core.ItemState;
import dev.segmentledger.core.LedgerItem;
import dev.segmentledger.core.Reason;
import dev.segmentledger.core.query.Page;
import dev.segmentledger.core.query.RowQuery;
import dev.segmentledger.jdbi.JdbiStateStore;
import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import picocli.CommandLine.ArgGroup;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

/**
 * {@code reopen <broadcast> (--reason R | --id ROW_ID...) [--yes]}: puts REJECTED or EXCLUDED rows
 * of a broadcast back to PENDING, as {@link dev.segmentledger.core.Ledger#reopen(String, Reason)}
 * does (reason {@link Reason#REOPENED}, due at once, attempts starting over at 0, the attempts before
 * named in its detail), each with the store's compare-and-set re-open: a row that changed meanwhile
 * is left alone. Without {@code --yes} it lists the rows it would re-open and changes nothing. A
 * running ledger's sweeper then uploads the rows.
 */
@Command(name = "reopen", description = "Re-open a broadcast's REJECTED or EXCLUDED rows once their cause is "
    + "fixed: all rows of a reason, or given row ids. A running ledger then uploads them, with their attempts "
    + "starting over. Lists the rows it would re-open unless --yes is given. Exit 1 if a given row could not be "
    + "re-opened.")
final class ReopenCommand extends LedgerCommand {
  @Parameters(index = "0", paramLabel = "BROADCAST", description = "The broadcast id.")
  String broadcastId;

  @ArgGroup(exclusive = true, multiplicity = "1")
  Selection selection;

  /** Which rows: by reason or by row id, exactly one. */
  static final class Selection {
    @Option(names = "--reason", paramLabel = "REASON", required = true,
        description = "Every REJECTED or EXCLUDED row of the broadcast with this reason.")
    Reason reason;

    @Option(names = "--id", paramLabel = "ROW_ID", split = ",", required = true,
        description = "These rows (row ids as `stuck` prints them; repeat or comma-separate).")
    List<Long> rowIds;
  }

  @Mixin YesOption confirmation;

  @Override
  public Integer call() {
    JdbiStateStore store = database.open();
    requireKnownBroadcast(store, broadcastId);
    List<LedgerItem> candidates = new ArrayList<>();
    List<String> refused = new ArrayList<>();
    if (selection.reason != null) {
      // page by page: a broadcast's terminal rows of one reason, never all of its rows
      RowQuery query = RowQuery.builder().broadcastId(broadcastId).states(ItemState.REJECTED, ItemState.EXCLUDED)
          .reasons(selection.reason).order(RowQuery.Order.OLDEST_FIRST).limit(1_000).build();
      while (true) {
        Page<LedgerItem> page = store.findRows(query);
        candidates.addAll(page.items());
        if (!page.hasNext()) {
          break;
        }
        query = query.after(page.next().getAsLong());
      }
    } else {
      Set<Long> wanted = new LinkedHashSet<>(selection.rowIds);
      for (long rowId : wanted) {
        LedgerItem row = store.findByRowId(rowId).filter(r -> r.id().broadcastId().equals(broadcastId)).orElse(null);
        if (row == null) {
          refused.add(rowId + ": not a row of " + broadcastId);
        } else if (!isReopenable(row)) {
          refused.add(rowId + ": " + row.state() + ", not REJECTED or EXCLUDED");
        } else {
          candidates.add(row);
        }
      }
    }
    if (!confirmation.yes) {
      report(candidates, refused, true);
      return refused.isEmpty() ? SegmentLedgerCli.EXIT_OK : SegmentLedgerCli.EXIT_DIFFERENCES;
    }
    List<LedgerItem> reopened = new ArrayList<>();
    Instant now = now();
    for (LedgerItem row : candidates) {
      if (store.reopen(row.rowId(), row.state(), Reason.REOPENED,
          "re-opened by segment-ledger-cli after " + row.state() + " (" + row.reason() + ")"
          + "; attempts before: " + row.attempts(), now)) {
        reopened.add(row);
      } else {
        refused.add(row.rowId() + ": changed meanwhile, left alone");
      }
    }
    report(reopened, refused, false);
    return refused.isEmpty() ? SegmentLedgerCli.EXIT_OK : SegmentLedgerCli.EXIT_DIFFERENCES;
  }

  private void report(List<LedgerItem> rows, List<String> refused, boolean dryRun) {
    if (json) {
      Map<String, Object> doc = new LinkedHashMap<>();
      doc.put("broadcast", broadcastId);
      doc.put("dryRun", dryRun);
      doc.put(dryRun ? "wouldReopen" : "reopened", rows.stream().map(Rows::json).toList());
      doc.put("notReopened", refused);
      out().println(Json.write(doc));
      return;
    }
    out().println((dryRun ? "would re-open " : "re-opened ") + Rows.count(rows.size(), "row") + " of "
        + broadcastId);
    if (!rows.isEmpty()) {
      Table table = Rows.table();
      rows.forEach(row -> Rows.add(table, row));
      table.print(out());
    }
    for (String line : refused) {
      out().println("not re-opened: " + line);
    }
    if (dryRun) {
      out().println(YesOption.nothingChanged());
    }
  }

  private static boolean isReopenable(LedgerItem row) {
    return row.state() == ItemState.REJECTED || row.state() == ItemState.EXCLUDED;
  }
}
