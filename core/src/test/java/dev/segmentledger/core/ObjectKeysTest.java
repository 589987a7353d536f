package dev.segmentledger.core;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import java.util.Optional;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

class ObjectKeysTest {

  @Test
  void idOfInvertsTheKeyContractAndRecognisesNothingElse() {
    for (ItemId id : List.of(ItemId.original("b-1", "720p", 7), ItemId.playback("b.1", "1080p", 12345678901L),
        ItemId.init("b1", "audio_en"), ItemId.original("b", "r", Long.MAX_VALUE))) {
      assertEquals(Optional.of(id), ObjectKeys.idOf(id.objectKey()));
    }
    for (String key : List.of("b1/720p/original/7.ts", "b1/720p/init.mp4x", "b1/../init.mp4", "b1/init.mp4",
        "b1/720p/playback/0000000001.ts", "b1/720p/original/00000000001.ts", "b1/720p/original/9999999999999999999.ts",
        "b1/720p/x/init.mp4", "")) {
      assertEquals(Optional.empty(), ObjectKeys.idOf(key), key);
    }
  }

  @Test
  void playlistKeysAreNotItems() {
    assertEquals("b1/720p/live.m3u8", ObjectKeys.liveMediaPlaylistKey("b1", "720p"));
    assertEquals("b1/live.m3u8", ObjectKeys.liveMultivariantPlaylistKey("b1"));
    for (String key : List.of(ObjectKeys.mediaPlaylistKey("b1", "720p"), ObjectKeys.liveMediaPlaylistKey("b1", "720p"),
        ObjectKeys.multivariantPlaylistKey("b1"), ObjectKeys.liveMultivariantPlaylistKey("b1"))) {
      assertEquals(Optional.empty(), ObjectKeys.idOf(key), key);
    }
  }

  @Test
  void anOriginalsKeyHasItsFormatsExtensionAndIdOfGivesTheFormatBack() {
    assertEquals("b42/720p/original/0000000007.ts", ItemId.original("b42", "720p", 7, MediaFormat.MPEG_TS).objectKey());
    assertEquals("b42/720p/original/0000000007.m4s", ItemId.original("b42", "720p", 7, MediaFormat.FMP4).objectKey());
    assertEquals("b42/720p/original/0000000007.mp4", ItemId.original("b42", "720p", 7, MediaFormat.MP4).objectKey());
    for (MediaFormat format : MediaFormat.values()) {
      ItemId id = ItemId.original("b42", "720p", 7, format);
      assertEquals(Optional.of(id), ObjectKeys.idOf(id.objectKey()), format.name());
      assertEquals(format, ObjectKeys.idOf(id.objectKey()).orElseThrow().format());
    }
    for (String key : List.of("b1/720p/original/0000000001.cmfv", "b1/720p/original/0000000001.TS",
        "b1/720p/original/0000000001.m4v", "b1/720p/playback/0000000001.mp4", "b1/720p/init.m4s",
        "b1/720p/init.ts")) {
      assertEquals(Optional.empty(), ObjectKeys.idOf(key), key);
    }
  }

  @Test
  void theFormatIsPartOfTheIdentityWithMpegTsTheDefaultOfAnOriginal() {
    assertEquals(ItemId.original("b", "r", 1), ItemId.original("b", "r", 1, MediaFormat.MPEG_TS));
    assertEquals(ItemId.original("b", "r", 1), new ItemId("b", Axis.ORIGINAL, "r", 1));
    assertNotEquals(ItemId.original("b", "r", 1), ItemId.original("b", "r", 1, MediaFormat.FMP4));
    assertEquals(0, ItemId.IDENTITY_ORDER.compare(ItemId.original("b", "r", 1),
        ItemId.original("b", "r", 1, MediaFormat.FMP4)), "the order is of positions");
    assertEquals(MediaFormat.FMP4, ItemId.playback("b", "r", 1).format());
    assertEquals(MediaFormat.MP4, ItemId.init("b", "r").format());
    assertEquals("b/ORIGINAL/r/1", ItemId.original("b", "r", 1).toString());
    assertEquals("b/ORIGINAL/r/1 (FMP4)", ItemId.original("b", "r", 1, MediaFormat.FMP4).toString());
    assertThrows(IllegalArgumentException.class,
        () -> new ItemId("b", Axis.PLAYBACK, "r", 1, MediaFormat.MPEG_TS), "a playback segment is always fMP4");
    assertThrows(IllegalArgumentException.class, () -> new ItemId("b", Axis.INIT, "r", 0, MediaFormat.FMP4));
    assertThrows(NullPointerException.class, () -> ItemId.original("b", "r", 1, null));
  }

  @Test
  void keysFollowTheDocumentedContract() {
    assertEquals("b42/720p/original/0000000007.ts", ObjectKeys.keyOf(ItemId.original("b42", "720p", 7)));
    assertEquals("b42/720p/playback/0000000007.m4s", ObjectKeys.keyOf(ItemId.playback("b42", "720p", 7)));
    assertEquals("b42/720p/init.mp4", ObjectKeys.keyOf(ItemId.init("b42", "720p")));
  }

  @Test
  void everyKeyLiesUnderItsBroadcastPrefix() {
    for (Axis axis : Axis.values()) {
      ItemId id = new ItemId("b-1.x_y", axis, "r", axis == Axis.INIT ? 0 : Long.MAX_VALUE);
      assertTrue(id.objectKey().startsWith(ObjectKeys.broadcastPrefix("b-1.x_y")), id.objectKey());
    }
  }

  @Test
  void keyIsAPureFunctionOfIdentity() {
    assertEquals(ItemId.original("b", "r", 1).objectKey(), ItemId.original("b", "r", 1).objectKey());
  }

  @ParameterizedTest
  @ValueSource(strings = {"", ".", "..", "../x", "a/b", "a\\b", "-lead", ".hidden", "a b", "a\nb", "a\u0000b",
      "caf\u00e9", "x%2F..", "a:b", "12345678901234567890123456789012345678901234567890123456789012345"})
  void hostileIdentifiersAreRefused(String value) {
    assertThrows(IllegalArgumentException.class, () -> ItemId.original(value, "720p", 0));
    assertThrows(IllegalArgumentException.class, () -> ItemId.original("b", value, 0));
  }

  @Test
  void nullIdentifiersAreRefused() {
    assertThrows(IllegalArgumentException.class, () -> ItemId.original(null, "720p", 0));
  }

  @Test
  void sequenceRules() {
    assertThrows(IllegalArgumentException.class, () -> ItemId.original("b", "r", -1));
    assertThrows(IllegalArgumentException.class, () -> new ItemId("b", Axis.INIT, "r", 3));
  }

  @Test
  void errorMessagesEscapeControlCharacters() {
    IllegalArgumentException e =
        assertThrows(IllegalArgumentException.class, () -> ItemId.original("a\u001bb", "r", 0));
    assertTrue(e.getMessage().contains("\\u001b"), e.getMessage());
  }
}
