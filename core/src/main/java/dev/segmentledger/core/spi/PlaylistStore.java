package dev.segmentledger.core.spi;

import java.time.Instant;
import java.util.List;
import java.util.Optional;

/**
 * The playlist publication part of a {@link StateStore} ({@link StateStore#playlists()}): one
 * {@link PlaylistRecord} per media playlist and per multivariant playlist, leased to one publisher
 * at a time like rows. The store creates the records and increments their {@code wanted} count
 * itself, atomically with the change that alters the playlist:
 *
 * <ul>
 *   <li>a PLAYBACK or INIT row confirmed ({@link StateStore#confirm}, {@link StateStore#confirmAll}),
 *       made terminal ({@link StateStore#markTerminal}, {@link StateStore#excludeRegisteredBefore},
 *       {@link StateStore#settleWaiting}) or re-opened ({@link StateStore#reopen}) increments its
 *       rendition's media playlist, creating it if absent;
 *   <li>such a change of an INIT row also increments the broadcast's multivariant playlist, creating
 *       it if absent (a PLAYBACK row changes the multivariant playlist only through its rendition's
 *       peak bandwidth: {@link #raisePeakBandwidth});
 *   <li>a re-open of a PLAYBACK row also removes the {@linkplain #parts part} that covers it and every
 *       later part of its rendition (their {@linkplain #sealedSummary running totals} would count it);
 *   <li>any of those changes to a row (any axis) of an ended broadcast, and {@link
 *       StateStore#endBroadcast} itself, increment every existing playlist of the broadcast (its
 *       completion changes them all).
 * </ul>
 *
 * <p>Every update below is a compare-and-set on the lease holder: it changes nothing and returns
 * {@code false} unless {@code owner} holds the lease that ends at exactly {@code heldUntil} (as
 * returned by {@link #claimDue}). Implementations must be thread-safe. The multivariant playlist is
 * named by a {@code null} rendition throughout.
 */
public interface PlaylistStore {

  /**
   * Claims up to {@code limit} playlists that await publication ({@code wanted > published}) or
   * whose full playlist is behind and due ({@link PlaylistRecord#fullDueAt} at or before
   * {@code now}), and that are free (no lease, or one that ended by {@code now}, and not in
   * backoff): each is leased to
   * {@code owner} until {@code leaseUntil}. Of concurrent claims each playlist goes to at most one
   * caller. Returns the claimed records as they are after the claim (with the {@code wanted} this
   * publication will cover), oldest change first.
   */
  List<PlaylistRecord> claimDue(String owner, Instant leaseUntil, Instant now, int limit);

  /**
   * Records, before the PUT, what is about to be published: {@code publishedEntries} becomes at
   * least {@code entries} and {@code publishedFinal} becomes true if {@code complete}. After a crash
   * between the PUT and {@link #recordPublished}, the next publisher so never lists fewer entries
   * than a reader may have seen. Compare-and-set on the lease.
   */
  boolean recordIntent(String broadcastId, String rendition, String owner, Instant heldUntil, int entries,
      boolean complete);

  /**
   * Records a publication covering change count {@code coveredWanted}: {@code published} becomes at
   * least that, the checksum is stored, attempts and last error are cleared and the lease ends.
   * Compare-and-set on the lease.
   */
  boolean recordPublished(String broadcastId, String rendition, String owner, Instant heldUntil, long coveredWanted,
      String checksum, Instant at);

  /**
   * Records a failed publication: increments {@code attempts}, sets {@code lastError}, ends the lease
   * and makes the playlist due again at {@code nextAttemptAt}. Compare-and-set on the lease.
   */
  boolean recordFailure(String broadcastId, String rendition, String owner, Instant heldUntil, String detail,
      Instant nextAttemptAt, Instant at);

  /**
   * Records a publication of a media playlist's live window only, covering change count
   * {@code coveredWanted}, while its full playlist stays behind until {@code fullDueAt}:
   * {@code published} becomes at least {@code coveredWanted}, {@link PlaylistRecord#fullDueAt}
   * becomes the earlier of its current value and {@code fullDueAt}, attempts and last error are
   * cleared and the lease ends. The checksum of the full playlist is kept. {@link #recordPublished}
   * (a publication of the full playlist) clears {@code fullDueAt}. Compare-and-set on the lease.
   */
  boolean recordLivePublished(String broadcastId, String rendition, String owner, Instant heldUntil,
      long coveredWanted, Instant fullDueAt, Instant at);

  /**
   * Whether this store keeps the ETags of the published playlist objects ({@link
   * PlaylistRecord#liveEtag}, {@link PlaylistRecord#fullEtag}) through {@link
   * #recordPublished(String, String, String, Instant, long, String, String, String, Instant)}, {@link
   * #recordLivePublished(String, String, String, Instant, long, Instant, String, Instant)} and {@link
   * #recordRefused}. Only then does the publisher write playlists conditionally (a sink that
   * {@linkplain dev.segmentledger.core.spi.ObjectSink#supportsConditionalPuts() can}): a store that
   * forgot them would have every conditional write refused. The default, {@code false}, goes with the
   * defaults of those three methods. Constant for a given store.
   */
  default boolean recordsEtags() {
    return false;
  }

  /**
   * {@link #recordPublished(String, String, String, Instant, long, String, Instant)}, also storing the
   * ETags of the two playlist objects as now published ({@code null}: none known). The default
   * ignores the ETags (a store whose {@link #recordsEtags()} is {@code false}). Compare-and-set on the
   * lease.
   */
  default boolean recordPublished(String broadcastId, String rendition, String owner, Instant heldUntil,
      long coveredWanted, String checksum, String liveEtag, String fullEtag, Instant at) {
    return recordPublished(broadcastId, rendition, owner, heldUntil, coveredWanted, checksum, at);
  }

  /**
   * {@link #recordLivePublished(String, String, String, Instant, long, Instant, Instant)}, also
   * storing the ETag of the live playlist object as now published ({@code null}: none known); the
   * full playlist's ETag is kept. The default ignores the ETag. Compare-and-set on the lease.
   */
  default boolean recordLivePublished(String broadcastId, String rendition, String owner, Instant heldUntil,
      long coveredWanted, Instant fullDueAt, String liveEtag, Instant at) {
    return recordLivePublished(broadcastId, rendition, owner, heldUntil, coveredWanted, fullDueAt, at);
  }

  /**
   * Records a publication refused by the bucket: a conditional write found another version of a
   * playlist object than the one last recorded (another node published it meanwhile, a lease
   * overlapped, or the object was replaced or deleted). As {@link #recordFailure} (attempts
   * incremented, {@code lastError} set, the lease ends, due again at {@code nextAttemptAt}), and the
   * ETags become {@code liveEtag} and {@code fullEtag}: the versions now in the bucket, which the
   * next publication, derived again from the ledger, expects. {@code published}, the entries and the
   * checksum are left as they are. The default is {@link #recordFailure} (the ETags are not kept).
   * Compare-and-set on the lease.
   */
  default boolean recordRefused(String broadcastId, String rendition, String owner, Instant heldUntil,
      String liveEtag, String fullEtag, String detail, Instant nextAttemptAt, Instant at) {
    return recordFailure(broadcastId, rendition, owner, heldUntil, detail, nextAttemptAt, at);
  }

  /**
   * Raises the recorded peak bandwidth of a media playlist to at least {@code bitsPerSecond}; if it
   * rose, increments the broadcast's multivariant playlist (which announces it) in the same
   * transaction. Compare-and-set on the media playlist's lease.
   *
   * @return whether the peak rose
   */
  boolean raisePeakBandwidth(String broadcastId, String rendition, String owner, Instant heldUntil,
      long bitsPerSecond, Instant at);

  /**
   * The sealed parts of one media playlist with their text, in sequence order: read by a
   * publication that renders the full playlist (due, final, or possibly unchanged) instead of the
   * rows they cover. Their text grows with the broadcast (about 3 to 6 KB per part of 100 entries).
   * A store on a database reads them through an index on (broadcast, rendition, first sequence).
   */
  List<PlaylistPart> parts(String broadcastId, String rendition);

  /**
   * The same parts as {@link #parts} without their text: each {@link PlaylistPart#text()} is empty
   * (the only {@code PlaylistPart}s allowed an empty text; their {@link PlaylistPart#gaps()} is 0),
   * every other component as stored. Read by a live-only publication, which needs the parts'
   * entry counts, discontinuities, targets and peaks but not their lines: one summary per 100
   * entries. A store on a database reads the same index range without the text column. The default
   * returns {@link #parts}, text included; stores should override it.
   */
  default List<PlaylistPart> partSummaries(String broadcastId, String rendition) {
    return parts(broadcastId, rendition);
  }

  /**
   * The rendition's sealed parts summed up in one summary without text: a {@link PlaylistPart}
   * from the first part's {@code firstSequence} to the last part's {@code nextSequence} whose
   * {@code entries} and {@code discontinuities} are the parts' sums, {@code targetSeconds} and
   * {@code peakBandwidth} their maxima, and {@code text} empty; empty if the rendition has no part.
   * Read by a live-only publication instead of {@link #partSummaries}. A store keeps a rendition's
   * parts following each other from its first part without a hole ({@link #sealPart} appends only at
   * the end; a re-open removes the later parts), so the summary lists what the parts list. A store on
   * a database keeps running totals on each part and reads only the last part, through the parts'
   * index, whatever the number of parts. The default sums {@link #partSummaries}, up to a hole.
   */
  default Optional<PlaylistPart> sealedSummary(String broadcastId, String rendition) {
    List<PlaylistPart> summaries = partSummaries(broadcastId, rendition);
    if (summaries.isEmpty()) {
      return Optional.empty();
    }
    PlaylistPart first = summaries.get(0);
    long next = first.firstSequence();
    int entries = 0;
    int discontinuities = 0;
    int target = 1;
    long peak = 0;
    for (PlaylistPart part : summaries) {
      if (part.firstSequence() != next) {
        break;
      }
      next = part.nextSequence();
      entries += part.entries();
      discontinuities += part.discontinuities();
      target = Math.max(target, part.targetSeconds());
      peak = Math.max(peak, part.peakBandwidth());
    }
    return Optional.of(new PlaylistPart(broadcastId, rendition, first.firstSequence(), next, entries,
        discontinuities, target, peak, ""));
  }

  /**
   * Stores {@code part} at the end of its rendition's parts: unless the rendition has no part yet,
   * only if its last part ends at {@code part.firstSequence()} (a part after a hole, an overlapping
   * or an equal part is refused); and unless the rows it covers
   * are no longer as the part lists them: a covered PLAYBACK row is open, or the covered CONFIRMED
   * PLAYBACK rows are not exactly {@code part.entries() - part.gaps()} (a row the publisher read
   * was re-opened and settled otherwise before the seal). Idempotent (a part is a pure function of
   * settled rows, so two publishers sealing the same part store the same text). The caller holds
   * the playlist's lease; the store does not check it.
   *
   * @return whether it was stored
   */
  boolean sealPart(PlaylistPart part);

  /**
   * Gives a lease back without a publication attempt (the breaker refused it, or the lease was too
   * short to PUT safely): the playlist is due again at {@code dueAt}. Compare-and-set on the lease.
   */
  boolean release(String broadcastId, String rendition, String owner, Instant heldUntil, Instant dueAt);

  /**
   * Increments {@code wanted} of one playlist, creating its record if absent, so that it is
   * published again (the reconciler's repair of a missing or different playlist object); for a
   * media playlist, also makes its full playlist due at {@code at} at the latest
   * ({@link PlaylistRecord#fullDueAt}), so that the full text is compared and PUT again even if
   * nothing in the ledger changed.
   */
  void requestPublication(String broadcastId, String rendition, Instant at);

  /** The records of one broadcast: its media playlists by rendition, then its multivariant one. */
  List<PlaylistRecord> find(String broadcastId);

  /**
   * The number of playlists awaiting publication across every broadcast. A store on a database
   * must answer it from an index holding only such playlists.
   */
  long countAwaitingPublication();
}
