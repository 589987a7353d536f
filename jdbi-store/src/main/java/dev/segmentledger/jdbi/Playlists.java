package dev.segmentledger.jdbi;

import static dev.segmentledger.jdbi.Sql.PLAYLISTS;
import static dev.segmentledger.jdbi.Sql.micros;

import dev.segmentledger.core.ItemId;
import dev.segmentledger.core.spi.PlaylistPart;
import dev.segmentledger.core.spi.PlaylistRecord;
import dev.segmentledger.core.spi.PlaylistStore;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.OffsetDateTime;
import java.time.Instant;
import java.util.Collection;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import org.jdbi.v3.core.Handle;
import org.jdbi.v3.core.Jdbi;
import org.jdbi.v3.core.statement.Update;

/**
 * The playlists part of {@link JdbiStateStore} (table {@code segment_ledger_playlist}, migration
 * V4, V12, V17: the ETags): the {@link PlaylistStore} itself, and the increments of {@code wanted} that the other
 * parts make in the transactions of their own changes ({@link #BUMP}, {@link #bump},
 * {@link #bumpBroadcast}). The multivariant playlist is stored under the rendition {@code ''}.
 * Every lease update is one compare-and-set on {@code (lease_owner, lease_until)}. The sealed parts
 * are {@link PlaylistParts}'. Stateless over its {@link Jdbi}; thread-safe.
 */
final class Playlists implements PlaylistStore {
  /** The columns {@link #map} reads. */
  static final String COLUMNS = "broadcast_id, rendition, wanted, published, published_entries, published_final,"
      + " published_checksum, lease_owner, lease_until, attempts, last_error, updated_at, full_due_at, peak_bandwidth,"
      + " live_etag, full_etag";

  /**
   * CTEs to append after a CTE {@code changed (broadcast_id, rendition, axis)} of changed rows:
   * they increment the playlists the change alters (see {@code playlist-bump.sql}). Binds {@code bumpAt}.
   */
  static final String BUMP = Sql.load("playlist-bump.sql");

  /** The claim ({@code playlist-claim.sql}); binds owner, leaseUntil, now, limit. */
  static final String CLAIM = Sql.load("playlist-claim.sql");

  /**
   * The count of playlists awaiting publication, in the order of their partial index: the planner has no
   * statistics for {@code wanted > published} (it takes a third of the table to match), so a plain count
   * scans every record of a small table; ordered, the index-only scan of the awaiting ones costs less.
   */
  static final String COUNT_AWAITING = "SELECT count(*) FROM (SELECT 1 FROM " + PLAYLISTS
      + " WHERE wanted > published ORDER BY updated_at) AS awaiting";

  /**
   * Raises the peak of a media playlist held by the caller and, if it rose, increments the
   * multivariant playlist, creating it if absent: one statement, which locks the media record, then
   * the multivariant one (the order of {@link #BUMP}).
   */
  private static final String RAISE_PEAK = "WITH raised AS (UPDATE " + PLAYLISTS
      + " SET peak_bandwidth = :peak, updated_at = :at"
      + " WHERE broadcast_id = :broadcastId AND rendition = :rendition AND lease_owner = :owner"
      + " AND lease_until = :heldUntil AND peak_bandwidth < :peak RETURNING broadcast_id)"
      + ", announced AS (INSERT INTO " + PLAYLISTS + " AS p (broadcast_id, rendition, wanted, updated_at)"
      + " SELECT broadcast_id, '', 1, :at FROM raised ON CONFLICT (broadcast_id, rendition)"
      + " DO UPDATE SET wanted = p.wanted + 1, updated_at = EXCLUDED.updated_at RETURNING p.broadcast_id)"
      + " SELECT count(*) FROM raised";
  private static final String HELD = " WHERE broadcast_id = :broadcastId AND rendition = :rendition"
      + " AND lease_owner = :owner AND lease_until = :heldUntil";

  private final Jdbi jdbi;
  private final BoundedReads reads;
  private final PlaylistParts parts;

  /**
   * Playlists on {@code jdbi}; the operator reads ({@link #find}, {@link #countAwaitingPublication})
   * run through {@code reads}.
   */
  Playlists(Jdbi jdbi, BoundedReads reads) {
    this.jdbi = Objects.requireNonNull(jdbi, "jdbi");
    this.reads = Objects.requireNonNull(reads, "reads");
    this.parts = new PlaylistParts(jdbi);
  }

  /**
   * Increments the playlists that the change of the rows {@code ids} alters, in the caller's
   * transaction on {@code handle}: one statement. Does nothing for no ids.
   */
  static void bump(Handle handle, Collection<ItemId> ids, Instant at) {
    if (ids.isEmpty()) {
      return;
    }
    handle.createQuery("WITH changed AS (SELECT * FROM unnest(:broadcastIds::varchar[], :renditions::varchar[],"
            + " :axes::varchar[]) AS u(broadcast_id, rendition, axis))" + BUMP + " SELECT count(*) FROM bumped")
        .bindArray("broadcastIds", String.class, ids.stream().map(ItemId::broadcastId).toList())
        .bindArray("renditions", String.class, ids.stream().map(ItemId::rendition).toList())
        .bindArray("axes", String.class, ids.stream().map(id -> id.axis().name()).toList())
        .bind("bumpAt", micros(at))
        .mapTo(Long.class)
        .one();
  }

  /**
   * Increments every playlist of {@code broadcastId} (it ended), in the caller's transaction. The
   * records are locked first, in the order of {@link #BUMP} (media playlists by rendition, then the
   * multivariant one), so that a concurrent {@link #raisePeakBandwidth}, which holds a media playlist
   * and waits for the multivariant one, never waits in a cycle with it.
   */
  static void bumpBroadcast(Handle handle, String broadcastId, Instant at) {
    handle.createUpdate("WITH locked AS MATERIALIZED (SELECT rendition FROM " + PLAYLISTS
            + " WHERE broadcast_id = :broadcastId ORDER BY rendition = '', rendition FOR UPDATE)"
            + " UPDATE " + PLAYLISTS + " SET wanted = wanted + 1, updated_at = :at"
            + " WHERE broadcast_id = :broadcastId AND rendition IN (SELECT rendition FROM locked)")
        .bind("broadcastId", broadcastId)
        .bind("at", micros(at))
        .execute();
  }

  @Override
  public List<PlaylistRecord> claimDue(String owner, Instant leaseUntil, Instant now, int limit) {
    Objects.requireNonNull(owner, "owner");
    Objects.requireNonNull(leaseUntil, "leaseUntil");
    Objects.requireNonNull(now, "now");
    if (limit <= 0) {
      throw new IllegalArgumentException("limit must be > 0, got " + limit);
    }
    return jdbi.withHandle(handle -> handle.createQuery(CLAIM)
        .bind("owner", owner)
        .bind("leaseUntil", micros(leaseUntil))
        .bind("now", micros(now))
        .bind("limit", limit)
        .map((rs, ctx) -> map(rs))
        .list()
        .stream()
        .sorted(java.util.Comparator.comparing(PlaylistRecord::updatedAt))
        .toList());
  }

  @Override
  public boolean recordIntent(String broadcastId, String rendition, String owner, Instant heldUntil, int entries,
      boolean complete) {
    return held(broadcastId, rendition, owner, heldUntil,
        "published_entries = GREATEST(published_entries, :entries), published_final = published_final OR :complete",
        u -> u.bind("entries", entries).bind("complete", complete));
  }

  @Override
  public boolean recordPublished(String broadcastId, String rendition, String owner, Instant heldUntil,
      long coveredWanted, String checksum, Instant at) {
    Objects.requireNonNull(at, "at");
    return held(broadcastId, rendition, owner, heldUntil,
        "published = GREATEST(published, :covered), published_checksum = :checksum, full_due_at = NULL,"
            + " attempts = 0, last_error = NULL, lease_owner = NULL, lease_until = NULL, updated_at = :at",
        u -> u.bind("covered", coveredWanted).bind("checksum", checksum).bind("at", micros(at)));
  }

  /** {@inheritDoc} {@code true}: columns {@code live_etag} and {@code full_etag} (V17). */
  @Override
  public boolean recordsEtags() {
    return true;
  }

  @Override
  public boolean recordPublished(String broadcastId, String rendition, String owner, Instant heldUntil,
      long coveredWanted, String checksum, String liveEtag, String fullEtag, Instant at) {
    Objects.requireNonNull(at, "at");
    return held(broadcastId, rendition, owner, heldUntil,
        "published = GREATEST(published, :covered), published_checksum = :checksum, full_due_at = NULL,"
            + " live_etag = :liveEtag, full_etag = :fullEtag,"
            + " attempts = 0, last_error = NULL, lease_owner = NULL, lease_until = NULL, updated_at = :at",
        u -> u.bind("covered", coveredWanted).bind("checksum", checksum).bind("liveEtag", liveEtag)
            .bind("fullEtag", fullEtag).bind("at", micros(at)));
  }

  @Override
  public boolean recordRefused(String broadcastId, String rendition, String owner, Instant heldUntil,
      String liveEtag, String fullEtag, String detail, Instant nextAttemptAt, Instant at) {
    Objects.requireNonNull(nextAttemptAt, "nextAttemptAt");
    Objects.requireNonNull(at, "at");
    return held(broadcastId, rendition, owner, heldUntil,
        "attempts = attempts + 1, last_error = :detail, lease_owner = NULL, lease_until = :next, updated_at = :at,"
            + " live_etag = :liveEtag, full_etag = :fullEtag",
        u -> u.bind("detail", detail).bind("next", micros(nextAttemptAt)).bind("at", micros(at))
            .bind("liveEtag", liveEtag).bind("fullEtag", fullEtag));
  }

  @Override
  public boolean recordFailure(String broadcastId, String rendition, String owner, Instant heldUntil, String detail,
      Instant nextAttemptAt, Instant at) {
    Objects.requireNonNull(nextAttemptAt, "nextAttemptAt");
    Objects.requireNonNull(at, "at");
    return held(broadcastId, rendition, owner, heldUntil,
        "attempts = attempts + 1, last_error = :detail, lease_owner = NULL, lease_until = :next, updated_at = :at",
        u -> u.bind("detail", detail).bind("next", micros(nextAttemptAt)).bind("at", micros(at)));
  }

  @Override
  public boolean release(String broadcastId, String rendition, String owner, Instant heldUntil, Instant dueAt) {
    Objects.requireNonNull(dueAt, "dueAt");
    return held(broadcastId, rendition, owner, heldUntil, "lease_owner = NULL, lease_until = :due",
        u -> u.bind("due", micros(dueAt)));
  }

  @Override
  public void requestPublication(String broadcastId, String rendition, Instant at) {
    Objects.requireNonNull(broadcastId, "broadcastId");
    Objects.requireNonNull(at, "at");
    jdbi.useHandle(handle -> handle.createUpdate("INSERT INTO " + PLAYLISTS + " AS p (broadcast_id, rendition,"
            + " wanted, updated_at) VALUES (:broadcastId, :rendition, 1, :at) ON CONFLICT (broadcast_id, rendition)"
            + " DO UPDATE SET wanted = p.wanted + 1, updated_at = EXCLUDED.updated_at,"
            + " full_due_at = CASE WHEN p.rendition = '' THEN p.full_due_at"
            + " ELSE LEAST(p.full_due_at, EXCLUDED.updated_at) END")
        .bind("broadcastId", broadcastId)
        .bind("rendition", internal(rendition))
        .bind("at", micros(at))
        .execute());
  }

  @Override
  public List<PlaylistRecord> find(String broadcastId) {
    Objects.requireNonNull(broadcastId, "broadcastId");
    return reads.read(handle -> handle.createQuery("SELECT " + COLUMNS + " FROM " + PLAYLISTS
            + " WHERE broadcast_id = :broadcastId ORDER BY rendition = '', rendition")
        .bind("broadcastId", broadcastId)
        .map((rs, ctx) -> map(rs))
        .list());
  }

  @Override
  public long countAwaitingPublication() {
    return reads.read(handle -> handle.createQuery(COUNT_AWAITING)
        .mapTo(Long.class)
        .one());
  }

  private boolean held(String broadcastId, String rendition, String owner, Instant heldUntil, String assignments,
      java.util.function.UnaryOperator<Update> binds) {
    Objects.requireNonNull(broadcastId, "broadcastId");
    Objects.requireNonNull(owner, "owner");
    Objects.requireNonNull(heldUntil, "heldUntil");
    return Sql.updatedOne(jdbi.withHandle(handle -> binds.apply(handle.createUpdate("UPDATE " + PLAYLISTS
            + " SET " + assignments + HELD))
        .bind("broadcastId", broadcastId)
        .bind("rendition", internal(rendition))
        .bind("owner", owner)
        .bind("heldUntil", micros(heldUntil))
        .execute()));
  }

  private static PlaylistRecord map(ResultSet rs) throws SQLException {
    String rendition = rs.getString("rendition");
    return new PlaylistRecord(rs.getString("broadcast_id"), rendition.isEmpty() ? null : rendition,
        rs.getLong("wanted"), rs.getLong("published"), rs.getInt("published_entries"),
        rs.getBoolean("published_final"), rs.getString("published_checksum"), rs.getString("lease_owner"),
        instant(rs, "lease_until"), rs.getInt("attempts"), rs.getString("last_error"),
        instant(rs, "updated_at"), instant(rs, "full_due_at"), rs.getLong("peak_bandwidth"),
        rs.getString("live_etag"), rs.getString("full_etag"));
  }

  private static Instant instant(ResultSet rs, String column) throws SQLException {
    OffsetDateTime value = rs.getObject(column, OffsetDateTime.class);
    return value == null ? null : value.toInstant();
  }

  private static String internal(String rendition) {
    return rendition == null ? "" : rendition;
  }

  /**
   * {@inheritDoc}
   *
   * <p>{@code full_due_at} becomes {@code LEAST(full_due_at, :fullDueAt)}: PostgreSQL's
   * {@code LEAST} ignores a {@code NULL}, so a playlist up to date takes {@code fullDueAt}.
   */
  @Override
  public boolean recordLivePublished(String broadcastId, String rendition, String owner, Instant heldUntil,
      long coveredWanted, Instant fullDueAt, Instant at) {
    Objects.requireNonNull(fullDueAt, "fullDueAt");
    Objects.requireNonNull(at, "at");
    return held(broadcastId, rendition, owner, heldUntil,
        "published = GREATEST(published, :covered), full_due_at = LEAST(full_due_at, :fullDue), attempts = 0,"
            + " last_error = NULL, lease_owner = NULL, lease_until = NULL, updated_at = :at",
        u -> u.bind("covered", coveredWanted).bind("fullDue", micros(fullDueAt)).bind("at", micros(at)));
  }

  /** {@inheritDoc} One statement ({@link #RAISE_PEAK}). */
  @Override
  public boolean recordLivePublished(String broadcastId, String rendition, String owner, Instant heldUntil,
      long coveredWanted, Instant fullDueAt, String liveEtag, Instant at) {
    Objects.requireNonNull(fullDueAt, "fullDueAt");
    Objects.requireNonNull(at, "at");
    return held(broadcastId, rendition, owner, heldUntil,
        "published = GREATEST(published, :covered), full_due_at = LEAST(full_due_at, :fullDue), attempts = 0,"
            + " live_etag = :liveEtag, last_error = NULL, lease_owner = NULL, lease_until = NULL, updated_at = :at",
        u -> u.bind("covered", coveredWanted).bind("fullDue", micros(fullDueAt)).bind("liveEtag", liveEtag)
            .bind("at", micros(at)));
  }

  @Override
  public boolean raisePeakBandwidth(String broadcastId, String rendition, String owner, Instant heldUntil,
      long bitsPerSecond, Instant at) {
    Objects.requireNonNull(broadcastId, "broadcastId");
    Objects.requireNonNull(rendition, "rendition of a media playlist");
    Objects.requireNonNull(owner, "owner");
    Objects.requireNonNull(heldUntil, "heldUntil");
    Objects.requireNonNull(at, "at");
    if (bitsPerSecond < 0) {
      throw new IllegalArgumentException("bitsPerSecond must be >= 0, got " + bitsPerSecond);
    }
    return jdbi.withHandle(handle -> handle.createQuery(RAISE_PEAK)
        .bind("broadcastId", broadcastId)
        .bind("rendition", rendition)
        .bind("owner", owner)
        .bind("heldUntil", micros(heldUntil))
        .bind("peak", bitsPerSecond)
        .bind("at", micros(at))
        .mapTo(Long.class)
        .one()) == 1;
  }

  /** {@inheritDoc} One range of the parts' primary key (broadcast, rendition, first sequence). */
  @Override
  public List<PlaylistPart> parts(String broadcastId, String rendition) {
    return parts.parts(broadcastId, rendition, true);
  }

  /** {@inheritDoc} The same range of the parts' key, without the text column. */
  @Override
  public List<PlaylistPart> partSummaries(String broadcastId, String rendition) {
    return parts.parts(broadcastId, rendition, false);
  }

  /**
   * {@inheritDoc} One row: the rendition's last part, read backward through the parts' primary key,
   * with the running totals its seal stored (V16).
   */
  @Override
  public Optional<PlaylistPart> sealedSummary(String broadcastId, String rendition) {
    return parts.summary(broadcastId, rendition);
  }

  /**
   * {@inheritDoc}
   *
   * <p>Also refuses (stores nothing, returns {@code false}) a part that overlaps any part of its
   * playlist, or that covers a PLAYBACK row open now (re-opened since the caller read it): see
   * {@link PlaylistParts}.
   */
  @Override
  public boolean sealPart(PlaylistPart part) {
    return parts.seal(part);
  }
}
