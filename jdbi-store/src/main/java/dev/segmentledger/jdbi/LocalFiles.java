package dev.segmentledger.jdbi;

import static dev.segmentledger.jdbi.Sql.COLUMNS;
import static dev.segmentledger.jdbi.Sql.TABLE;
import static dev.segmentledger.jdbi.Sql.micros;

import dev.segmentledger.core.LedgerItem;
import java.time.Instant;
import java.util.List;
import java.util.Objects;
import org.jdbi.v3.core.Jdbi;

/**
 * The recorder's disk part of {@link JdbiStateStore} (V13, V14): the confirmed rows whose produced file
 * the ledger may still have to delete, read from the partial index
 * {@code segment_ledger_item_local_file_undone} past a cursor, and the mark that takes a row out of
 * it. Stateless over its {@link Jdbi}; thread-safe.
 */
final class LocalFiles {
  /**
   * One page of confirmed, produced, not yet handled rows of a group and of no group. The
   * conditions state the index's predicate, so the planner walks that index in id order past the
   * cursor; the group is a filter on that small index (it holds only the files still to delete).
   */
  static final String FIND_TO_REMOVE = "SELECT " + COLUMNS + " FROM " + TABLE
      + " WHERE state = 'CONFIRMED' AND origin_path IS NOT NULL AND local_file_done_at IS NULL"
      + " AND id > :afterRowId AND (storage_group IS NULL OR storage_group = :storageGroup)"
      + " ORDER BY id LIMIT :limit";

  /**
   * One page of confirmed originals not yet handled of one group, confirmed before the cutoff, past
   * a (confirmed_at, id) cursor: a range of the partial index
   * {@code segment_ledger_item_original_undone}, in its order.
   */
  static final String FIND_ORIGINALS = "SELECT " + COLUMNS + " FROM " + TABLE
      + " WHERE axis = 'ORIGINAL' AND state = 'CONFIRMED' AND local_file_done_at IS NULL"
      + " AND confirmed_at <= :before AND (confirmed_at, id) > (:afterAt, :afterRowId)"
      + " AND COALESCE(storage_group, '') = :storageGroup ORDER BY confirmed_at, id LIMIT :limit";

  /**
   * Whether another row that is not confirmed has this source path: one probe of the partial hash
   * index {@code segment_ledger_item_unconfirmed_source} (V14), whose predicate the query states.
   */
  static final String UNCONFIRMED_WITH_SOURCE = "SELECT EXISTS (SELECT 1 FROM " + TABLE
      + " WHERE state <> 'CONFIRMED' AND source_path = :sourcePath AND id <> :exceptRowId)";

  private static final String MARK_DONE = "UPDATE " + TABLE + " SET local_file_done_at = :at"
      + " WHERE id = :id AND state = 'CONFIRMED' AND local_file_done_at IS NULL";

  /** Before every confirm the ledger records (PostgreSQL's timestamptz starts at 4713 BC). */
  private static final Instant EPOCH_START = Instant.parse("1970-01-01T00:00:00Z");

  private final Jdbi jdbi;
  private final LedgerItemMapper mapper = new LedgerItemMapper();

  LocalFiles(Jdbi jdbi) {
    this.jdbi = Objects.requireNonNull(jdbi, "jdbi");
  }

  List<LedgerItem> findToRemove(String storageGroup, long afterRowId, int limit) {
    if (limit <= 0) {
      throw new IllegalArgumentException("limit must be > 0, got " + limit);
    }
    return jdbi.withHandle(handle -> handle.createQuery(FIND_TO_REMOVE)
        .bind("storageGroup", storageGroup)
        .bind("afterRowId", afterRowId)
        .bind("limit", limit)
        .map(mapper)
        .list());
  }

  List<LedgerItem> findOriginals(String storageGroup, Instant confirmedBefore, Instant afterConfirmedAt,
      long afterRowId, int limit) {
    Objects.requireNonNull(confirmedBefore, "confirmedBefore");
    Objects.requireNonNull(afterConfirmedAt, "afterConfirmedAt");
    if (limit <= 0) {
      throw new IllegalArgumentException("limit must be > 0, got " + limit);
    }
    // Instant.MIN is out of PostgreSQL's range: the start of a cycle is before every confirm.
    Instant after = afterConfirmedAt.isBefore(EPOCH_START) ? EPOCH_START : afterConfirmedAt;
    return jdbi.withHandle(handle -> handle.createQuery(FIND_ORIGINALS)
        .bind("storageGroup", storageGroup == null ? "" : storageGroup)
        .bind("before", micros(confirmedBefore))
        .bind("afterAt", micros(after))
        .bind("afterRowId", afterRowId)
        .bind("limit", limit)
        .map(mapper)
        .list());
  }

  boolean hasUnconfirmedRowWithSourcePath(String sourcePath, long exceptRowId) {
    Objects.requireNonNull(sourcePath, "sourcePath");
    return jdbi.withHandle(handle -> handle.createQuery(UNCONFIRMED_WITH_SOURCE)
        .bind("sourcePath", sourcePath)
        .bind("exceptRowId", exceptRowId)
        .mapTo(Boolean.class)
        .one());
  }

  boolean markDone(long rowId, Instant at) {
    Objects.requireNonNull(at, "at");
    return jdbi.withHandle(handle -> handle.createUpdate(MARK_DONE)
        .bind("id", rowId)
        .bind("at", micros(at))
        .execute()) == 1;
  }
}
