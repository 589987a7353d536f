package dev.segmentledger.jdbi;

import static dev.segmentledger.jdbi.Sql.COLUMNS;
import static dev.segmentledger.jdbi.Sql.TABLE;
import static dev.segmentledger.jdbi.Sql.epochMicros;
import static dev.segmentledger.jdbi.Sql.micros;
import static dev.segmentledger.jdbi.Sql.nameOf;

import dev.segmentledger.core.ItemId;
import dev.segmentledger.core.ItemState;
import dev.segmentledger.core.LedgerItem;
import dev.segmentledger.core.spi.NewItem;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import org.jdbi.v3.core.Handle;

/**
 * The statements of a registration of more than {@value Registration#ROW_BY_ROW_MAX} rows, inside
 * the transaction {@link Registration} holds: a few statements whatever the batch's size, each
 * joining the table to arrays (planned for them, see {@link Sql#planForTheseArrays}). Stateless
 * (it works on the handle it is given); thread-safe.
 */
final class BatchRegistration {
  /** The multi-row insert, from one array per column of {@link Sql#INSERT_COLUMNS}. */
  private static final String INSERT_ALL = Sql.load("register-batch.sql");

  private final LedgerItemMapper mapper = new LedgerItemMapper();

  /** Locks the INIT rows the WAITING PLAYBACK items of the batch depend on; returns the confirmed ones. */
  Set<ItemId> lockInitsOfWaiting(Handle handle, List<NewItem> items) {
    List<ItemId> inits = items.stream()
        .filter(Registration::waitsForInit)
        .map(item -> Registration.initOf(item.id()))
        .distinct()
        .toList();
    if (inits.isEmpty()) {
      return Set.of();
    }
    return new HashSet<>(handle.createQuery("SELECT broadcast_id, rendition, state FROM " + TABLE
            + " WHERE axis = 'INIT' AND sequence = 0 AND (broadcast_id, rendition) IN"
            + " (SELECT * FROM unnest(:broadcastIds::varchar[], :renditions::varchar[])) ORDER BY id FOR SHARE")
        .bindArray("broadcastIds", String.class, inits.stream().map(ItemId::broadcastId).toList())
        .bindArray("renditions", String.class, inits.stream().map(ItemId::rendition).toList())
        .map((rs, ctx) -> ItemState.CONFIRMED.name().equals(rs.getString("state"))
            ? ItemId.init(rs.getString("broadcast_id"), rs.getString("rendition")) : null)
        .filter(Objects::nonNull)
        .list());
  }

  /**
   * One multi-row insert in the order of {@code items}; returns the rows it created by
   * {@linkplain LedgerItemMapper#position position}.
   */
  Map<ItemId, LedgerItem> insertAll(Handle handle, List<NewItem> items, Set<ItemId> confirmedInits) {
    int n = items.size();
    List<String> broadcastIds = new ArrayList<>(n);
    List<String> axes = new ArrayList<>(n);
    List<String> renditions = new ArrayList<>(n);
    List<Long> sequences = new ArrayList<>(n);
    List<String> sourcePaths = new ArrayList<>(n);
    List<String> originPaths = new ArrayList<>(n);
    List<Long> sizes = new ArrayList<>(n);
    List<String> states = new ArrayList<>(n);
    List<String> reasons = new ArrayList<>(n);
    List<String> details = new ArrayList<>(n);
    List<Long> registeredAts = new ArrayList<>(n);
    List<Long> nextAttemptAts = new ArrayList<>(n);
    List<String> leaseOwners = new ArrayList<>(n);
    List<Long> leaseUntils = new ArrayList<>(n);
    List<String> fileIdentities = new ArrayList<>(n);
    List<String> formats = new ArrayList<>(n);
    List<Long> recordedAts = new ArrayList<>(n);
    List<String> storageGroups = new ArrayList<>(n);
    List<String> traceContexts = new ArrayList<>(n);
    List<String> lanes = new ArrayList<>(n);
    for (NewItem item : items) {
      ItemId id = item.id();
      ItemState state = item.state();
      if (Registration.waitsForInit(item) && confirmedInits.contains(Registration.initOf(id))) {
        state = ItemState.PENDING;
      }
      broadcastIds.add(id.broadcastId());
      axes.add(id.axis().name());
      renditions.add(id.rendition());
      sequences.add(id.sequence());
      sourcePaths.add(item.sourcePath());
      originPaths.add(item.originPath());
      sizes.add(item.sizeBytes());
      states.add(state.name());
      reasons.add(nameOf(item.reason()));
      details.add(item.detail());
      registeredAts.add(epochMicros(item.registeredAt()));
      nextAttemptAts.add(epochMicros(item.nextAttemptAt()));
      leaseOwners.add(item.leaseOwner());
      leaseUntils.add(item.leased() ? epochMicros(item.leaseUntil()) : null);
      fileIdentities.add(item.fileIdentity());
      formats.add(LedgerItemMapper.formatColumn(id));
      recordedAts.add(item.recordedAt() == null ? null : epochMicros(item.recordedAt()));
      storageGroups.add(item.storageGroup());
      traceContexts.add(item.traceContext());
      lanes.add(nameOf(item.lane()));
    }
    Map<ItemId, CreatedRow> created = new HashMap<>();
    handle.createQuery(INSERT_ALL)
        .bindArray("broadcastIds", String.class, broadcastIds)
        .bindArray("axes", String.class, axes)
        .bindArray("renditions", String.class, renditions)
        .bindArray("sequences", Long.class, sequences)
        .bindArray("sourcePaths", String.class, sourcePaths)
        .bindArray("originPaths", String.class, originPaths)
        .bindArray("sizes", Long.class, sizes)
        .bindArray("states", String.class, states)
        .bindArray("reasons", String.class, reasons)
        .bindArray("details", String.class, details)
        .bindArray("registeredAts", Long.class, registeredAts)
        .bindArray("nextAttemptAts", Long.class, nextAttemptAts)
        .bindArray("leaseOwners", String.class, leaseOwners)
        .bindArray("leaseUntils", Long.class, leaseUntils)
        .bindArray("fileIdentities", String.class, fileIdentities)
        .bindArray("formats", String.class, formats)
        .bindArray("recordedAts", Long.class, recordedAts)
        .bindArray("storageGroups", String.class, storageGroups)
        .bindArray("traceContexts", String.class, traceContexts)
        .bindArray("lanes", String.class, lanes)
        .map((rs, ctx) -> new CreatedRow(rs.getLong("id"), LedgerItemMapper.itemId(rs),
            ItemState.valueOf(rs.getString("state"))))
        .forEach(row -> created.put(LedgerItemMapper.position(row.id()), row));
    // The rows as stored, built from what was sent: only the generated id and the state come back.
    // Keyed by position; the row of a position is the first item of the position in the batch.
    Map<ItemId, LedgerItem> rows = new HashMap<>();
    for (NewItem item : items) {
      ItemId position = LedgerItemMapper.position(item.id());
      CreatedRow row = created.get(position);
      if (row != null && !rows.containsKey(position)) {
        rows.put(position, asStored(row.rowId(), row.id(), row.state(), item));
      }
    }
    return rows;
  }

  /** The row {@code item} became when inserted with the generated {@code rowId} in {@code state}. */
  static LedgerItem asStored(long rowId, ItemId id, ItemState state, NewItem item) {
    return new LedgerItem(rowId, id, item.sourcePath(), item.originPath(), item.sizeBytes(), state, 0,
        item.reason(), item.detail(), micros(item.registeredAt()), micros(item.nextAttemptAt()), null, null, null,
        item.fileIdentity(), item.recordedAt() == null ? null : micros(item.recordedAt()), item.storageGroup(),
        item.traceContext(), item.lane());
  }

  private record CreatedRow(long rowId, ItemId id, ItemState state) {}

  /** The rows at the given positions, by {@linkplain LedgerItemMapper#position position}. */
  Map<ItemId, LedgerItem> findAll(Handle handle, List<ItemId> ids) {
    Map<ItemId, LedgerItem> found = new HashMap<>();
    handle.createQuery("SELECT " + COLUMNS + " FROM " + TABLE
            + " WHERE (broadcast_id, axis, rendition, sequence) IN (SELECT * FROM unnest(:broadcastIds::varchar[],"
            + " :axes::varchar[], :renditions::varchar[], :sequences::bigint[]))")
        .bindArray("broadcastIds", String.class, ids.stream().map(ItemId::broadcastId).toList())
        .bindArray("axes", String.class, ids.stream().map(id -> id.axis().name()).toList())
        .bindArray("renditions", String.class, ids.stream().map(ItemId::rendition).toList())
        .bindArray("sequences", Long.class, ids.stream().map(ItemId::sequence).toList())
        .map(mapper)
        .forEach(row -> found.put(LedgerItemMapper.position(row.id()), row));
    return found;
  }
}
