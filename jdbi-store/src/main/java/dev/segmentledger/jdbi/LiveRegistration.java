package dev.segmentledger.jdbi;

import static dev.segmentledger.jdbi.Sql.epochMicros;
import static dev.segmentledger.jdbi.Sql.nameOf;

import dev.segmentledger.core.BroadcastEndedException;
import dev.segmentledger.core.ItemId;
import dev.segmentledger.core.ItemState;
import dev.segmentledger.core.LedgerItem;
import dev.segmentledger.core.spi.NewItem;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Instant;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.jdbi.v3.core.Handle;

/**
 * The usual registration in one statement ({@code register-live.sql}), inside {@link Registration}'s
 * transaction: a batch none of whose rows waits for an INIT. It creates, locks and checks the
 * batch's broadcasts and inserts the rows as {@link Registration}'s statements do one after the other
 * (the broadcast lock, then the insert), so that a registration is two round trips, the statement
 * and the commit. A batch that meets a broadcast committed by another transaction while the
 * statement ran is reported as not done, having inserted no row, and {@link Registration} registers
 * it its own way. Stateless; thread-safe.
 */
final class LiveRegistration {
  private static final PlainStatement REGISTER = PlainStatement.of(Sql.KEYED_PLANS + Sql.load("register-live.sql"));

  /**
   * Inserts {@code items} (in identity order, none waiting for an INIT) unless their identities
   * exist; returns the rows it created by {@linkplain LedgerItemMapper#position position}, or
   * empty if a broadcast of the batch could not be read by this statement (see the class comment).
   *
   * @throws BroadcastEndedException if a broadcast of the batch has ended; nothing is inserted
   */
  Optional<Map<ItemId, LedgerItem>> insertAll(Handle handle, List<NewItem> items, List<String> broadcasts,
      Instant createdAt) {
    try {
      return insertAll(handle.getConnection(), items, broadcasts, createdAt);
    } catch (SQLException e) {
      throw new SqlFailure(e);
    }
  }

  private static Optional<Map<ItemId, LedgerItem>> insertAll(Connection connection, List<NewItem> items,
      List<String> broadcasts, Instant createdAt) throws SQLException {
    int n = items.size();
    String[] broadcastIds = new String[n];
    String[] axes = new String[n];
    String[] renditions = new String[n];
    Long[] sequences = new Long[n];
    String[] sourcePaths = new String[n];
    String[] originPaths = new String[n];
    Long[] sizes = new Long[n];
    String[] states = new String[n];
    String[] reasons = new String[n];
    String[] details = new String[n];
    Long[] registeredAts = new Long[n];
    Long[] nextAttemptAts = new Long[n];
    String[] leaseOwners = new String[n];
    Long[] leaseUntils = new Long[n];
    String[] fileIdentities = new String[n];
    String[] formats = new String[n];
    Long[] recordedAts = new Long[n];
    String[] storageGroups = new String[n];
    String[] traceContexts = new String[n];
    String[] lanes = new String[n];
    for (int i = 0; i < n; i++) {
      NewItem item = items.get(i);
      ItemId id = item.id();
      broadcastIds[i] = id.broadcastId();
      axes[i] = id.axis().name();
      renditions[i] = id.rendition();
      sequences[i] = id.sequence();
      sourcePaths[i] = item.sourcePath();
      originPaths[i] = item.originPath();
      sizes[i] = item.sizeBytes();
      states[i] = item.state().name();
      reasons[i] = nameOf(item.reason());
      details[i] = item.detail();
      registeredAts[i] = epochMicros(item.registeredAt());
      nextAttemptAts[i] = epochMicros(item.nextAttemptAt());
      leaseOwners[i] = item.leaseOwner();
      leaseUntils[i] = item.leased() ? epochMicros(item.leaseUntil()) : null;
      fileIdentities[i] = item.fileIdentity();
      formats[i] = LedgerItemMapper.formatColumn(id);
      recordedAts[i] = item.recordedAt() == null ? null : epochMicros(item.recordedAt());
      storageGroups[i] = item.storageGroup();
      traceContexts[i] = item.traceContext();
      lanes[i] = nameOf(item.lane());
    }
    Map<ItemId, CreatedRow> created = new HashMap<>();
    String ended = null;
    String unseen = null;
    try (PlainStatement.Bound statement = REGISTER.prepare(connection)) {
      statement.setArray("broadcasts", "varchar", broadcasts.toArray(String[]::new))
          .set("createdAt", epochMicros(createdAt))
          .setArray("broadcastIds", "varchar", broadcastIds)
          .setArray("axes", "varchar", axes)
          .setArray("renditions", "varchar", renditions)
          .setArray("sequences", "int8", sequences)
          .setArray("sourcePaths", "text", sourcePaths)
          .setArray("originPaths", "text", originPaths)
          .setArray("sizes", "int8", sizes)
          .setArray("states", "varchar", states)
          .setArray("reasons", "varchar", reasons)
          .setArray("details", "text", details)
          .setArray("registeredAts", "int8", registeredAts)
          .setArray("nextAttemptAts", "int8", nextAttemptAts)
          .setArray("leaseOwners", "varchar", leaseOwners)
          .setArray("leaseUntils", "int8", leaseUntils)
          .setArray("fileIdentities", "text", fileIdentities)
          .setArray("formats", "varchar", formats)
          .setArray("recordedAts", "int8", recordedAts)
          .setArray("storageGroups", "varchar", storageGroups)
          .setArray("traceContexts", "text", traceContexts)
          .setArray("lanes", "varchar", lanes);
      try (ResultSet rs = Confirmations.resultOfSecond(statement.statement())) {
        while (rs.next()) {
          ended = rs.getString("ended");
          unseen = rs.getString("unseen");
          long rowId = rs.getLong("id");
          if (!rs.wasNull()) {
            ItemId id = LedgerItemMapper.itemId(rs);
            created.put(LedgerItemMapper.position(id), new CreatedRow(rowId, id, ItemState.valueOf(rs.getString("state"))));
          }
        }
      }
    }
    if (ended != null) {
      throw new BroadcastEndedException(ended.split(",", -1)[0]);
    }
    if (unseen != null) {
      return Optional.empty();
    }
    // The rows as stored, built from what was sent: only the generated id and the state come back.
    Map<ItemId, LedgerItem> rows = new HashMap<>();
    for (NewItem item : items) {
      ItemId position = LedgerItemMapper.position(item.id());
      CreatedRow row = created.get(position);
      if (row != null && !rows.containsKey(position)) {
        rows.put(position, BatchRegistration.asStored(row.rowId(), row.id(), row.state(), item));
      }
    }
    return Optional.of(rows);
  }

  private record CreatedRow(long rowId, ItemId id, ItemState state) {}
}
