package dev.segmentledger.core.spi;

import java.time.Instant;
import java.util.Objects;

/**
 * The ledger's publication state of one playlist: a media playlist of a (broadcast, rendition), or
 * the multivariant playlist of a broadcast ({@code rendition == null}). Immutable.
 *
 * <p>{@code wanted} counts the changes of the ledger that alter the playlist (a confirm or terminal
 * failure of a PLAYBACK or INIT row, a re-open, the end of the broadcast); the store increments it
 * in the transaction of the change itself. {@code published} is the value of {@code wanted} that the
 * last recorded publication covered: the playlist is awaiting publication while
 * {@code wanted > published}.
 *
 * @param broadcastId the broadcast
 * @param rendition the rendition of a media playlist; {@code null} for the multivariant playlist
 * @param wanted the change count of the playlist's ledger state
 * @param published the change count the last recorded publication covered (0: never published)
 * @param publishedEntries the most entries ever published or about to be (recorded before each PUT):
 *     no publication may list fewer
 * @param publishedFinal whether a final (complete) playlist was published or is about to be
 * @param publishedChecksum the {@code sha256:<base64>} of the text last recorded as published, or
 *     {@code null}
 * @param leaseOwner the publisher holding the playlist now, or {@code null}
 * @param leaseUntil the end of that lease; without an owner, the time before which the playlist is not
 *     due again (backoff after a failure); {@code null} if due
 * @param attempts failed publications since the last success
 * @param lastError the last failure, or {@code null}
 * @param updatedAt when the record last changed
 * @param fullDueAt for a media playlist: when its full playlist, left behind its live window by a
 *     publication within the full playlist's cadence ({@link PlaylistStore#recordLivePublished}), is
 *     due to be published again, even with no further change; {@code null} while the full playlist
 *     is up to date
 * @param peakBandwidth for a media playlist: the highest bit rate of its confirmed segments as
 *     recorded by {@link PlaylistStore#raisePeakBandwidth}, in bits per second; 0 if unknown
 * @param liveEtag the ETag of the live playlist object (the live window of a media playlist, the
 *     live multivariant playlist) as last published, which the next publication expects to find
 *     there ({@link dev.segmentledger.core.spi.ObjectSink#putIfMatch}); {@code null} if none is known
 *     (never published, published by a sink that cannot write conditionally, or by a store that keeps
 *     no ETags: {@link PlaylistStore#recordsEtags()})
 * @param fullEtag the same for the full playlist object (the full media playlist, the multivariant
 *     playlist)
 */
public record PlaylistRecord(String broadcastId, String rendition, long wanted, long published,
    int publishedEntries, boolean publishedFinal, String publishedChecksum, String leaseOwner, Instant leaseUntil,
    int attempts, String lastError, Instant updatedAt, Instant fullDueAt, long peakBandwidth, String liveEtag,
    String fullEtag) {

  public PlaylistRecord {
    Objects.requireNonNull(broadcastId, "broadcastId");
    if (peakBandwidth < 0) {
      throw new IllegalArgumentException("peakBandwidth must be >= 0, got " + peakBandwidth);
    }
  }

  /** A record without known ETags (the form before conditional playlist writes). */
  public PlaylistRecord(String broadcastId, String rendition, long wanted, long published, int publishedEntries,
      boolean publishedFinal, String publishedChecksum, String leaseOwner, Instant leaseUntil, int attempts,
      String lastError, Instant updatedAt, Instant fullDueAt, long peakBandwidth) {
    this(broadcastId, rendition, wanted, published, publishedEntries, publishedFinal, publishedChecksum, leaseOwner,
        leaseUntil, attempts, lastError, updatedAt, fullDueAt, peakBandwidth, null, null);
  }

  /** A record whose full playlist is up to date and whose peak bandwidth is unknown (the 1.0 form). */
  public PlaylistRecord(String broadcastId, String rendition, long wanted, long published, int publishedEntries,
      boolean publishedFinal, String publishedChecksum, String leaseOwner, Instant leaseUntil, int attempts,
      String lastError, Instant updatedAt) {
    this(broadcastId, rendition, wanted, published, publishedEntries, publishedFinal, publishedChecksum, leaseOwner,
        leaseUntil, attempts, lastError, updatedAt, null, 0, null, null);
  }

  /** This record with the given {@link #liveEtag()} and {@link #fullEtag()}, every other component kept. */
  public PlaylistRecord withEtags(String liveEtag, String fullEtag) {
    return new PlaylistRecord(broadcastId, rendition, wanted, published, publishedEntries, publishedFinal,
        publishedChecksum, leaseOwner, leaseUntil, attempts, lastError, updatedAt, fullDueAt, peakBandwidth, liveEtag,
        fullEtag);
  }

  /** Whether this is the broadcast's multivariant playlist. */
  public boolean multivariant() {
    return rendition == null;
  }

  /** Whether the ledger changed since the last recorded publication. */
  public boolean awaitingPublication() {
    return wanted > published;
  }

  /** Whether the full media playlist was left behind its live window and is to be published again. */
  public boolean fullBehind() {
    return fullDueAt != null;
  }
}
