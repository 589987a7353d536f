package dev.segmentledger.core.query;

import java.util.List;
import java.util.Objects;
import java.util.OptionalLong;

/**
 * One page of a keyset-paged listing ({@link dev.segmentledger.core.Ledger#items(RowQuery)}): its rows in the query's order,
 * and the cursor of the next page if more rows matched when the page was read. Immutable.
 *
 * @param items the rows of this page, at most the query's limit
 * @param next the row id to continue after ({@link RowQuery#after(long)}) if more rows matched;
 *     empty if this is the last page
 * @param <T> the row type
 */
public record Page<T>(List<T> items, OptionalLong next) {
  public Page {
    items = List.copyOf(items);
    Objects.requireNonNull(next, "next");
  }

  /** Whether a further page may hold rows. */
  public boolean hasNext() {
    return next.isPresent();
  }
}
