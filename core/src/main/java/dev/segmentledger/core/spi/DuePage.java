package dev.segmentledger.core.spi;

import dev.segmentledger.core.LedgerItem;
import java.util.List;
import java.util.Objects;

/**
 * One page of the sweep ({@link StateStore#findDue}): the due rows the store could read, in
 * ascending row id order, and the rows of the page it could not read (an unknown state or reason
 * written by a newer version, an identifier that is no longer valid, ...). An unreadable row takes
 * its slot of the page like any other, so that the sweep's cursor moves past it and the rows after
 * it are still reached; the ledger skips it and reports it, and never stops the round for it.
 * Immutable.
 *
 * @param rows the readable rows of the page
 * @param unreadable the rows of the page that could not be read, in ascending row id order
 */
public record DuePage(List<LedgerItem> rows, List<UnreadableRow> unreadable) {
  /** A page with no row. */
  public static final DuePage EMPTY = new DuePage(List.of(), List.of());

  public DuePage {
    rows = List.copyOf(Objects.requireNonNull(rows, "rows"));
    unreadable = List.copyOf(Objects.requireNonNull(unreadable, "unreadable"));
  }

  /** A page of readable rows only. */
  public static DuePage of(List<LedgerItem> rows) {
    return new DuePage(rows, List.of());
  }

  /** How many rows of the table the page covers: readable and unreadable. */
  public int size() {
    return rows.size() + unreadable.size();
  }

  /** The greatest row id of the page, readable or not; {@code -1} for an empty page. */
  public long lastRowId() {
    long last = -1;
    for (LedgerItem row : rows) {
      last = Math.max(last, row.rowId());
    }
    for (UnreadableRow row : unreadable) {
      last = Math.max(last, row.rowId());
    }
    return last;
  }

  /**
   * A row a store found but could not turn into a {@link LedgerItem}.
   *
   * @param rowId the row's store id
   * @param problem what could not be read, for operators (a column and its value)
   */
  public record UnreadableRow(long rowId, String problem) {
    public UnreadableRow {
      Objects.requireNonNull(problem, "problem");
    }
  }
}
