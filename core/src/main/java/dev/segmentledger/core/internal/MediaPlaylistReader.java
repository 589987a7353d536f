package dev.segmentledger.core.internal;

import dev.segmentledger.core.ItemId;
import dev.segmentledger.core.ItemState;
import dev.segmentledger.core.LedgerItem;
import dev.segmentledger.core.internal.PlaylistTexts.Entry;
import dev.segmentledger.core.internal.PlaylistTexts.Prefix;
import dev.segmentledger.core.internal.PlaylistTexts.Rendered;
import dev.segmentledger.core.internal.PlaylistTexts.Text;
import dev.segmentledger.core.spi.PlaylistPart;
import dev.segmentledger.core.spi.PlaylistStore;
import dev.segmentledger.core.spi.StateStore;
import java.util.ArrayList;
import java.util.List;
import java.util.function.BooleanSupplier;

/**
 * Reads what one publication of a media playlist needs: the playlist's sealed parts, as one summary
 * of them all without text ({@link PlaylistStore#sealedSummary}: one stored part) unless the full
 * playlist is to be rendered ({@link PlaylistStore#parts}, one record per
 * {@link PlaylistTexts#PART_ENTRIES} entries, about 3 to 6 KB of text each), then its PLAYBACK rows
 * after the last part in keyset pages ({@link StateStore#findSegments}), only until the prefix of
 * listed entries stops. Never reads every row of the broadcast, and a live-only read reads the same
 * number of parts whatever its length.
 * While rows settle in sequence order, the rows read are those of the live window, the block being
 * filled, the one waiting to be sealed and a page, whatever the broadcast's length; a row that
 * stays unconfirmed (or, while live, a sequence hole) keeps its block and those after it unsealed,
 * and the rows read grow until it settles. A read of summaries whose live window reaches back into
 * the parts is made again with texts. Stateless and thread-safe.
 */
final class MediaPlaylistReader {
  /** Rows per keyset page. */
  static final int PAGE = 128;

  private final StateStore store;
  private final int windowSegments;

  MediaPlaylistReader(StateStore store, int windowSegments) {
    this.store = store;
    this.windowSegments = windowSegments;
  }

  /**
   * One media playlist as the ledger holds it now.
   *
   * @param parts the sealed parts it lists first: with their text, or summaries without it (then
   *     {@link #full} cannot be rendered)
   * @param tail the entries after the parts, rendered
   * @param firstSequence its {@code EXT-X-MEDIA-SEQUENCE}
   * @param complete whether it is final (VOD)
   * @param withTexts whether {@code parts} carry their text
   * @param live its live window
   * @param sealable the parts this publication may seal (full blocks of settled entries behind the window)
   * @param peakBandwidth the highest bit rate of the confirmed entries listed: the parts' recorded peaks and
   *     the tail rows'
   * @param target the target duration
   */
  record Media(List<PlaylistPart> parts, List<Rendered> tail, long firstSequence, boolean complete,
      boolean withTexts, LiveWindow.Window live, List<PlaylistPart> sealable, long peakBandwidth, long target) {
    /** The entries the full playlist lists. */
    int entries() {
      return parts.stream().mapToInt(PlaylistPart::entries).sum() + tail.size();
    }

    /** The full playlist (EVENT, or VOD once complete), rendered now; only if read {@link #withTexts}. */
    Text full() {
      if (!withTexts) {
        throw new IllegalStateException("the parts were read without their text");
      }
      return PlaylistTexts.media(target, firstSequence, parts, tail, complete);
    }
  }

  /**
   * What a publication knows of the broadcast's completeness. The rows are read first and the open
   * rows after them, so that a row re-opened in between is either met by the read (then the
   * playlist is not complete) or seen by the completeness check.
   *
   * @param alreadyFinal the playlist was published final: it stays complete (re-opened positions are gaps)
   * @param ended the broadcast has ended (read before the rows: a broadcast that has not ended is not complete)
   * @param noOpenRows read after the rows: whether no row of the broadcast, of any axis, is unconfirmed
   */
  record Completion(boolean alreadyFinal, boolean ended, BooleanSupplier noOpenRows) {
    /** A completeness known in advance (the reader's tests). */
    static Completion known(boolean complete) {
      return new Completion(complete, complete, () -> complete);
    }
  }

  /** As {@link #read(String, String, int, Completion, boolean)} with texts and a completeness known in advance. */
  Media read(String broadcastId, String rendition, int floor, boolean complete) {
    return read(broadcastId, rendition, floor, Completion.known(complete), true);
  }

  /**
   * The media playlist of {@code rendition}, or {@code null} if there is nothing to publish yet
   * (its INIT is not confirmed and nothing was ever published). It is complete only if the
   * broadcast has ended, no row it read was unconfirmed, and no row was open after the read (or it
   * was already published final).
   *
   * @param floor the most entries ever published: it lists at least that many
   * @param withTexts read the parts with their text ({@link PlaylistStore#parts}), so that the full
   *     playlist can be rendered; otherwise their summary ({@link PlaylistStore#sealedSummary}),
   *     unless the live window reaches back into the parts (then the read is made again with texts)
   */
  Media read(String broadcastId, String rendition, int floor, Completion completion, boolean withTexts) {
    if (floor == 0 && !store.find(ItemId.init(broadcastId, rendition)).map(r -> r.state() == ItemState.CONFIRMED)
        .orElse(false)) {
      return null;
    }
    List<LedgerItem> first = store.findSegments(broadcastId, rendition, 0, 1);
    long firstSequence = first.isEmpty() ? 0 : first.get(0).id().sequence();
    // The parts that follow each other from the first sequence; a re-open removed the part after them, if any.
    List<PlaylistPart> parts = new ArrayList<>();
    long next = firstSequence;
    int listed = 0;
    PlaylistStore playlists = store.playlists();
    for (PlaylistPart part : withTexts ? playlists.parts(broadcastId, rendition)
        : playlists.sealedSummary(broadcastId, rendition).stream().toList()) {
      if (part.firstSequence() != next) {
        break;
      }
      parts.add(part);
      next = part.nextSequence();
      listed += part.entries();
    }
    // Read as if complete when it may be (past sequence holes), then decide; not complete lists a prefix of that.
    boolean mayBeComplete = completion.alreadyFinal() || completion.ended();
    Prefix prefix = new Prefix(parts.isEmpty() ? -1 : next, listed, floor, mayBeComplete);
    List<LedgerItem> read = new ArrayList<>();
    boolean metOpen = false;
    long from = next;
    boolean more = !first.isEmpty();
    while (more) {
      List<LedgerItem> page = store.findSegments(broadcastId, rendition, from, PAGE);
      for (LedgerItem row : page) {
        metOpen |= !row.state().isTerminal();
        if (!prefix.offer(row)) {
          more = false;
          break;
        }
        read.add(row);
      }
      if (page.size() < PAGE) {
        more = false;
      } else {
        from = page.get(page.size() - 1).id().sequence() + 1;
      }
    }
    boolean complete = completion.alreadyFinal()
        || (completion.ended() && !metOpen && completion.noOpenRows().getAsBoolean());
    if (mayBeComplete && !complete) {
      prefix = new Prefix(parts.isEmpty() ? -1 : next, listed, floor, false);
      for (LedgerItem row : read) {
        if (!prefix.offer(row)) {
          break;
        }
      }
    }
    List<Entry> entries = prefix.entries();
    List<Rendered> tail = PlaylistTexts.render(PlaylistTexts.folder(broadcastId, rendition), entries);
    long target = PlaylistTexts.target(parts, tail);
    if (!withTexts && !parts.isEmpty() && LiveWindow.reachesParts(tail, target, windowSegments)) {
      return read(broadcastId, rendition, floor, completion, true); // rare: a tail shorter than the window
    }
    LiveWindow.Window live = LiveWindow.of(parts, tail, firstSequence, target, complete, windowSegments);
    long peak = 0;
    for (PlaylistPart part : parts) { // a part's rows are not read again: its peak stands for them
      peak = Math.max(peak, part.peakBandwidth());
    }
    for (Entry e : entries) {
      peak = Math.max(peak, PlaylistTexts.bitsPerSecond(e.row()));
    }
    return new Media(parts, tail, firstSequence, complete, withTexts, live, sealable(broadcastId, rendition, next,
        entries, tail, Math.max(windowSegments, live.text().entries())), peak, target);
  }

  /**
   * The full blocks of settled entries at the start of the tail that lie more than {@code margin}
   * entries behind its end, up to the first block with an unsettled entry.
   *
   * @param next the sequence after the last part (the first entry's if there is none)
   */
  private static List<PlaylistPart> sealable(String broadcastId, String rendition, long next, List<Entry> entries,
      List<Rendered> tail, int margin) {
    List<PlaylistPart> parts = new ArrayList<>();
    for (int from = 0; from + PlaylistTexts.PART_ENTRIES <= entries.size() - margin;
        from += PlaylistTexts.PART_ENTRIES) {
      List<Entry> block = entries.subList(from, from + PlaylistTexts.PART_ENTRIES);
      if (!block.stream().allMatch(Entry::settled)) {
        break;
      }
      PlaylistPart part = PlaylistTexts.part(broadcastId, rendition, next, block,
          tail.subList(from, from + PlaylistTexts.PART_ENTRIES));
      parts.add(part);
      next = part.nextSequence();
    }
    return parts;
  }
}
