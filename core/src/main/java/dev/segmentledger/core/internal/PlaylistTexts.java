package dev.segmentledger.core.internal;

import dev.segmentledger.core.Axis;
import dev.segmentledger.core.ItemState;
import dev.segmentledger.core.LedgerItem;
import dev.segmentledger.core.ObjectKeys;
import dev.segmentledger.core.spi.PlaylistPart;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneOffset;
import java.time.format.DateTimeFormatter;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Locale;

/**
 * The text of the playlists the {@link PlaylistPublisher} puts in the bucket; pure functions. See
 * docs/design.md, "Playlists", and docs/bucket.md.
 *
 * <p><b>Media playlist</b> (HLS version 7, fMP4, URIs relative to {@code {broadcast}/{rendition}/}):
 * {@code #EXT-X-MAP} to {@code init.mp4}, then one entry per PLAYBACK row of the contiguous prefix
 * of sequences, from the first registered, that are settled: CONFIRMED (a segment) or REJECTED /
 * EXCLUDED (an {@code #EXT-X-GAP} entry at its key, so later segments still play). The prefix stops
 * at the first row still unconfirmed, except that it never lists fewer entries than {@code floor}
 * (the most ever published): a position listed before that became unconfirmed again (re-opened) is
 * listed as a gap. {@code EVENT} while the broadcast is not complete; {@code VOD} with
 * {@code #EXT-X-ENDLIST} once it is (then sequence holes are bridged with a discontinuity).
 * An entry's duration is the produced segment's; if unknown (a gap never produced), the target
 * duration of its <em>block</em>: entries are counted in blocks of {@link #PART_ENTRIES} from the
 * first, and a block's target is its longest known duration rounded up to whole seconds (at least
 * 1). So an entry's text depends on its block alone, and a block of settled entries can be sealed
 * once as a {@link PlaylistPart} whose text is exactly what the full playlist lists there. The
 * playlist's {@code #EXT-X-TARGETDURATION} is the largest block target.
 * Each entry whose row has a {@linkplain LedgerItem#recordedAt() recording time} (the recorder
 * gave it for the original) carries it as {@code #EXT-X-PROGRAM-DATE-TIME} (ISO 8601, UTC, in
 * milliseconds); an entry without one has none (the player extrapolates from the last one).
 * The tags change no entry: the count of entries, and thus the never-backwards rule, is the same.
 *
 * <p><b>Multivariant playlist</b>: one {@code #EXT-X-STREAM-INF} per rendition whose media
 * playlist was ever published with entries or whose INIT is confirmed, in rendition order, with
 * the BANDWIDTH recorded as its media playlist's peak (a fixed guess before any segment is
 * confirmed). The live window is {@link LiveWindow}.
 */
final class PlaylistTexts {
  /** The BANDWIDTH announced for a rendition before any of its segments is confirmed: 2 Mbit/s. */
  static final long UNKNOWN_BANDWIDTH = 2_000_000;

  /**
   * The entries of a sealed part and of a block: 100 entries, 400 to 1,000 s of media at the usual
   * 4 to 10 s segments. While rows settle in order, a publication reads about two blocks of rows
   * beyond the live window (the block being filled and the one waiting to be sealed) and a part
   * list that grows by one record per 100 segments (summaries without text, unless it renders the
   * full playlist).
   */
  static final int PART_ENTRIES = 100;

  /**
   * A playlist to publish.
   *
   * @param text the playlist
   * @param entries the segment entries (media) or renditions (multivariant) it lists
   * @param complete whether it is final
   */
  record Text(String text, int entries, boolean complete) {}

  /** A listed position: its row, whether it is a gap, whether a sequence hole precedes it. */
  record Entry(LedgerItem row, boolean gap, boolean afterHole) {
    /** Whether its row is settled, so that its text changes again only if the row is re-opened. */
    boolean settled() {
      return row.state().isTerminal();
    }
  }

  /**
   * One entry as rendered.
   *
   * @param text its lines, each ending in {@code \n}
   * @param seconds its {@code #EXTINF} duration
   * @param discontinuity whether it carries {@code #EXT-X-DISCONTINUITY}
   * @param target the target duration of its block
   */
  record Rendered(String text, double seconds, boolean discontinuity, long target) {}

  /** {@code #EXT-X-PROGRAM-DATE-TIME}'s value: ISO 8601 in UTC with milliseconds, e.g. {@code 2026-11-30T18:00:00.000Z}. */
  private static final DateTimeFormatter PROGRAM_DATE_TIME =
      DateTimeFormatter.ofPattern("uuuu-MM-dd'T'HH:mm:ss.SSS'Z'", Locale.ROOT).withZone(ZoneOffset.UTC);

  private PlaylistTexts() {}

  /** The value of an {@code #EXT-X-PROGRAM-DATE-TIME} tag for {@code time}. */
  static String programDateTime(Instant time) {
    return PROGRAM_DATE_TIME.format(time);
  }

  /**
   * The prefix rule, applied to PLAYBACK rows offered in sequence order, possibly over several pages
   * and after sealed parts. Not thread-safe.
   */
  static final class Prefix {
    private final int floor;
    private final boolean complete;
    private final List<Entry> entries = new ArrayList<>();
    private long expected;
    private int listed;

    /**
     * @param expected the sequence the next row continues without a hole, or -1 for the first row
     * @param listedBefore the entries listed before the first row offered (those of the parts)
     */
    Prefix(long expected, int listedBefore, int floor, boolean complete) {
      this.expected = expected;
      this.listed = listedBefore;
      this.floor = floor;
      this.complete = complete;
    }

    /** Lists {@code row} and returns true, or returns false: the prefix stops before it. */
    boolean offer(LedgerItem row) {
      boolean hole = expected >= 0 && row.id().sequence() != expected;
      boolean mustList = listed < floor;
      if ((hole && !complete && !mustList) || (!row.state().isTerminal() && !mustList)) {
        return false;
      }
      entries.add(new Entry(row, row.state() != ItemState.CONFIRMED, hole));
      listed++;
      expected = row.id().sequence() + 1;
      return true;
    }

    List<Entry> entries() {
      return entries;
    }
  }

  /** The folder the entries' URIs are relative to. */
  static String folder(String broadcastId, String rendition) {
    return ObjectKeys.broadcastPrefix(broadcastId) + rendition + "/";
  }

  /** Renders {@code entries}, which begin at a block boundary, block by block. */
  static List<Rendered> render(String folder, List<Entry> entries) {
    List<Rendered> rendered = new ArrayList<>(entries.size());
    for (int from = 0; from < entries.size(); from += PART_ENTRIES) {
      List<Entry> block = entries.subList(from, Math.min(entries.size(), from + PART_ENTRIES));
      long target = blockTarget(block);
      for (Entry e : block) {
        rendered.add(render(folder, e, target));
      }
    }
    return rendered;
  }

  private static long blockTarget(List<Entry> block) {
    long target = 1;
    for (Entry e : block) {
      if (e.row().mediaDuration() != null) {
        target = Math.max(target, (e.row().mediaDuration().toMillis() + 999) / 1000);
      }
    }
    return target;
  }

  private static Rendered render(String folder, Entry e, long target) {
    Duration d = e.row().mediaDuration();
    double seconds = d == null || d.isZero() ? target : d.toNanos() / 1e9;
    StringBuilder m3u8 = new StringBuilder();
    if (e.afterHole()) {
      m3u8.append("#EXT-X-DISCONTINUITY\n");
    }
    if (e.row().recordedAt() != null) {
      m3u8.append("#EXT-X-PROGRAM-DATE-TIME:").append(programDateTime(e.row().recordedAt())).append('\n');
    }
    if (e.gap()) {
      m3u8.append("#EXT-X-GAP\n");
    }
    m3u8.append(String.format(Locale.ROOT, "#EXTINF:%.6f,", seconds)).append('\n')
        .append(e.row().objectKey().substring(folder.length())).append('\n');
    return new Rendered(m3u8.toString(), seconds, e.afterHole(), target);
  }

  /**
   * The part sealing one full block of settled entries.
   *
   * @param firstSequence the sequence after the previous part (the first entry's for the first part)
   */
  static PlaylistPart part(String broadcastId, String rendition, long firstSequence, List<Entry> block,
      List<Rendered> rendered) {
    StringBuilder text = new StringBuilder();
    int discontinuities = 0;
    long peak = 0;
    for (int i = 0; i < block.size(); i++) {
      text.append(rendered.get(i).text());
      discontinuities += rendered.get(i).discontinuity() ? 1 : 0;
      peak = Math.max(peak, bitsPerSecond(block.get(i).row()));
    }
    long next = block.get(block.size() - 1).row().id().sequence() + 1;
    return new PlaylistPart(broadcastId, rendition, firstSequence, next, block.size(), discontinuities,
        (int) rendered.get(0).target(), peak, text.toString());
  }

  /** The bit rate of a confirmed segment of known duration, in bits per second; 0 otherwise. */
  static long bitsPerSecond(LedgerItem row) {
    Duration d = row.mediaDuration();
    if (row.state() != ItemState.CONFIRMED || d == null || d.toMillis() <= 0) {
      return 0;
    }
    return row.sizeBytes() * 8_000 / d.toMillis();
  }

  /** The full media playlist: its header, the parts' text, the tail entries after them, the end tag if complete. */
  static Text media(long target, long mediaSequence, List<PlaylistPart> parts, List<Rendered> tail,
      boolean complete) {
    StringBuilder m3u8 = new StringBuilder()
        .append("#EXTM3U\n")
        .append("#EXT-X-VERSION:7\n")
        .append("#EXT-X-TARGETDURATION:").append(target).append('\n')
        .append("#EXT-X-MEDIA-SEQUENCE:").append(mediaSequence).append('\n')
        .append("#EXT-X-PLAYLIST-TYPE:").append(complete ? "VOD" : "EVENT").append('\n')
        .append("#EXT-X-INDEPENDENT-SEGMENTS\n")
        .append("#EXT-X-MAP:URI=\"init.mp4\"\n");
    int entries = 0;
    for (PlaylistPart part : parts) {
      m3u8.append(part.text());
      entries += part.entries();
    }
    for (Rendered r : tail) {
      m3u8.append(r.text());
    }
    if (complete) {
      m3u8.append("#EXT-X-ENDLIST\n");
    }
    return new Text(m3u8.toString(), entries + tail.size(), complete);
  }

  /** The target duration of a playlist of {@code parts} followed by {@code tail}. */
  static long target(List<PlaylistPart> parts, List<Rendered> tail) {
    long target = 1;
    for (PlaylistPart part : parts) {
      target = Math.max(target, part.targetSeconds());
    }
    for (Rendered r : tail) {
      target = Math.max(target, r.target());
    }
    return target;
  }

  /**
   * The media playlist of {@code rendition} rendered from all of its rows at once, or {@code null}
   * if there is nothing to publish yet (its INIT is not confirmed and nothing was ever published):
   * the reference the publication from parts and tail rows equals byte for byte.
   */
  static Text media(String broadcastId, String rendition, List<LedgerItem> rows, boolean complete, int floor) {
    LedgerItem init = null;
    List<LedgerItem> playback = new ArrayList<>();
    for (LedgerItem row : rows) {
      if (!row.id().rendition().equals(rendition)) {
        continue;
      }
      if (row.id().axis() == Axis.INIT) {
        init = row;
      } else if (row.id().axis() == Axis.PLAYBACK) {
        playback.add(row);
      }
    }
    if (floor == 0 && (init == null || init.state() != ItemState.CONFIRMED)) {
      return null;
    }
    playback.sort(Comparator.comparingLong(row -> row.id().sequence()));
    Prefix prefix = new Prefix(-1, 0, floor, complete);
    for (LedgerItem row : playback) {
      if (!prefix.offer(row)) {
        break;
      }
    }
    List<Rendered> rendered = render(folder(broadcastId, rendition), prefix.entries());
    return media(target(List.of(), rendered), playback.isEmpty() ? 0 : playback.get(0).id().sequence(), List.of(),
        rendered, complete);
  }

  /** A rendition listed in a multivariant playlist, with the BANDWIDTH announced for it. */
  record Variant(String rendition, long bandwidth) {}

  /**
   * The multivariant playlist listing {@code variants} (in rendition order) by
   * {@code {rendition}/{playlistName}}; {@code null} while no rendition can be played.
   */
  static Text multivariant(List<Variant> variants, String playlistName, boolean complete) {
    if (variants.isEmpty()) {
      return null;
    }
    StringBuilder m3u8 = new StringBuilder("#EXTM3U\n#EXT-X-VERSION:7\n#EXT-X-INDEPENDENT-SEGMENTS\n");
    for (Variant v : variants) {
      m3u8.append("#EXT-X-STREAM-INF:BANDWIDTH=").append(v.bandwidth() > 0 ? v.bandwidth() : UNKNOWN_BANDWIDTH)
          .append('\n').append(v.rendition()).append('/').append(playlistName).append('\n');
    }
    return new Text(m3u8.toString(), variants.size(), complete);
  }
}
