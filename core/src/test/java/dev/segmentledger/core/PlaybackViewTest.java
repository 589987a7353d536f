package dev.segmentledger.core;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;

class PlaybackViewTest {

  private static PlaybackView.Segment segment(long sequence) {
    return new PlaybackView.Segment(sequence, ItemId.playback("b1", "720p", sequence).objectKey(),
        Duration.ofMillis(4_000), null);
  }

  @Test
  void liveMediaPlaylistPointsAtInitAndListsSegmentsWithoutEndList() {
    String m3u8 = new PlaybackView("b1", "720p", true, false, List.of(segment(3), segment(4))).mediaPlaylist()
        .orElseThrow();
    assertEquals("""
        #EXTM3U
        #EXT-X-VERSION:7
        #EXT-X-TARGETDURATION:4
        #EXT-X-MEDIA-SEQUENCE:3
        #EXT-X-PLAYLIST-TYPE:EVENT
        #EXT-X-INDEPENDENT-SEGMENTS
        #EXT-X-MAP:URI="init.mp4"
        #EXTINF:4.000000,
        playback/0000000003.m4s
        #EXTINF:4.000000,
        playback/0000000004.m4s
        """, m3u8);
  }

  @Test
  void completeBroadcastEndsThePlaylist() {
    String m3u8 = new PlaybackView("b1", "720p", true, true, List.of(segment(0))).mediaPlaylist().orElseThrow();
    assertTrue(m3u8.endsWith("#EXT-X-ENDLIST\n"), m3u8);
    assertTrue(m3u8.contains("#EXT-X-PLAYLIST-TYPE:VOD\n"), m3u8);
  }

  @Test
  void noPlaylistUntilTheInitIsConfirmed() {
    assertTrue(new PlaybackView("b1", "720p", false, false, List.of()).mediaPlaylist().isEmpty());
  }
}
