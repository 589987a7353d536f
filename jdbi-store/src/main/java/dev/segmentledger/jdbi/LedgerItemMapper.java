package dev.segmentledger.jdbi;

import dev.segmentledger.core.Axis;
import dev.segmentledger.core.ItemId;
import dev.segmentledger.core.ItemState;
import dev.segmentledger.core.LedgerItem;
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
      + " media_duration_micros, file_identity, storage_group";

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
        rs.getString("file_identity"), rs.getString("storage_group"));
  }

  /** The identity columns (broadcast_id, axis, rendition, sequence) of the current row. */
  static ItemId itemId(ResultSet rs) throws SQLException {
    return new ItemId(rs.getString("broadcast_id"), Axis.valueOf(rs.getString("axis")), rs.getString("rendition"),
        rs.getLong("sequence"));
  }

  private static Instant instant(ResultSet rs, String column) throws SQLException {
    OffsetDateTime value = rs.getObject(column, OffsetDateTime.class);
    return value == null ? null : value.toInstant();
  }
}
