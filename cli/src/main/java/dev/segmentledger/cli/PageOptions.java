package dev.segmentledger.cli;

import dev.segmentledger.core.LedgerItem;
import dev.segmentledger.core.query.Page;
import dev.segmentledger.core.query.RowQuery;
import java.io.PrintWriter;
import java.util.LinkedHashMap;
import java.util.Map;
import picocli.CommandLine.Option;

/**
 * One keyset page of rows, for the commands that list them ({@code rows}, {@code stuck}): the
 * {@code --limit} and {@code --after} options (a picocli mixin), and the page printed as a table
 * ending with the {@code NEXT} row id to continue after, or as one JSON document whose
 * {@code next} is that id.
 */
final class PageOptions {
  @Option(names = "--limit", paramLabel = "N", defaultValue = "50",
      description = "At most N rows (1 to " + RowQuery.MAX_LIMIT + ", default ${DEFAULT-VALUE}).")
  int limit;

  @Option(names = "--after", paramLabel = "ROW_ID",
      description = "Continue after this row id (the NEXT of the previous page).")
  long after;

  /** Sets the query's limit and the row id it continues after. */
  RowQuery.Builder applyTo(RowQuery.Builder query) {
    return query.limit(limit).after(after);
  }

  /** Prints {@code page}: a table of rows (or "no rows match") and the NEXT row id, or the JSON document. */
  static void print(Page<LedgerItem> page, boolean json, PrintWriter out) {
    if (json) {
      Map<String, Object> doc = new LinkedHashMap<>();
      doc.put("items", page.items().stream().map(Rows::json).toList());
      doc.put("next", page.hasNext() ? page.next().getAsLong() : null);
      out.println(Json.write(doc));
      return;
    }
    if (page.items().isEmpty()) {
      out.println("no rows match");
      return;
    }
    Table table = Rows.table();
    page.items().forEach(row -> Rows.add(table, row));
    table.print(out);
    if (page.hasNext()) {
      out.println("NEXT " + page.next().getAsLong() + " (more rows: add --after " + page.next().getAsLong() + ")");
    }
  }
}
