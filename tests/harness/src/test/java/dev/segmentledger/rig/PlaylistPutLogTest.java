package dev.segmentledger.rig;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.segmentledger.core.ItemId;
import dev.segmentledger.core.ItemState;
import dev.segmentledger.core.LedgerItem;
import dev.segmentledger.core.spi.UploadContent;
import dev.segmentledger.testkit.FakeObjectSink;
import java.io.ByteArrayInputStream;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** What {@link PlaylistPutLog} counts as listed, for today's media playlist and a live window alike. */
class PlaylistPutLogTest {
  private final PlaylistPutLog log = PlaylistPutLog.wrapping(new FakeObjectSink());

  @Test
  void aSegmentIsListedByTheFirstPlaylistOfItsRenditionThatNamesItAndNotAsAGap() throws Exception {
    log.onConfirmed(playback("b", "720p", 0));
    log.onConfirmed(playback("b", "720p", 1));
    put("b/720p/media.m3u8", media(0, 1) + "#EXT-X-GAP\n#EXTINF:2.0,\nplayback/0000000002.m4s\n");
    put("b/master.m3u8", "#EXTM3U\n#EXT-X-STREAM-INF:BANDWIDTH=1\n720p/media.m3u8\n");

    assertTrue(log.isListed("b", "720p", 0));
    assertTrue(log.isListed("b", "720p", 1));
    assertFalse(log.isListed("b", "720p", 2), "a gap entry lists no segment");
    assertFalse(log.isListed("b", "360p", 0), "another rendition's folder");
    assertTrue(log.lagNanos("b", "720p", 1).orElseThrow() >= 0);
    assertTrue(log.lagNanos("b", "720p", 2).isEmpty());

    // A live window listing only the newest segments lists them first; a later media.m3u8 lists nothing new.
    put("b/720p/live.m3u8", "#EXTM3U\n#EXT-X-MEDIA-SEQUENCE:1\n#EXTINF:2.0,\nplayback/0000000001.m4s\n"
        + "#EXTINF:2.0,\nplayback/0000000002.m4s\n#EXTINF:2.0,\nplayback/0000000003.m4s\n");
    put("b/720p/media.m3u8", media(0, 1, 2, 3));
    assertTrue(log.isListed("b", "720p", 2));
    assertTrue(log.isListed("b", "720p", 3));
    assertEquals(Map.of("media.m3u8", 2L, "live.m3u8", 2L), log.firstListingsByFileName());
    assertEquals(4, log.playlistPuts());
    assertEquals(3, log.byFileName().size());
    assertEquals(2, log.byFileName().get("media.m3u8")[1]);
    assertThrows(AssertionError.class, () -> log.awaitListed("b", "720p", 4, Duration.ofMillis(10)));

    // Listed by the full playlist first, then by the live window: the lag is the live window's.
    log.onConfirmed(playback("b", "720p", 4));
    put("b/720p/media.m3u8", media(0, 1, 2, 3, 4));
    long toMedia = log.lagNanos("b", "720p", 4).orElseThrow();
    put("b/720p/live.m3u8", "#EXTM3U\n#EXT-X-MEDIA-SEQUENCE:3\n#EXTINF:2.0,\nplayback/0000000003.m4s\n"
        + "#EXTINF:2.0,\nplayback/0000000004.m4s\n");
    assertEquals(toMedia, log.lagNanos("b", "720p", 4, "media.m3u8").orElseThrow());
    assertTrue(log.lagNanos("b", "720p", 4).orElseThrow() >= toMedia);
    assertEquals(log.lagNanos("b", "720p", 4, PlaylistPutLog.LIVE_PLAYLIST_NAME), log.lagNanos("b", "720p", 4));
    assertEquals(3L, log.firstListingsByFileName().get("media.m3u8"));
  }

  private static String media(int... sequences) {
    StringBuilder s = new StringBuilder("#EXTM3U\n#EXT-X-VERSION:7\n#EXT-X-MAP:URI=\"init.mp4\"\n");
    for (int sequence : sequences) {
      s.append("#EXTINF:2.000000,\n").append(String.format("playback/%010d.m4s\n", sequence));
    }
    return s.toString();
  }

  private void put(String key, String text) {
    byte[] bytes = text.getBytes(StandardCharsets.UTF_8);
    log.put(key, new UploadContent() {
      @Override
      public long size() {
        return bytes.length;
      }

      @Override
      public InputStream openStream() {
        return new ByteArrayInputStream(bytes);
      }
    }, true);
  }

  private static LedgerItem playback(String broadcast, String rendition, long sequence) {
    Instant now = Instant.now();
    return new LedgerItem(1, ItemId.playback(broadcast, rendition, sequence), "/p", "/o", 10, ItemState.CONFIRMED, 1,
        null, null, now, now, now, null, null, null, null, null, null);
  }
}
