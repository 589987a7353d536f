package dev.segmentledger.jdbi;

import static dev.segmentledger.jdbi.Sql.NO_LEASE;
import static dev.segmentledger.jdbi.Sql.TABLE;
import static dev.segmentledger.jdbi.Sql.epochMicros;
import static dev.segmentledger.jdbi.Sql.micros;

import dev.segmentledger.core.Axis;
import dev.segmentledger.core.ItemId;
import dev.segmentledger.core.spi.Confirmation;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Types;
import java.time.Instant;
import java.time.OffsetDateTime;
import java.time.ZoneOffset;
import java.util.HashSet;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;
import org.jdbi.v3.core.Handle;
import org.jdbi.v3.core.Jdbi;

/**
 * The confirmations part of {@link JdbiStateStore}: {@code confirm}, {@code confirmAll}, and what
 * an INIT's outcome does to the PLAYBACK rows WAITING for it ({@code settleWaiting}). Stateless over
 * its {@link Jdbi} (each call runs on a handle of its own); thread-safe.
 */
final class Confirmations {
  /**
   * The conditional update of one row and, in the same statement, the increment of the playlists
   * its confirm alters ({@link Playlists#BUMP}; binds {@code bumpAt}).
   */
  private static final String CONFIRM_ONE = "WITH changed AS (UPDATE " + TABLE
      + " SET state = 'CONFIRMED', checksum = :checksum, confirmed_at = :confirmedAt, " + NO_LEASE
      + " WHERE id = :id AND broadcast_id = :broadcastId AND axis = :axis AND state = :expectedState"
      + " AND size_bytes = :expectedSize"
      + " RETURNING broadcast_id, axis, rendition, sequence, media_format)" + Playlists.BUMP
      + " SELECT broadcast_id, axis, rendition, sequence, media_format FROM changed";

  /** {@code confirm-batch.sql} and, in the same statement, the playlist increments, as {@link #CONFIRM_ONE}. */
  private static final String CONFIRM_ALL = "WITH changed AS (" + Sql.load("confirm-batch.sql") + ")"
      + Playlists.BUMP + " SELECT id, broadcast_id, axis, rendition, sequence, media_format FROM changed";

  /**
   * {@link #CONFIRM_ONE} and {@link #CONFIRM_ALL} for plain JDBC, after {@link Sql#KEYED_PLANS} in
   * the same round trip (the statements share its implicit transaction).
   */
  private static final PlainStatement CONFIRM_ONE_PLAIN = PlainStatement.of(Sql.KEYED_PLANS + CONFIRM_ONE);
  private static final PlainStatement CONFIRM_ALL_PLAIN = PlainStatement.of(Sql.KEYED_PLANS + CONFIRM_ALL);

  private final Jdbi jdbi;

  Confirmations(Jdbi jdbi) {
    this.jdbi = Objects.requireNonNull(jdbi, "jdbi");
  }

  /**
   * Confirms of rows none of which is an INIT, in one round trip and one statement, its own
   * transaction: the conditional update and the playlist increments ({@link #CONFIRM_ALL}, or
   * {@link #CONFIRM_ONE} for one row). Returns the ids of the rows it confirmed. An INIT's confirm
   * also releases the playback rows waiting for it, in a statement of its own within the same
   * transaction (which must see rows committed while the confirm waited for the INIT's lock), so
   * batches with an INIT go the transactional way. A row is confirmed only under the axis its
   * confirmation names, so no INIT is confirmed here.
   */
  private Set<Long> confirmPlain(List<Confirmation> confirmations) {
    return Deadlocks.retry(() -> jdbi.withHandle(handle -> {
      try {
        return confirmPlain(handle, confirmations);
      } catch (SQLException e) {
        throw new SqlFailure(e);
      }
    }));
  }

  private static Set<Long> confirmPlain(Handle handle, List<Confirmation> confirmations) throws SQLException {
    Set<Long> ids = new HashSet<>();
    if (confirmations.size() == 1) {
      Confirmation c = confirmations.get(0);
      try (PlainStatement.Bound statement = CONFIRM_ONE_PLAIN.prepare(handle.getConnection())) {
        statement.set("checksum", c.checksum())
            .set("confirmedAt", epochMicrosAsTimestamp(c.confirmedAt()), Types.TIMESTAMP_WITH_TIMEZONE)
            .set("id", c.rowId())
            .set("broadcastId", c.broadcastId())
            .set("axis", c.id().axis().name())
            .set("expectedState", c.expectedState().name())
            .set("expectedSize", c.expectedSize())
            .set("bumpAt", epochMicrosAsTimestamp(c.confirmedAt()), Types.TIMESTAMP_WITH_TIMEZONE);
        try (ResultSet rs = resultOfSecond(statement.statement())) {
          if (rs.next()) {
            ids.add(c.rowId());
          }
        }
      }
      return ids;
    }
    int n = confirmations.size();
    Long[] rowIds = new Long[n];
    String[] broadcastIds = new String[n];
    String[] axes = new String[n];
    String[] states = new String[n];
    Long[] sizes = new Long[n];
    String[] checksums = new String[n];
    Long[] confirmedAts = new Long[n];
    for (int i = 0; i < n; i++) {
      Confirmation c = confirmations.get(i);
      rowIds[i] = c.rowId();
      broadcastIds[i] = c.broadcastId();
      axes[i] = c.id().axis().name();
      states[i] = c.expectedState().name();
      sizes[i] = c.expectedSize();
      checksums[i] = c.checksum();
      confirmedAts[i] = epochMicros(c.confirmedAt());
    }
    try (PlainStatement.Bound statement = CONFIRM_ALL_PLAIN.prepare(handle.getConnection())) {
      statement.setArray("ids", "int8", rowIds)
          .setArray("broadcastIds", "varchar", broadcastIds)
          .setArray("axes", "varchar", axes)
          .setArray("states", "varchar", states)
          .setArray("sizes", "int8", sizes)
          .setArray("checksums", "text", checksums)
          .setArray("confirmedAts", "int8", confirmedAts)
          .set("bumpAt", epochMicrosAsTimestamp(confirmations.get(0).confirmedAt()), Types.TIMESTAMP_WITH_TIMEZONE);
      try (ResultSet rs = resultOfSecond(statement.statement())) {
        while (rs.next()) {
          ids.add(rs.getLong("id"));
        }
      }
    }
    return ids;
  }

  /** Runs {@code ps}, {@link Sql#KEYED_PLANS} and then its statement, and returns the latter's rows. */
  static ResultSet resultOfSecond(PreparedStatement ps) throws SQLException {
    ps.execute();
    if (!ps.getMoreResults()) {
      throw new SQLException("no rows from the statement after the plan settings");
    }
    return ps.getResultSet();
  }

  /** An instant as JDBC binds a {@code timestamptz}, truncated to microseconds as every instant stored. */
  private static OffsetDateTime epochMicrosAsTimestamp(Instant instant) {
    return micros(instant).atOffset(ZoneOffset.UTC);
  }

  private static boolean anInit(List<Confirmation> confirmations) {
    for (Confirmation c : confirmations) {
      if (c.id().axis() == Axis.INIT) {
        return true;
      }
    }
    return false;
  }

  /**
   * One confirmation, in one transaction: the conditional update of the row (its expected state
   * and size in the {@code WHERE} clause) with, in the same statement, the increment of the
   * playlists it alters, and, for an INIT, the release of the waiting PLAYBACK rows of its
   * rendition. Returns whether it confirmed the row. A transaction PostgreSQL aborts as a deadlock
   * victim is run again (an INIT's confirm locks its playlists before the waiting rows).
   */
  boolean confirm(Confirmation c) {
    if (c.id().axis() != Axis.INIT) {
      return confirmPlain(List.of(c)).contains(c.rowId());
    }
    return Deadlocks.retry(() -> jdbi.inTransaction(handle -> {
      Optional<ItemId> confirmed = handle.createQuery(CONFIRM_ONE)
          .bind("checksum", c.checksum())
          .bind("confirmedAt", micros(c.confirmedAt()))
          .bind("id", c.rowId())
          .bind("broadcastId", c.broadcastId())
          .bind("axis", c.id().axis().name())
          .bind("expectedState", c.expectedState().name())
          .bind("expectedSize", c.expectedSize())
          .bind("bumpAt", micros(c.confirmedAt()))
          .map((rs, ctx) -> LedgerItemMapper.itemId(rs))
          .findOne();
      confirmed.filter(id -> id.axis() == Axis.INIT).ifPresent(init -> releaseWaiting(handle, Set.of(init)));
      return confirmed.isPresent();
    }));
  }

  /**
   * A single confirmation is a {@link #confirm}. A batch is one transaction of a few statements
   * whatever its size, planned for its arrays: a conditional {@code UPDATE ... FROM unnest(...)}
   * whose join carries each row's expected state and size, with the playlist increments in the same
   * statement, and, if it confirmed INIT rows, the
   * release of the waiting PLAYBACK rows of their renditions. Its rows are updated in row-id order
   * ({@link Deadlocks#inRowOrder}). A transaction PostgreSQL aborts as a deadlock victim is run again.
   */
  boolean[] confirmAll(List<Confirmation> confirmations) {
    Objects.requireNonNull(confirmations, "confirmations");
    if (confirmations.isEmpty()) {
      return new boolean[0];
    }
    if (confirmations.size() == 1) {
      return new boolean[] {confirm(confirmations.get(0))};
    }
    List<Confirmation> ordered = Deadlocks.inRowOrder(confirmations, Confirmation::rowId);
    Set<Long> confirmed = anInit(ordered) ? confirmWithInits(ordered) : confirmPlain(ordered);
    boolean[] results = new boolean[confirmations.size()];
    for (int i = 0; i < results.length; i++) {
      results[i] = confirmed.remove(confirmations.get(i).rowId());
    }
    return results;
  }

  /**
   * A batch with an INIT, in one transaction: the conditional update with the playlist increments,
   * then the release of the playback rows waiting for the INITs it confirmed. Returns the ids of the
   * rows it confirmed.
   */
  private Set<Long> confirmWithInits(List<Confirmation> confirmations) {
    return Deadlocks.retry(() -> jdbi.inTransaction(handle -> {
      Sql.planForTheseArrays(handle);
      Set<Long> ids = new HashSet<>();
      Set<ItemId> inits = new HashSet<>();
      handle.createQuery(CONFIRM_ALL)
          .bindArray("ids", Long.class, confirmations.stream().map(Confirmation::rowId).toList())
          .bindArray("broadcastIds", String.class, confirmations.stream().map(Confirmation::broadcastId).toList())
          .bindArray("axes", String.class, confirmations.stream().map(c -> c.id().axis().name()).toList())
          .bindArray("states", String.class, confirmations.stream().map(c -> c.expectedState().name()).toList())
          .bindArray("sizes", Long.class, confirmations.stream().map(Confirmation::expectedSize).toList())
          .bindArray("checksums", String.class, confirmations.stream().map(Confirmation::checksum).toList())
          .bindArray("confirmedAts", Long.class,
              confirmations.stream().map(c -> epochMicros(c.confirmedAt())).toList())
          .bind("bumpAt", micros(confirmations.get(0).confirmedAt()))
          .map((rs, ctx) -> {
            if (Axis.INIT.name().equals(rs.getString("axis"))) {
              inits.add(ItemId.init(rs.getString("broadcast_id"), rs.getString("rendition")));
            }
            return rs.getLong("id");
          })
          .forEach(ids::add);
      if (!inits.isEmpty()) {
        releaseWaiting(handle, inits);
      }
      return ids;
    }));
  }

  /** Turns the WAITING PLAYBACK rows of the renditions of the given confirmed INITs PENDING. */
  private static void releaseWaiting(Handle handle, Set<ItemId> inits) {
    Sql.planForTheseArrays(handle); // also reached from a single confirm, which plans nothing else for arrays
    handle.createUpdate("UPDATE " + TABLE + " SET state = 'PENDING' WHERE state = 'WAITING' AND axis = 'PLAYBACK'"
            + " AND (broadcast_id, rendition) IN (SELECT * FROM unnest(:broadcastIds::varchar[],"
            + " :renditions::varchar[]))")
        .bindArray("broadcastIds", String.class, inits.stream().map(ItemId::broadcastId).toList())
        .bindArray("renditions", String.class, inits.stream().map(ItemId::rendition).toList())
        .execute();
  }

  /**
   * {@link JdbiStateStore#settleWaiting}: two joined updates in one transaction, through the
   * partial index on waiting rows. WAITING PLAYBACK rows whose INIT is CONFIRMED turn PENDING; those
   * whose INIT is REJECTED or EXCLUDED are REJECTED ({@code INIT_FAILED}).
   */
  int settleWaiting(Instant at) {
    Objects.requireNonNull(at, "at");
    String join = " FROM " + TABLE + " i WHERE p.state = 'WAITING' AND p.axis = 'PLAYBACK'"
        + " AND i.axis = 'INIT' AND i.broadcast_id = p.broadcast_id AND i.rendition = p.rendition AND i.sequence = 0";
    return jdbi.inTransaction(handle -> handle.createUpdate("UPDATE " + TABLE + " p SET state = 'PENDING'"
            + join + " AND i.state = 'CONFIRMED'").execute()
        + handle.createQuery("WITH changed AS (UPDATE " + TABLE + " p SET state = 'REJECTED',"
            + " reason = 'INIT_FAILED', last_error = 'the rendition''s init is ' || i.state, terminal_at = :at"
            + join + " AND i.state IN ('REJECTED', 'EXCLUDED') RETURNING p.broadcast_id, p.rendition, p.axis)"
            + Playlists.BUMP + " SELECT count(*) FROM changed")
        .bind("at", micros(at))
        .bind("bumpAt", micros(at))
        .mapTo(Integer.class)
        .one());
  }
}
