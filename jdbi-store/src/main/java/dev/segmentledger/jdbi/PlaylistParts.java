package dev.segmentledger.jdbi;

import static dev.segmentledger.jdbi.Sql.PLAYLISTS;
import static dev.segmentledger.jdbi.Sql.PLAYLIST_PARTS;
import static dev.segmentledger.jdbi.Sql.TABLE;

import dev.segmentledger.core.spi.PlaylistPart;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import org.jdbi.v3.core.Handle;
import org.jdbi.v3.core.Jdbi;

/**
 * The sealed parts of media playlists (table {@code segment_ledger_playlist_part}, migration V12):
 * {@link Playlists#parts}, {@link Playlists#partSummaries}, {@link Playlists#sealedSummary} and
 * {@link Playlists#sealPart}, and the deletes the other parts of the store make in their own
 * transactions: a re-open removes the part covering its PLAYBACK row and the later ones ({@link #UNSEAL_REOPENED}), the purge the parts of a broadcast it
 * emptied ({@link #deleteOf}).
 * Stateless over its {@link Jdbi}; thread-safe.
 *
 * <p>A seal and a re-open of a row it covers are ordered by the media playlist's record: the seal
 * locks it before it checks the rows, the re-open increments it (which locks it) before it deletes
 * the covering parts, in a statement of its own. Whichever comes second sees what the first did: a
 * seal after a re-open finds the row open and stores nothing; a re-open after a seal deletes the part.
 */
final class PlaylistParts {
  /** The columns of a part's summary, in the order of {@link PlaylistPart}'s components. */
  private static final String SUMMARY_COLUMNS = "broadcast_id, rendition, first_sequence, next_sequence, entries,"
      + " discontinuities, target_seconds, peak_bandwidth";

  /** The parts of one playlist in sequence order: one range of the primary key. Binds broadcastId, rendition. */
  static final String READ = "SELECT " + SUMMARY_COLUMNS + ", text FROM " + PLAYLIST_PARTS
      + " WHERE broadcast_id = :broadcastId AND rendition = :rendition ORDER BY first_sequence";

  /** As {@link #READ} without the text column. */
  static final String READ_SUMMARIES = "SELECT " + SUMMARY_COLUMNS + " FROM " + PLAYLIST_PARTS
      + " WHERE broadcast_id = :broadcastId AND rendition = :rendition ORDER BY first_sequence";

  /**
   * The rendition's last part with the running totals of its chain (V16): one row, the first of a
   * backward range of the primary key. Binds broadcastId, rendition.
   */
  static final String READ_LAST_TOTALS = "SELECT chain_first_sequence, next_sequence, total_entries,"
      + " total_discontinuities, total_target_seconds, total_peak_bandwidth FROM " + PLAYLIST_PARTS
      + " WHERE broadcast_id = :broadcastId AND rendition = :rendition ORDER BY first_sequence DESC LIMIT 1";

  private static final String SEAL = Sql.load("playlist-seal-part.sql");

  /** Locks the record of the part's playlist, if it has one, for the rest of the seal's transaction. */
  private static final String LOCK_PLAYLIST = "SELECT 1 FROM " + PLAYLISTS
      + " WHERE broadcast_id = :broadcastId AND rendition = :rendition FOR UPDATE";

  /**
   * Deletes, if the row {@code :id} is a PLAYBACK row, the part covering it and every later part of
   * its rendition (their running totals count it), through the parts' key: the rendition's parts
   * stay a chain from its first part. Run by a re-open, in its transaction, after the statement that
   * re-opened the row and incremented its playlist.
   */
  static final String UNSEAL_REOPENED = "DELETE FROM " + PLAYLIST_PARTS + " p USING " + TABLE + " i"
      + " WHERE i.id = :id AND i.axis = 'PLAYBACK' AND p.broadcast_id = i.broadcast_id"
      + " AND p.rendition = i.rendition AND p.next_sequence > i.sequence";

  private final Jdbi jdbi;

  PlaylistParts(Jdbi jdbi) {
    this.jdbi = Objects.requireNonNull(jdbi, "jdbi");
  }

  /** One range of the parts' key, in sequence order; with their text, or with an empty one if not {@code withText}. */
  List<PlaylistPart> parts(String broadcastId, String rendition, boolean withText) {
    Objects.requireNonNull(broadcastId, "broadcastId");
    Objects.requireNonNull(rendition, "rendition");
    return jdbi.withHandle(handle -> handle.createQuery(withText ? READ : READ_SUMMARIES)
        .bind("broadcastId", broadcastId)
        .bind("rendition", rendition)
        .map((rs, ctx) -> new PlaylistPart(rs.getString("broadcast_id"), rs.getString("rendition"),
            rs.getLong("first_sequence"), rs.getLong("next_sequence"), rs.getInt("entries"),
            rs.getInt("discontinuities"), rs.getInt("target_seconds"), rs.getLong("peak_bandwidth"),
            withText ? rs.getString("text") : ""))
        .list());
  }

  /** The chain's summary from the last part's running totals ({@link #READ_LAST_TOTALS}); empty without parts. */
  Optional<PlaylistPart> summary(String broadcastId, String rendition) {
    Objects.requireNonNull(broadcastId, "broadcastId");
    Objects.requireNonNull(rendition, "rendition");
    return jdbi.withHandle(handle -> handle.createQuery(READ_LAST_TOTALS)
        .bind("broadcastId", broadcastId)
        .bind("rendition", rendition)
        .map((rs, ctx) -> new PlaylistPart(broadcastId, rendition, rs.getLong("chain_first_sequence"),
            rs.getLong("next_sequence"), Math.toIntExact(rs.getLong("total_entries")),
            Math.toIntExact(rs.getLong("total_discontinuities")), rs.getInt("total_target_seconds"),
            rs.getLong("total_peak_bandwidth"), ""))
        .findOne());
  }

  /**
   * One transaction: locks the playlist's record ({@link #LOCK_PLAYLIST}), then inserts the part
   * unless another part of the playlist overlaps it, a row it covers is open, or its CONFIRMED rows
   * are not exactly its segment entries ({@code playlist-seal-part.sql}).
   */
  boolean seal(PlaylistPart part) {
    Objects.requireNonNull(part, "part");
    return jdbi.inTransaction(handle -> {
      handle.createQuery(LOCK_PLAYLIST)
          .bind("broadcastId", part.broadcastId())
          .bind("rendition", part.rendition())
          .mapTo(Integer.class)
          .findOne();
      return Sql.updatedOne(handle.createUpdate(SEAL)
          .bind("broadcastId", part.broadcastId())
          .bind("rendition", part.rendition())
          .bind("first", part.firstSequence())
          .bind("next", part.nextSequence())
          .bind("entries", part.entries())
          .bind("segments", part.entries() - part.gaps())
          .bind("discontinuities", part.discontinuities())
          .bind("target", part.targetSeconds())
          .bind("peak", part.peakBandwidth())
          .bind("text", part.text())
          .execute());
    });
  }

  /** Deletes every part of {@code broadcastId}, in the caller's transaction on {@code handle}. */
  static int deleteOf(Handle handle, String broadcastId) {
    return handle.createUpdate("DELETE FROM " + PLAYLIST_PARTS + " WHERE broadcast_id = :broadcastId")
        .bind("broadcastId", broadcastId)
        .execute();
  }
}
