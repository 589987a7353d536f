package dev.segmentledger.it.browser;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

/**
 * An HLS multivariant (master) playlist over media playlists, and the {@code CODECS} attribute it
 * needs, read from an fMP4 init segment. The core makes media playlists
 * ({@code PlaybackView.mediaPlaylist()}); the multivariant one over a broadcast's renditions is not
 * the core's yet, so the harness writes it here.
 */
public final class MultivariantPlaylist {
  private MultivariantPlaylist() {}

  /**
   * One variant stream.
   *
   * @param uri the media playlist, relative to the multivariant playlist
   * @param bandwidth peak bits per second
   * @param resolution {@code WIDTHxHEIGHT}
   * @param codecs the RFC 6381 codecs, e.g. {@code avc1.42c01e,mp4a.40.2}
   */
  public record Variant(String uri, long bandwidth, String resolution, String codecs) {}

  /** The playlist text, one {@code #EXT-X-STREAM-INF} per variant, in the order given. */
  public static String of(List<Variant> variants) {
    StringBuilder m3u8 = new StringBuilder("#EXTM3U\n#EXT-X-VERSION:7\n#EXT-X-INDEPENDENT-SEGMENTS\n");
    for (Variant v : variants) {
      m3u8.append(String.format(Locale.ROOT, "#EXT-X-STREAM-INF:BANDWIDTH=%d,RESOLUTION=%s,CODECS=\"%s\"\n",
          v.bandwidth(), v.resolution(), v.codecs())).append(v.uri()).append('\n');
    }
    return m3u8.toString();
  }

  /**
   * The codecs of an init segment: {@code avc1.PPCCLL} from its {@code avcC} box (profile,
   * constraint flags, level), and {@code mp4a.40.2} (AAC-LC, what the test media carries) when it
   * has an {@code mp4a} sample entry.
   *
   * @throws IllegalArgumentException if the init has no {@code avcC} box
   */
  public static String codecsOf(byte[] init) {
    List<String> codecs = new ArrayList<>();
    int avcC = indexOf(init, "avcC");
    if (avcC < 0 || avcC + 8 > init.length) {
      throw new IllegalArgumentException("no avcC box in the init segment: not H.264");
    }
    // avcC payload: configurationVersion, AVCProfileIndication, profile_compatibility, AVCLevelIndication
    codecs.add(String.format(Locale.ROOT, "avc1.%02x%02x%02x",
        init[avcC + 5] & 0xff, init[avcC + 6] & 0xff, init[avcC + 7] & 0xff));
    if (indexOf(init, "mp4a") >= 0) {
      codecs.add("mp4a.40.2");
    }
    return String.join(",", codecs);
  }

  private static int indexOf(byte[] data, String type) {
    byte[] t = type.getBytes(StandardCharsets.US_ASCII);
    outer:
    for (int i = 0; i + t.length <= data.length; i++) {
      for (int j = 0; j < t.length; j++) {
        if (data[i + j] != t[j]) {
          continue outer;
        }
      }
      return i;
    }
    return -1;
  }
}
