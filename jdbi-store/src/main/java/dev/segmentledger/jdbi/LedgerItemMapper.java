package dev.segmentledger.jdbi;

import dev.segmentledger.core.Axis;
import dev.segmentledger.core.ItemId;
import dev.segmentledger.core.ItemState;
import dev.segmentledger.core.Lane;
import dev.segmentledger.core.LedgerItem;
import dev.segmentledger.core.MediaFormat;
import dev.segmentledger.core.Reason;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Duration;
import java.time.Instant;
import java.time.OffsetDateTime;
import org.jdbi.v3.core.mapper.RowMapper;
import org.jdbi.v3.core.statement.StatementContext;

/**
 * Maps a row of {@code segment_ledger_item} (all of {@link #COLUMNS}) to a {@link LedgerItem}.
 * Stateless; thread-safe.
 */
final class LedgerItemMapper implements RowMapper<LedgerItem> {
  static final String COLUMNS = "id, broadcast_id, axis, rendition, sequence, source_path, origin_path, size_bytes,"
      + " state, attempts, reason, last_error, registered_at, next_attempt_at, confirmed_at, checksum,"
      + " media_duration_micros, file_identity, media_format, recorded_at, storage_group, trace_context, lane";

  @Override
  public LedgerItem map(ResultSet rs, StatementContext ctx) throws SQLException {
    ItemId id = itemId(rs);
    String reason = rs.getString("reason");
    long durationMicros = rs.getLong("media_duration_micros");
    Duration duration = rs.wasNull() ? null : Duration.ofNanos(durationMicros * 1_000);
    return new LedgerItem(rs.getLong("id"), id, rs.getString("source_path"), rs.getString("origin_path"),
        rs.getLong("size_bytes"), ItemState.valueOf(rs.getString("state")), rs.getInt("attempts"),
        reason == null ? null : Reason.valueOf(reason), rs.getString("last_error"), instant(rs, "registered_at"),
        instant(rs, "next_attempt_at"), instant(rs, "confirmed_at"), rs.getString("checksum"), duration,
        rs.getString("file_identity"), instant(rs, "recorded_at"), rs.getString("storage_group"),
        rs.getString("trace_context"), lane(rs.getString("lane")));
  }

  /** The identity columns (broadcast_id, axis, rendition, sequence, media_format) of the current row. */
  static ItemId itemId(ResultSet rs) throws SQLException {
    Axis axis = Axis.valueOf(rs.getString("axis"));
    String format = rs.getString("media_format");
    return new ItemId(rs.getString("broadcast_id"), axis, rs.getString("rendition"), rs.getLong("sequence"),
        format == null ? MediaFormat.defaultFor(axis) : MediaFormat.valueOf(format));
  }

  /** The value of the {@code media_format} column for {@code id}: NULL for its axis's default format. */
  static String formatColumn(ItemId id) {
    return id.format() == MediaFormat.defaultFor(id.axis()) ? null : id.format().name();
  }

  /**
   * The position of {@code id} (broadcast, axis, rendition, sequence: the table's unique identity)
   * as an identity of the axis's default format, to key rows by position whatever their format.
   */
  static ItemId position(ItemId id) {
    return id.format() == MediaFormat.defaultFor(id.axis()) ? id
        : new ItemId(id.broadcastId(), id.axis(), id.rendition(), id.sequence());
  }

  /**
   * The hint a {@code lane} column holds: {@code NULL}, or a value this version does not know (the
   * column has no CHECK; the store writes only lane names), is no hint, never an unreadable row.
   */
  static Lane lane(String column) {
    if (column != null) {
      for (Lane lane : Lane.values()) {
        if (lane.name().equals(column)) {
          return lane;
        }
      }
    }
    return null;
  }

  private static Instant instant(ResultSet rs, String column) throws SQLException {
    OffsetDateTime value = rs.getObject(column, OffsetDateTime.class);
    return value == null ? null : value.toInstant();
  }
}
