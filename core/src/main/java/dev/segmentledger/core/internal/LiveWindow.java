package dev.segmentledger.core.internal;

import dev.segmentledger.core.internal.PlaylistTexts.Rendered;
import dev.segmentledger.core.internal.PlaylistTexts.Text;
import dev.segmentledger.core.spi.PlaylistPart;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;

/**
 * The live window of a media playlist ({@code {broadcast}/{rendition}/live.m3u8}), derived from the
 * same entries as the full playlist; pure functions. See docs/bucket.md.
 *
 * <p>Rules (RFC 8216bis, a live playlist without {@code EXT-X-PLAYLIST-TYPE}):
 *
 * <ul>
 *   <li>it lists the last {@code segments} entries of the full playlist, extended back until their
 *       total duration is at least three target durations (or the full list is exhausted), so a
 *       player that holds back three target durations from the live edge always finds its segment;
 *   <li>entry {@code i} (from 0) of the full playlist has media sequence number
 *       {@code firstSequence + i}; {@code EXT-X-MEDIA-SEQUENCE} is that of the window's first entry.
 *       The entry count comes from the ledger and never decreases (the floor rule), so the window
 *       only ever drops entries from its front, in order, on any node and after any restart. (If a
 *       segment longer than every earlier one raises the target duration, the window extends back
 *       by what three target durations require, and its media sequence number can go back by the
 *       entries it adds: RFC 8216bis forbids a live playlist to change its target duration, so
 *       that is an encoder fault the window does not hide.)
 *   <li>{@code EXT-X-DISCONTINUITY-SEQUENCE} counts the {@code EXT-X-DISCONTINUITY} tags of the
 *       entries before the window's first entry;
 *   <li>gaps stay {@code #EXT-X-GAP} entries; once the broadcast is complete the window ends with
 *       {@code #EXT-X-ENDLIST} (a player at the live edge stops there; one that wants the whole
 *       broadcast reads the full playlist, then {@code VOD}).
 * </ul>
 */
final class LiveWindow {
  /**
   * A window.
   *
   * @param text the live playlist
   * @param firstIndex the index, in the full playlist, of its first entry
   * @param mediaSequence its {@code EXT-X-MEDIA-SEQUENCE}
   * @param discontinuitySequence its {@code EXT-X-DISCONTINUITY-SEQUENCE}
   */
  record Window(Text text, int firstIndex, long mediaSequence, long discontinuitySequence) {}

  private LiveWindow() {}

  /**
   * The window of the full playlist made of {@code parts} followed by {@code tail}.
   *
   * @param firstSequence the full playlist's {@code EXT-X-MEDIA-SEQUENCE} (its first entry's number)
   * @param target the full playlist's target duration, in seconds
   * @param segments the fewest entries the window lists (when the playlist has that many)
   */
  static Window of(List<PlaylistPart> parts, List<Rendered> tail, long firstSequence, long target, boolean complete,
      int segments) {
    int total = tail.size();
    long discontinuities = 0;
    for (PlaylistPart part : parts) {
      total += part.entries();
      discontinuities += part.discontinuities();
    }
    for (Rendered r : tail) {
      discontinuities += r.discontinuity() ? 1 : 0;
    }
    List<Rendered> chosen = new ArrayList<>(); // newest first
    double seconds = 0;
    seconds = takeBack(tail, chosen, seconds, target, segments);
    for (int p = parts.size() - 1; p >= 0 && wantsMore(chosen, seconds, target, segments); p--) {
      seconds = takeBack(entries(parts.get(p)), chosen, seconds, target, segments);
    }
    Collections.reverse(chosen);
    long inWindow = chosen.stream().filter(Rendered::discontinuity).count();
    int firstIndex = total - chosen.size();
    long mediaSequence = firstSequence + firstIndex;
    long discontinuitySequence = discontinuities - inWindow;
    StringBuilder m3u8 = new StringBuilder()
        .append("#EXTM3U\n")
        .append("#EXT-X-VERSION:7\n")
        .append("#EXT-X-TARGETDURATION:").append(target).append('\n')
        .append("#EXT-X-MEDIA-SEQUENCE:").append(mediaSequence).append('\n')
        .append("#EXT-X-DISCONTINUITY-SEQUENCE:").append(discontinuitySequence).append('\n')
        .append("#EXT-X-INDEPENDENT-SEGMENTS\n")
        .append("#EXT-X-MAP:URI=\"init.mp4\"\n");
    for (Rendered r : chosen) {
      m3u8.append(r.text());
    }
    if (complete) {
      m3u8.append("#EXT-X-ENDLIST\n");
    }
    return new Window(new Text(m3u8.toString(), chosen.size(), complete), firstIndex, mediaSequence,
        discontinuitySequence);
  }

  /**
   * Whether the window of a playlist ending in {@code tail} takes entries from the parts before it
   * (and so needs their text), given at least one part.
   */
  static boolean reachesParts(List<Rendered> tail, long target, int segments) {
    List<Rendered> chosen = new ArrayList<>();
    return wantsMore(chosen, takeBack(tail, chosen, 0, target, segments), target, segments);
  }

  private static boolean wantsMore(List<Rendered> chosen, double seconds, long target, int segments) {
    return chosen.size() < segments || seconds < 3.0 * target;
  }

  /** Adds entries of {@code from}, last first, while the window wants more; returns the window's duration. */
  private static double takeBack(List<Rendered> from, List<Rendered> chosen, double seconds, long target,
      int segments) {
    for (int i = from.size() - 1; i >= 0 && wantsMore(chosen, seconds, target, segments); i--) {
      chosen.add(from.get(i));
      seconds += from.get(i).seconds();
    }
    return seconds;
  }

  /** The entries of a sealed part, split from its text: each ends at its URI line. */
  static List<Rendered> entries(PlaylistPart part) {
    List<Rendered> entries = new ArrayList<>(part.entries());
    StringBuilder text = new StringBuilder();
    double seconds = 0;
    boolean discontinuity = false;
    for (String line : part.text().split("\n")) {
      text.append(line).append('\n');
      if (line.equals("#EXT-X-DISCONTINUITY")) {
        discontinuity = true;
      } else if (line.startsWith("#EXTINF:")) {
        seconds = Double.parseDouble(line.substring("#EXTINF:".length(), line.indexOf(',')));
      } else if (!line.startsWith("#")) {
        entries.add(new Rendered(text.toString(), seconds, discontinuity, part.targetSeconds()));
        text.setLength(0);
        seconds = 0;
        discontinuity = false;
      }
    }
    return entries;
  }
}
