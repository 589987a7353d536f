package dev.segmentledger.core.spi;

import java.util.Objects;

/**
 * A sealed run of a media playlist's entries, stored so that a publication of the full playlist
 * reads a few parts and the rows after the last one, never every row of a long broadcast.
 * Immutable.
 *
 * <p>A part covers the entries for the PLAYBACK rows with sequences {@code firstSequence} (inclusive)
 * to {@code nextSequence} (exclusive) of one rendition, rendered exactly as the full media playlist
 * lists them ({@code text}: one or more lines per entry, each ending in {@code \n}, without the
 * playlist's header or end tag). It is sealed only from settled rows (CONFIRMED, REJECTED or
 * EXCLUDED), which change again only when re-opened: a re-open of a row removes the part that
 * covers it and every later part of its rendition, in the re-open's own transaction, and the next
 * publication reads those rows again.
 * Parts of one rendition never overlap and follow each other without holes between them
 * ({@code nextSequence} of one is {@code firstSequence} of the next), the first beginning at the
 * rendition's first registered sequence.
 *
 * @param broadcastId the broadcast
 * @param rendition the rendition of the media playlist
 * @param firstSequence the sequence of the part's first entry
 * @param nextSequence the sequence after the part's last entry
 * @param entries the entries listed ({@code > 0}; less than {@code nextSequence - firstSequence}
 *     only if sequences were never registered, bridged with a discontinuity)
 * @param discontinuities the {@code #EXT-X-DISCONTINUITY} tags in {@code text}
 * @param targetSeconds the longest entry's duration, rounded up to whole seconds ({@code >= 1})
 * @param peakBandwidth the highest bit rate of its confirmed segments, in bits per second; 0 if unknown
 * @param text the entries' lines; empty only in a summary ({@link PlaylistStore#partSummaries}), which
 *     leaves them out
 */
public record PlaylistPart(String broadcastId, String rendition, long firstSequence, long nextSequence, int entries,
    int discontinuities, int targetSeconds, long peakBandwidth, String text) {

  /** The tag that marks an entry as a gap ({@code #EXT-X-GAP}), on a line of its own before the entry. */
  private static final String GAP_LINE = "#EXT-X-GAP\n";

  public PlaylistPart {
    Objects.requireNonNull(broadcastId, "broadcastId");
    Objects.requireNonNull(rendition, "rendition");
    Objects.requireNonNull(text, "text");
    if (firstSequence < 0 || nextSequence <= firstSequence) {
      throw new IllegalArgumentException("a part covers sequences [" + firstSequence + ", " + nextSequence + ")");
    }
    if (entries <= 0 || entries > nextSequence - firstSequence || discontinuities < 0 || targetSeconds < 1
        || peakBandwidth < 0) {
      throw new IllegalArgumentException("invalid part of " + broadcastId + "/" + rendition + " at " + firstSequence
          + ": entries " + entries + ", discontinuities " + discontinuities + ", target " + targetSeconds
          + ", peak " + peakBandwidth);
    }
  }

  /**
   * The entries listed as gaps: the {@code #EXT-X-GAP} lines of {@code text}. The other
   * {@code entries - gaps()} entries are segments, one per CONFIRMED row the part covers.
   */
  public int gaps() {
    int gaps = 0;
    for (int at = text.indexOf(GAP_LINE); at >= 0; at = text.indexOf(GAP_LINE, at + GAP_LINE.length())) {
      gaps++;
    }
    return gaps;
  }
}
