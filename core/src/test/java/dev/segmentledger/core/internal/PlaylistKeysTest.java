package dev.segmentledger.core.internal;

import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.segmentledger.core.ObjectKeys;
import java.util.List;
import org.junit.jupiter.api.Test;

/** The reconciler knows every playlist of a broadcast, live ones included, and nothing else, as a playlist. */
class PlaylistKeysTest {
  @Test
  void theFourPlaylistsOfABroadcastAreItsPlaylistKeys() {
    for (String key : List.of(ObjectKeys.mediaPlaylistKey("b1", "720p"), ObjectKeys.liveMediaPlaylistKey("b1", "720p"),
        ObjectKeys.multivariantPlaylistKey("b1"), ObjectKeys.liveMultivariantPlaylistKey("b1"))) {
      assertTrue(ReconcileComparisons.isPlaylistKey("b1", key), key);
    }
    for (String key : List.of("b1/720p/x/live.m3u8", "b2/720p/live.m3u8", "b1//live.m3u8", "b1/720p/live.m3u8x",
        "b1/a b/live.m3u8")) {
      assertFalse(ReconcileComparisons.isPlaylistKey("b1", key), key);
    }
  }
}
