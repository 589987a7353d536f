package dev.segmentledger.cli;

import dev.segmentledger.core.LedgerItem;
import dev.segmentledger.core.Printable;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * How a ledger row is shown in a list: a table row and a JSON object with the same fields; the
 * last error cut to {@value #LAST_ERROR_IN_LISTS} characters with a marker that says how many more
 * there were.
 */
final class Rows {
  /** The characters of a row's last error a list shows; longer ones are cut with a marker. */
  static final int LAST_ERROR_IN_LISTS = 200;

  static final String[] HEADER = {"ROW_ID", "BROADCAST", "AXIS", "RENDITION", "SEQUENCE", "STATE", "REASON",
      "ATTEMPTS", "REGISTERED_AT", "NEXT_ATTEMPT_AT", "LAST_ERROR"};

  private Rows() {}

  static Table table() {
    return new Table(HEADER);
  }

  static void add(Table table, LedgerItem row) {
    table.row(row.rowId(), row.id().broadcastId(), row.id().axis(), row.id().rendition(), row.id().sequence(),
        row.state(), row.reason(), row.attempts(), row.registeredAt(), row.nextAttemptAt(),
        Printable.truncate(row.lastError(), LAST_ERROR_IN_LISTS));
  }

  static Map<String, Object> json(LedgerItem row) {
    Map<String, Object> json = new LinkedHashMap<>();
    json.put("rowId", row.rowId());
    json.put("broadcast", row.id().broadcastId());
    json.put("axis", row.id().axis());
    json.put("rendition", row.id().rendition());
    json.put("sequence", row.id().sequence());
    json.put("key", row.objectKey());
    json.put("state", row.state());
    json.put("reason", row.reason());
    json.put("attempts", row.attempts());
    json.put("lastError", Printable.truncate(row.lastError(), LAST_ERROR_IN_LISTS));
    json.put("sourcePath", row.sourcePath());
    json.put("sizeBytes", row.sizeBytes());
    json.put("registeredAt", row.registeredAt());
    json.put("nextAttemptAt", row.nextAttemptAt());
    json.put("confirmedAt", row.confirmedAt());
    return json;
  }

  /** {@code n} {@code noun}s, singular for one: {@code 1 row}, {@code 2 open rows}. */
  static String count(long n, String noun) {
    return n + " " + noun + (n == 1 ? "" : "s");
  }
}
