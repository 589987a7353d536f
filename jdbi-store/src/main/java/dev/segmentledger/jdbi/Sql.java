package dev.segmentledger.jdbi;

import dev.segmentledger.core.ItemId;
import dev.segmentledger.core.Lane;
import dev.segmentledger.core.Reason;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.List;
import java.util.Map;
import java.util.stream.Collectors;
import org.jdbi.v3.core.Handle;

/**
 * What the parts of {@link JdbiStateStore} share about the SQL they run: the table names, the
 * fragments several statements repeat, the long statements kept as {@code .sql} resources beside
 * this class ({@link #load}), and how values are bound (instants truncated to microseconds).
 * Stateless; thread-safe.
 */
final class Sql {
  static final String TABLE = "segment_ledger_item";
  static final String BROADCASTS = "segment_ledger_broadcast";
  static final String PLAYLISTS = "segment_ledger_playlist";
  static final String PLAYLIST_PARTS = "segment_ledger_playlist_part";
  static final String UPLINK_CAPS = "segment_ledger_uplink_cap";

  /** The columns a {@link LedgerItemMapper} reads; a read or a {@code RETURNING} of a whole row. */
  static final String COLUMNS = LedgerItemMapper.COLUMNS;

  /** The columns a registration inserts, in the order both inserts (one row, a batch) give them. */
  static final String INSERT_COLUMNS = "broadcast_id, axis, rendition, sequence, source_path, origin_path,"
      + " size_bytes, state, reason, last_error, registered_at, next_attempt_at, lease_owner, lease_until,"
      + " file_identity, media_format, recorded_at, storage_group, trace_context, lane";

  /** The natural identity of a row, bound by {@link #identity}. */
  static final String IDENTITY = "broadcast_id = :broadcastId AND axis = :axis AND rendition = :rendition"
      + " AND sequence = :sequence";

  /** Ends the lease of a row; part of every update that moves a row on from an attempt. */
  static final String NO_LEASE = "lease_owner = NULL, lease_until = NULL, lease_attempt = false";

  /** The fragments a {@code .sql} resource may name as {@code ${name}}. */
  private static final Map<String, String> FRAGMENTS = Map.of("columns", COLUMNS, "insertColumns", INSERT_COLUMNS,
      "noLease", NO_LEASE, "playlistColumns", Playlists.COLUMNS,
      "claimedColumns", "t.abandoned_attempts, t.blamed_attempts, " + prefixed("t.", COLUMNS),
      "newRows", read("new-rows.sql"));

  /** {@code columns} (comma-separated) each with {@code prefix}. */
  private static String prefixed(String prefix, String columns) {
    return java.util.Arrays.stream(columns.split(",")).map(String::strip).map(c -> prefix + c)
        .collect(Collectors.joining(", "));
  }

  private Sql() {}

  /**
   * The statement of the resource {@code name} beside this class, read once at class
   * initialization by its part: lines that start with {@code --} (comments) are left out, and each
   * {@code ${fragment}} is replaced by one of {@link #COLUMNS}, {@link #INSERT_COLUMNS},
   * {@link #NO_LEASE} and the fragments kept as resources of their own ({@code new-rows.sql}: the
   * rows of both registration inserts). Read through {@link Class#getResourceAsStream}, which finds
   * a resource of this module's own package on the module path as well as on the class path.
   *
   * @throws IllegalStateException if the resource is missing or names an unknown fragment
   */
  static String load(String name) {
    String sql = read(name);
    for (Map.Entry<String, String> fragment : FRAGMENTS.entrySet()) {
      sql = sql.replace("${" + fragment.getKey() + "}", fragment.getValue());
    }
    if (sql.contains("${")) {
      throw new IllegalStateException("SQL resource " + name + " names an unknown fragment: " + sql);
    }
    return sql;
  }

  /** The text of the resource {@code name} as one line, without its comments and blank lines. */
  private static String read(String name) {
    String text;
    try (InputStream in = Sql.class.getResourceAsStream(name)) {
      if (in == null) {
        throw new IllegalStateException("SQL resource missing from the class path: " + name);
      }
      text = new String(in.readAllBytes(), StandardCharsets.UTF_8);
    } catch (IOException e) {
      throw new UncheckedIOException("cannot read SQL resource " + name, e);
    }
    return text.lines()
        .filter(line -> !line.strip().startsWith("--") && !line.isBlank())
        .map(String::strip)
        .collect(Collectors.joining(" "));
  }

  /** The named values of {@link #IDENTITY} for {@code id}. */
  static Map<String, Object> identity(ItemId id) {
    return Map.of("broadcastId", id.broadcastId(), "axis", id.axis().name(),
        "rendition", id.rendition(), "sequence", id.sequence());
  }

  /** Enum names written as SQL string literals (never user text), separated by commas. */
  static String literals(List<String> names) {
    return String.join(", ", names.stream().map(name -> "'" + name + "'").toList());
  }

  static String nameOf(Reason reason) {
    return reason == null ? null : reason.name();
  }

  /** The value of a {@code lane} column for {@code lane}: {@code NULL} for no hint. */
  static String nameOf(Lane lane) {
    return lane == null ? null : lane.name();
  }

  static Instant micros(Instant instant) {
    return instant.truncatedTo(ChronoUnit.MICROS);
  }

  /**
   * Microseconds since the epoch, truncated as {@link #micros} truncates: arrays of instants bind
   * as bigint[], turned back by {@code (timestamptz 'epoch' + column * interval '1 microsecond')}.
   */
  static long epochMicros(Instant instant) {
    return ChronoUnit.MICROS.between(Instant.EPOCH, micros(instant));
  }

  /** Whether an update changed exactly one row (a compare-and-set that won). */
  static boolean updatedOne(int updated) {
    return updated == 1;
  }

  /**
   * Has PostgreSQL plan the rest of this transaction's statements for the arrays they are given.
   * The batch statements join the table to arrays of ids. Prepared and planned once for a generic
   * array while the table was small (a fresh ledger, before autovacuum's first ANALYZE), such a
   * statement keeps a hash join over a sequential scan of the whole table for every later batch of
   * that connection, 3 ms per batch at 30,000 rows and growing with the table. A plan made for the
   * actual arrays, and the table's current size, looks each row up through its index instead.
   * Needs PostgreSQL 12 or newer. The setting lasts until the transaction ends: the batch's own, or
   * the caller's if the store runs inside a transaction the caller holds on the same thread and
   * {@link org.jdbi.v3.core.Jdbi}, which Jdbi then reuses.
   */
  static void planForTheseArrays(Handle handle) {
    handle.execute("SET LOCAL plan_cache_mode = " + FORCE_CUSTOM_PLAN);
  }

  /** The {@code plan_cache_mode} of {@link #planForTheseArrays}. */
  static final String FORCE_CUSTOM_PLAN = "force_custom_plan";

  /**
   * A statement to send before a hot-path statement in the same round trip ({@link PlainStatement}):
   * for the rest of the transaction (the implicit one of the round trip, or the caller's), plans are
   * generic and never read a table or join it other than through an index. The hot-path statements
   * find every row by a key; planned for the arrays given (as {@link #planForTheseArrays} has it),
   * one of them cost PostgreSQL more CPU to plan than to run (a quarter of the server's CPU per item
   * with one file per {@code register}), while a generic plan made with sequential scans
   * and hash joins allowed, on a table still empty, would read the whole table once it has grown.
   * With those disabled, the generic plan is the index plan whatever the table's size and
   * statistics, and it is made once per connection. {@code set_config(..., true)} is
   * {@code SET LOCAL} without the need of a transaction block of its own.
   */
  static final String KEYED_PLANS = "SELECT set_config('plan_cache_mode', 'force_generic_plan', true),"
      + " set_config('enable_seqscan', 'off', true), set_config('enable_hashjoin', 'off', true),"
      + " set_config('enable_mergejoin', 'off', true); ";
}
