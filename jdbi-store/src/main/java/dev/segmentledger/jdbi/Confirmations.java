package dev.segmentledger.jdbi;

import static dev.segmentledger.jdbi.Sql.NO_LEASE;
import static dev.segmentledger.jdbi.Sql.TABLE;
import static dev.segmentledger.jdbi.Sql.epochMicros;
import static dev.segmentledger.jdbi.Sql.micros;

import dev.segmentledger.core.Axis;
import dev.segmentledger.core.ItemId;
import dev.segmentledger.core.spi.Confirmation;
import java.time.Instant;
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
      + " WHERE id = :id AND state = :expectedState AND size_bytes = :expectedSize"
      + " RETURNING broadcast_id, axis, rendition, sequence, media_format)" + Playlists.BUMP
      + " SELECT broadcast_id, axis, rendition, sequence, media_format FROM changed";

  /** {@code confirm-batch.sql} and, in the same statement, the playlist increments, as {@link #CONFIRM_ONE}. */
  private static final String CONFIRM_ALL = "WITH changed AS (" + Sql.load("confirm-batch.sql") + ")"
      + Playlists.BUMP + " SELECT id, broadcast_id, axis, rendition, sequence, media_format FROM changed";

  private final Jdbi jdbi;

  Confirmations(Jdbi jdbi) {
    this.jdbi = Objects.requireNonNull(jdbi, "jdbi");
  }

  /**
   * One confirmation, in one transaction: the conditional update of the row (its expected state
   * and size in the {@code WHERE} clause) with, in the same statement, the increment of the
   * playlists it alters, and, for an INIT, the release of the waiting PLAYBACK rows of its
   * rendition. Returns whether it confirmed the row. A transaction PostgreSQL aborts as a deadlock
   * victim is run again (an INIT's confirm locks its playlists before the waiting rows).
   */
  boolean confirm(Confirmation c) {
    return Deadlocks.retry(() -> jdbi.inTransaction(handle -> {
      Optional<ItemId> confirmed = handle.createQuery(CONFIRM_ONE)
          .bind("checksum", c.checksum())
          .bind("confirmedAt", micros(c.confirmedAt()))
          .bind("id", c.rowId())
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
   * release of the waiting PLAYBACK rows of their renditions. A transaction PostgreSQL aborts as a
   * deadlock victim is run again.
   */
  boolean[] confirmAll(List<Confirmation> confirmations) {
    Objects.requireNonNull(confirmations, "confirmations");
    if (confirmations.isEmpty()) {
      return new boolean[0];
    }
    if (confirmations.size() == 1) {
      return new boolean[] {confirm(confirmations.get(0))};
    }
    Set<Long> confirmed = Deadlocks.retry(() -> jdbi.inTransaction(handle -> {
      Sql.planForTheseArrays(handle);
      Set<Long> ids = new HashSet<>();
      Set<ItemId> inits = new HashSet<>();
      handle.createQuery(CONFIRM_ALL)
          .bindArray("ids", Long.class, confirmations.stream().map(Confirmation::rowId).toList())
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
    boolean[] results = new boolean[confirmations.size()];
    for (int i = 0; i < results.length; i++) {
      results[i] = confirmed.remove(confirmations.get(i).rowId());
    }
    return results;
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
