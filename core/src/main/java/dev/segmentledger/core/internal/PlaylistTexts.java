package dev.segmentledger.core.internal;

import dev.segmentledger.core.Axis;
import dev.segmentledger.core.ItemState;
import dev.segmentledger.core.LedgerItem;
import dev.segmentledger.core.ObjectKeys;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneOffset;
import java.time.format.DateTimeFormatter;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Locale;
import java.util.TreeMap;

/**
 * The text of the playlists the {@link PlaylistPublisher} puts in the bucket, derived from a
 * broadcast's rows; pure functions. See docs/design.md, "Playlists".
 *
 * <p><b>Media playlist</b> (HLS version 7, fMP4, URIs relative to {@code {broadcast}/{rendition}/}):
 * {@code #EXT-X-MAP} to {@code init.mp4}, then one entry per PLAYBACK row of the contiguous prefix
 * of sequences, from the first registered, that are settled: CONFIRMED (a segment) or REJECTED /
 * EXCLUDED (an {@code #EXT-X-GAP} entry at its key, so later segments still play). The prefix stops
 * at the first row still unconfirmed, except that it never lists fewer entries than {@code floor}
 * (the most ever published): a position listed before that became unconfirmed again (re-opened) is
 * listed as a gap. {@code EVENT} while the broadcast is not complete; {@code VOD} with
 * {@code #EXT-X-ENDLIST} once it is (then sequence holes are bridged with a discontinuity).
 * An entry's duration is the produced segment's, or the target duration if unknown.
 * Each entry whose row has a {@linkplain LedgerItem#recordedAt() recording time} (the recorder
 * gave it for the original) carries it as {@code #EXT-X-PROGRAM-DATE-TIME} (ISO 8601, UTC, in
 * milliseconds); an entry without one has none (the player extrapolates from the last one).
 * The tags change no entry: the count of entries, and thus the never-backwards rule, is the same.
 *
 * <p><b>Multivariant playlist</b>: one {@code #EXT-X-STREAM-INF} per rendition whose INIT is
 * confirmed, in rendition order, with a BANDWIDTH estimated as the peak of its confirmed segments'
 * size over duration (a fixed guess before any segment is confirmed).
 */
final class PlaylistTexts {
  /** The BANDWIDTH announced for a rendition before any of its segments is confirmed: 2 Mbit/s. */
  static final long UNKNOWN_BANDWIDTH = 2_000_000;

  /**
   * A playlist to publish.
   *
   * @param text the playlist
   * @param entries the segment entries (media) or renditions (multivariant) it lists
   * @param complete whether it is final
   */
  record Text(String text, int entries, boolean complete) {}

  /** {@code #EXT-X-PROGRAM-DATE-TIME}'s value: ISO 8601 in UTC with milliseconds, e.g. {@code 2026-11-30T18:00:00.000Z}. */
  private static final DateTimeFormatter PROGRAM_DATE_TIME =
      DateTimeFormatter.ofPattern("uuuu-MM-dd'T'HH:mm:ss.SSS'Z'", Locale.ROOT).withZone(ZoneOffset.UTC);

  private PlaylistTexts() {}

  /** The value of an {@code #EXT-X-PROGRAM-DATE-TIME} tag for {@code time}. */
  static String programDateTime(Instant time) {
    return PROGRAM_DATE_TIME.format(time);
  }

  /**
   * The media playlist of {@code rendition}, or {@code null} if there is nothing to publish yet (its
   * INIT is not confirmed and nothing was ever published).
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
    List<Entry> entries = new ArrayList<>();
    long expected = playback.isEmpty() ? 0 : playback.get(0).id().sequence();
    for (LedgerItem row : playback) {
      boolean hole = row.id().sequence() != expected;
      boolean settled = row.state() != ItemState.PENDING && row.state() != ItemState.WAITING;
      boolean mustList = entries.size() < floor;
      if ((hole && !complete && !mustList) || (!settled && !mustList)) {
        break;
      }
      entries.add(new Entry(row, row.state() != ItemState.CONFIRMED, hole));
      expected = row.id().sequence() + 1;
    }
    long target = 1;
    for (Entry e : entries) {
      if (e.row().mediaDuration() != null) {
        target = Math.max(target, (e.row().mediaDuration().toMillis() + 999) / 1000);
      }
    }
    String folder = ObjectKeys.broadcastPrefix(broadcastId) + rendition + "/";
    StringBuilder m3u8 = new StringBuilder()
        .append("#EXTM3U\n")
        .append("#EXT-X-VERSION:7\n")
        .append("#EXT-X-TARGETDURATION:").append(target).append('\n')
        .append("#EXT-X-MEDIA-SEQUENCE:").append(playback.isEmpty() ? 0 : playback.get(0).id().sequence()).append('\n')
        .append("#EXT-X-PLAYLIST-TYPE:").append(complete ? "VOD" : "EVENT").append('\n')
        .append("#EXT-X-INDEPENDENT-SEGMENTS\n")
        .append("#EXT-X-MAP:URI=\"init.mp4\"\n");
    for (Entry e : entries) {
      Duration d = e.row().mediaDuration();
      double seconds = d == null || d.isZero() ? target : d.toNanos() / 1e9;
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
    }
    if (complete) {
      m3u8.append("#EXT-X-ENDLIST\n");
    }
    return new Text(m3u8.toString(), entries.size(), complete);
  }

  private record Entry(LedgerItem row, boolean gap, boolean afterHole) {}

  /** The multivariant playlist of the broadcast; {@code null} while no rendition can be played. */
  static Text multivariant(List<LedgerItem> rows, boolean complete) {
    TreeMap<String, Long> bandwidth = new TreeMap<>();
    for (LedgerItem row : rows) {
      if (row.id().axis() == Axis.INIT && row.state() == ItemState.CONFIRMED) {
        bandwidth.putIfAbsent(row.id().rendition(), 0L);
      }
    }
    for (LedgerItem row : rows) {
      Duration d = row.mediaDuration();
      if (row.id().axis() == Axis.PLAYBACK && row.state() == ItemState.CONFIRMED
          && bandwidth.containsKey(row.id().rendition()) && d != null && d.toMillis() > 0) {
        long bps = row.sizeBytes() * 8_000 / d.toMillis();
        bandwidth.merge(row.id().rendition(), bps, Math::max);
      }
    }
    if (bandwidth.isEmpty()) {
      return null;
    }
    StringBuilder m3u8 = new StringBuilder("#EXTM3U\n#EXT-X-VERSION:7\n#EXT-X-INDEPENDENT-SEGMENTS\n");
    bandwidth.forEach((rendition, bps) -> m3u8
        .append("#EXT-X-STREAM-INF:BANDWIDTH=").append(bps > 0 ? bps : UNKNOWN_BANDWIDTH).append('\n')
        .append(rendition).append('/').append(ObjectKeys.MEDIA_PLAYLIST_NAME).append('\n'));
    return new Text(m3u8.toString(), bandwidth.size(), complete);
  }
}
