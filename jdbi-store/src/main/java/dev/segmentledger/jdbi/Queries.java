package dev.segmentledger.jdbi;

import static dev.segmentledger.jdbi.Sql.BROADCASTS;
import static dev.segmentledger.jdbi.Sql.COLUMNS;
import static dev.segmentledger.jdbi.Sql.IDENTITY;
import static dev.segmentledger.jdbi.Sql.TABLE;
import static dev.segmentledger.jdbi.Sql.identity;
import static dev.segmentledger.jdbi.Sql.literals;
import static dev.segmentledger.jdbi.Sql.micros;

import dev.segmentledger.core.Axis;
import dev.segmentledger.core.ItemId;
import dev.segmentledger.core.ItemState;
import dev.segmentledger.core.LedgerItem;
import dev.segmentledger.core.Reason;
import dev.segmentledger.core.query.Backlog;
import dev.segmentledger.core.query.Page;
import dev.segmentledger.core.query.RowCount;
import dev.segmentledger.core.query.RowQuery;
import dev.segmentledger.core.spi.BroadcastRecord;
import dev.segmentledger.core.spi.DuePage.UnreadableRow;
import dev.segmentledger.core.spi.DuePage;
import java.time.Instant;
import java.time.OffsetDateTime;
import java.util.ArrayList;
import java.util.EnumMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.OptionalLong;
import org.jdbi.v3.core.HandleCallback;
import org.jdbi.v3.core.Jdbi;
import org.jdbi.v3.core.statement.SqlStatement;

/**
 * The queries part of {@link JdbiStateStore}: the sweep page ({@code findDue}), single rows, the
 * operations views ({@code findRows}, {@code backlog}, {@code count}) and broadcasts. Reads only;
 * each is one statement. Built with a read timeout ({@link JdbiStateStore#withReadTimeout}), every
 * read but the sweep's and the durable one is bounded ({@link BoundedReads}). Stateless over its
 * {@link Jdbi}; thread-safe.
 */
final class Queries {
  /**
   * The sweep page of a node without a storage group: the due rows of no group. {@code state} is a
   * literal so that the planner uses the partial index {@code segment_ledger_item_due_by_group}, and
   * the group is compared as that index's key, {@code COALESCE(storage_group, '')}, by equality, so
   * that the planner knows the range comes out in id order.
   */
  static final String FIND_DUE = "SELECT " + COLUMNS + " FROM " + TABLE
      + " WHERE axis = :axis AND state = 'PENDING' AND COALESCE(storage_group, '') = '' AND id > :afterRowId"
      + " AND next_attempt_at <= :now ORDER BY id LIMIT :limit";

  /**
   * The sweep page of a node of group {@code :storageGroup}: the due rows of its group and of no
   * group, as two ordered ranges of the same partial index, each cut at the page size, merged.
   */
  static final String FIND_DUE_OF_GROUP = "(SELECT " + COLUMNS + " FROM " + TABLE
      + " WHERE axis = :axis AND state = 'PENDING' AND COALESCE(storage_group, '') = :storageGroup"
      + " AND id > :afterRowId"
      + " AND next_attempt_at <= :now ORDER BY id LIMIT :limit) UNION ALL (" + FIND_DUE + ")"
      + " ORDER BY id LIMIT :limit";

  /**
   * The backlog query ({@code backlog.sql}): one aggregate over the unconfirmed rows, grouped by
   * axis. It reads only the partial index {@code segment_ledger_item_open}, whose key starts with the
   * state, and the heap of those rows for their sizes: its cost grows with the backlog only.
   */
  static final String BACKLOG = Sql.load("backlog.sql");

  /**
   * A keyset page of a rendition's PLAYBACK rows from {@code :fromSequence}: one ordered range of the
   * identity index {@code (broadcast_id, axis, rendition, sequence)}, the axis a literal.
   */
  static final String FIND_SEGMENTS = "SELECT " + COLUMNS + " FROM " + TABLE
      + " WHERE broadcast_id = :broadcastId AND axis = 'PLAYBACK' AND rendition = :rendition"
      + " AND sequence >= :fromSequence ORDER BY sequence LIMIT :limit";

  /**
   * Whether a broadcast has an unconfirmed row: one probe of the partial index
   * {@code segment_ledger_item_unconfirmed_by_broadcast}, whose predicate ({@code sequence >= 0}
   * included, always true) the conditions state, as {@code purge-candidate.sql} does.
   */
  static final String HAS_OPEN_ROWS = "SELECT EXISTS (SELECT 1 FROM " + TABLE
      + " WHERE broadcast_id = :broadcastId AND state IN ('PENDING', 'WAITING') AND sequence >= 0)";

  private final Jdbi jdbi;
  private final BoundedReads reads;
  private final LedgerItemMapper mapper = new LedgerItemMapper();

  /** Queries whose operator reads run through {@code reads}; the sweep's runs unbounded. */
  Queries(Jdbi jdbi, BoundedReads reads) {
    this.jdbi = Objects.requireNonNull(jdbi, "jdbi");
    this.reads = Objects.requireNonNull(reads, "reads");
  }

  private <R> R read(HandleCallback<R, RuntimeException> callback) {
    return reads.read(callback);
  }

  /**
   * One sweep page. Each row is mapped on its own: a row the mapper cannot read (an unknown state,
   * reason or format, an identifier no longer valid) becomes an {@link UnreadableRow} in its place,
   * so that it takes its slot of the page and the sweep's cursor moves past it.
   */
  DuePage findDue(Axis axis, String storageGroup, long afterRowId, Instant now, int limit) {
    Objects.requireNonNull(axis, "axis");
    Objects.requireNonNull(now, "now");
    if (limit <= 0) {
      throw new IllegalArgumentException("limit must be > 0, got " + limit);
    }
    return jdbi.withHandle(handle -> {
      List<LedgerItem> rows = new ArrayList<>();
      List<UnreadableRow> unreadable = new ArrayList<>();
      handle.createQuery(storageGroup == null ? FIND_DUE : FIND_DUE_OF_GROUP)
          .bind("storageGroup", storageGroup)
          .bind("axis", axis.name())
          .bind("afterRowId", afterRowId)
          .bind("now", micros(now))
          .bind("limit", limit)
          .map((rs, ctx) -> {
            try {
              rows.add(mapper.map(rs, ctx));
            } catch (RuntimeException e) {
              unreadable.add(new UnreadableRow(rs.getLong("id"), String.valueOf(e.getMessage())));
            }
            return Boolean.TRUE;
          })
          .forEach(mapped -> { });
      return new DuePage(rows, unreadable);
    });
  }

  Optional<LedgerItem> findByRowId(long rowId) {
    return read(handle -> handle.createQuery("SELECT " + COLUMNS + " FROM " + TABLE + " WHERE id = :id")
        .bind("id", rowId)
        .map(mapper)
        .findOne());
  }

  /**
   * {@link JdbiStateStore#findByRowIdDurably}: the read locks the row FOR SHARE, which gives its
   * transaction an id, so that its commit waits for synchronous replication like any other; the
   * row is returned only once that commit, and so everything the read saw, is on the standby.
   */
  Optional<LedgerItem> findByRowIdDurably(long rowId) {
    return jdbi.inTransaction(handle -> handle.createQuery("SELECT " + COLUMNS + " FROM " + TABLE
            + " WHERE id = :id FOR SHARE")
        .bind("id", rowId)
        .map(mapper)
        .findOne());
  }

  Optional<LedgerItem> find(ItemId id) {
    Objects.requireNonNull(id, "id");
    return read(handle -> handle.createQuery("SELECT " + COLUMNS + " FROM " + TABLE + " WHERE " + IDENTITY)
        .bindMap(identity(id))
        .map(mapper)
        .findOne());
  }

  List<LedgerItem> findByBroadcast(String broadcastId) {
    Objects.requireNonNull(broadcastId, "broadcastId");
    return read(handle -> handle.createQuery("SELECT " + COLUMNS + " FROM " + TABLE
            + " WHERE broadcast_id = :broadcastId ORDER BY id")
        .bind("broadcastId", broadcastId)
        .map(mapper)
        .list());
  }

  /** A playlist publication's read ({@link #FIND_SEGMENTS}): not an operator read, so unbounded. */
  List<LedgerItem> findSegments(String broadcastId, String rendition, long fromSequence, int limit) {
    Objects.requireNonNull(broadcastId, "broadcastId");
    Objects.requireNonNull(rendition, "rendition");
    if (limit <= 0) {
      throw new IllegalArgumentException("limit must be > 0, got " + limit);
    }
    return jdbi.withHandle(handle -> handle.createQuery(FIND_SEGMENTS)
        .bind("broadcastId", broadcastId)
        .bind("rendition", rendition)
        .bind("fromSequence", fromSequence)
        .bind("limit", limit)
        .map(mapper)
        .list());
  }

  /** {@link #HAS_OPEN_ROWS}: a publisher's read, unbounded. */
  boolean hasOpenRows(String broadcastId) {
    Objects.requireNonNull(broadcastId, "broadcastId");
    return jdbi.withHandle(handle -> handle.createQuery(HAS_OPEN_ROWS)
        .bind("broadcastId", broadcastId)
        .mapTo(Boolean.class)
        .one());
  }

  List<RowCount> countByBroadcast(String broadcastId) {
    Objects.requireNonNull(broadcastId, "broadcastId");
    return read(handle -> handle.createQuery("SELECT axis, state, reason, count(*) AS n,"
            + " min(registered_at) AS oldest FROM " + TABLE + " WHERE broadcast_id = :broadcastId"
            + " GROUP BY axis, state, reason")
        .bind("broadcastId", broadcastId)
        .map((rs, ctx) -> new RowCount(Axis.valueOf(rs.getString("axis")), ItemState.valueOf(rs.getString("state")),
            rs.getString("reason") == null ? null : Reason.valueOf(rs.getString("reason")), rs.getLong("n"),
            rs.getObject("oldest", OffsetDateTime.class).toInstant()))
        .list());
  }

  /**
   * One statement: a {@code UNION ALL} of one ordered, limited subquery per state, merged in row
   * id order ({@link #rowQuerySql}). Each subquery names its state as a literal, so the planner
   * proves the partial index {@code segment_ledger_item_open} (unconfirmed, REJECTED and EXCLUDED
   * rows, keyed by state and id) usable whatever the other conditions: a page is a bounded range
   * scan of that index per state, starting at the cursor, however many confirmed rows the table
   * holds. CONFIRMED rows are read through the primary key, in row id order.
   */
  Page<LedgerItem> findRows(RowQuery query) {
    Objects.requireNonNull(query, "query");
    List<LedgerItem> rows = read(handle -> bindRowQuery(handle.createQuery(rowQuerySql(query)), query)
        .map(mapper)
        .list());
    if (rows.size() <= query.limit()) {
      return new Page<>(rows, OptionalLong.empty());
    }
    List<LedgerItem> page = rows.subList(0, query.limit());
    return new Page<>(page, OptionalLong.of(page.get(page.size() - 1).rowId()));
  }

  /**
   * The SQL of {@link #findRows}: one more row than the limit, to tell whether a next page exists.
   * States, reasons and the axis are enum names written as literals (never user text); the other
   * values are bound by {@link #bindRowQuery}.
   */
  static String rowQuerySql(RowQuery query) {
    boolean newestFirst = query.order() == RowQuery.Order.NEWEST_FIRST;
    String direction = newestFirst ? " DESC" : "";
    StringBuilder conditions = new StringBuilder();
    if (!query.reasons().isEmpty()) {
      conditions.append(" AND reason IN (").append(literals(query.reasons().stream().map(Enum::name).sorted()
          .toList())).append(")");
    }
    query.axis().ifPresent(axis -> conditions.append(" AND axis = '").append(axis.name()).append("'"));
    query.broadcastId().ifPresent(b -> conditions.append(" AND broadcast_id = :broadcastId"));
    if (query.minAttempts() > 0) {
      conditions.append(" AND attempts >= :minAttempts");
    }
    query.registeredBefore().ifPresent(t -> conditions.append(" AND registered_at < :registeredBefore"));
    query.after().ifPresent(c -> conditions.append(newestFirst ? " AND id < :after" : " AND id > :after"));
    List<String> parts = query.states().stream().sorted()
        .map(state -> "(SELECT " + COLUMNS + " FROM " + TABLE + " WHERE state = '" + state.name() + "'"
            + conditions + " ORDER BY id" + direction + " LIMIT :limit)")
        .toList();
    return "SELECT " + COLUMNS + " FROM (" + String.join(" UNION ALL ", parts) + ") AS page"
        + " ORDER BY id" + direction + " LIMIT :limit";
  }

  /** Binds the values of {@code query} that {@link #rowQuerySql} names. */
  static <S extends SqlStatement<S>> S bindRowQuery(S statement, RowQuery query) {
    statement.bind("limit", query.limit() + 1);
    query.broadcastId().ifPresent(b -> statement.bind("broadcastId", b));
    if (query.minAttempts() > 0) {
      statement.bind("minAttempts", query.minAttempts());
    }
    query.registeredBefore().ifPresent(t -> statement.bind("registeredBefore", micros(t)));
    query.after().ifPresent(c -> statement.bind("after", c));
    return statement;
  }

  /** One aggregate statement over the partial index of rows not confirmed ({@link #BACKLOG}). */
  Backlog backlog(Instant now) {
    Objects.requireNonNull(now, "now");
    Instant at = micros(now);
    Map<Axis, Backlog.AxisBacklog> axes = new EnumMap<>(Axis.class);
    read(handle -> handle.createQuery(BACKLOG)
        .bind("now", at)
        .map((rs, ctx) -> Map.entry(Axis.valueOf(rs.getString("axis")), new Backlog.AxisBacklog(
            rs.getLong("unconfirmed"), rs.getObject("oldest", OffsetDateTime.class).toInstant(), rs.getLong("due"),
            rs.getLong("leased"), rs.getLong("backoff"), rs.getLong("waiting"), rs.getLong("bytes"))))
        .list())
        .forEach(entry -> axes.put(entry.getKey(), entry.getValue()));
    return new Backlog(at, axes);
  }

  Optional<BroadcastRecord> findBroadcast(String broadcastId) {
    Objects.requireNonNull(broadcastId, "broadcastId");
    return read(handle -> handle.createQuery("SELECT broadcast_id, created_at, ended_at, lane FROM "
            + BROADCASTS + " WHERE broadcast_id = :id")
        .bind("id", broadcastId)
        .map((rs, ctx) -> new BroadcastRecord(rs.getString("broadcast_id"),
            rs.getObject("created_at", OffsetDateTime.class).toInstant(),
            Optional.ofNullable(rs.getObject("ended_at", OffsetDateTime.class)).map(OffsetDateTime::toInstant)
                .orElse(null), LedgerItemMapper.lane(rs.getString("lane"))))
        .findOne());
  }

  long count(Axis axis, ItemState state) {
    Objects.requireNonNull(axis, "axis");
    Objects.requireNonNull(state, "state");
    return read(handle -> handle.createQuery("SELECT count(*) FROM " + TABLE
            + " WHERE axis = :axis AND state = :state")
        .bind("axis", axis.name())
        .bind("state", state.name())
        .mapTo(Long.class)
        .one());
  }
}
