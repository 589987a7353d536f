package dev.segmentledger.core;

import java.time.Duration;
import java.time.Instant;
import java.time.ZoneOffset;
import java.time.format.DateTimeFormatter;
import java.util.List;
import java.util.Locale;
import java.util.Objects;
import java.util.Optional;

/**
 * What a player may see of one rendition: whether playback can open (its INIT is confirmed) and
 * the confirmed segments in sequence order, stopping at the first segment that is not confirmed.
 * A snapshot; immutable.
 *
 * @param broadcastId the broadcast
 * @param rendition the rendition
 * @param canOpen whether the rendition's INIT is confirmed
 * @param complete whether the broadcast is complete (its playback is final)
 * @param segments the playable segments: confirmed, contiguous from the first registered sequence
 */
public record PlaybackView(
    String broadcastId, String rendition, boolean canOpen, boolean complete, List<Segment> segments) {

  public PlaybackView {
    Objects.requireNonNull(broadcastId, "broadcastId");
    Objects.requireNonNull(rendition, "rendition");
    segments = List.copyOf(segments);
  }

  /**
   * One playable segment.
   *
   * @param sequence its sequence number
   * @param key its object key
   * @param duration its media duration
   * @param recordedAt when its recording began ({@link LedgerItem#recordedAt()}); {@code null} if unknown
   */
  public record Segment(long sequence, String key, Duration duration, Instant recordedAt) {
    /**
     * A segment whose recording time is unknown.
     *
     * @deprecated the ledger never calls it (it always passes the row's recording time, null when
     *     unknown); kept because the release candidate published it and removing it would break
     *     binary compatibility. Use the canonical constructor with {@code recordedAt} null.
     */
    @Deprecated(since = "1.0.0")
    public Segment(long sequence, String key, Duration duration) {
      this(sequence, key, duration, null);
    }
  }

  private static final DateTimeFormatter PROGRAM_DATE_TIME =
      DateTimeFormatter.ofPattern("uuuu-MM-dd'T'HH:mm:ss.SSS'Z'", Locale.ROOT).withZone(ZoneOffset.UTC);

  /**
   * An HLS media playlist (version 7, fMP4) listing the playable segments, with
   * {@code #EXT-X-ENDLIST} only when the broadcast is complete. URIs are relative to the
   * rendition's folder {@code {broadcast}/{rendition}/}, where the playlist is meant to be served
   * from: the init is {@code init.mp4}, segments are {@code playback/{sequence}.m4s}. A segment
   * whose recording time is known is preceded by {@code #EXT-X-PROGRAM-DATE-TIME} (UTC,
   * milliseconds), as in the playlists the ledger publishes. Empty if playback cannot open yet.
   */
  public Optional<String> mediaPlaylist() {
    if (!canOpen) {
      return Optional.empty();
    }
    String folder = broadcastId + "/" + rendition + "/";
    long target = 1;
    for (Segment s : segments) {
      target = Math.max(target, (s.duration().toMillis() + 999) / 1000);
    }
    StringBuilder m3u8 = new StringBuilder()
        .append("#EXTM3U\n")
        .append("#EXT-X-VERSION:7\n")
        .append("#EXT-X-TARGETDURATION:").append(target).append('\n')
        .append("#EXT-X-MEDIA-SEQUENCE:").append(segments.isEmpty() ? 0 : segments.get(0).sequence()).append('\n')
        .append("#EXT-X-PLAYLIST-TYPE:").append(complete ? "VOD" : "EVENT").append('\n')
        .append("#EXT-X-INDEPENDENT-SEGMENTS\n")
        .append("#EXT-X-MAP:URI=\"")
        .append(relative(folder, ObjectKeys.keyOf(ItemId.init(broadcastId, rendition)))).append("\"\n");
    for (Segment s : segments) {
      if (s.recordedAt() != null) {
        m3u8.append("#EXT-X-PROGRAM-DATE-TIME:").append(PROGRAM_DATE_TIME.format(s.recordedAt())).append('\n');
      }
      m3u8.append(String.format(Locale.ROOT, "#EXTINF:%.6f,", s.duration().toNanos() / 1e9)).append('\n')
          .append(relative(folder, s.key())).append('\n');
    }
    if (complete) {
      m3u8.append("#EXT-X-ENDLIST\n");
    }
    return Optional.of(m3u8.toString());
  }

  private static String relative(String folder, String key) {
    return key.substring(folder.length());
  }
}
