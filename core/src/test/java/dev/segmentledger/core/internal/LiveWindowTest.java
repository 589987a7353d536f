package dev.segmentledger.core.internal;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.segmentledger.core.internal.PlaylistTexts.Rendered;
import dev.segmentledger.core.spi.PlaylistPart;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import org.junit.jupiter.api.Test;

/** The text of the live window playlist: its entries, sequence numbers, discontinuity sequence and end. */
class LiveWindowTest {
  private static Rendered entry(long sequence, double seconds, boolean discontinuity, boolean gap) {
    String text = (discontinuity ? "#EXT-X-DISCONTINUITY\n" : "") + (gap ? "#EXT-X-GAP\n" : "")
        + String.format(Locale.ROOT, "#EXTINF:%.6f,\nplayback/%010d.m4s\n", seconds, sequence);
    return new Rendered(text, seconds, discontinuity, (long) Math.ceil(seconds));
  }

  private static List<Rendered> entries(long from, long to, double seconds) {
    List<Rendered> entries = new ArrayList<>();
    for (long s = from; s < to; s++) {
      entries.add(entry(s, seconds, false, false));
    }
    return entries;
  }

  @Test
  void theWindowListsTheLastSegmentsWithTheMediaSequenceNumberOfItsFirst() {
    LiveWindow.Window w = LiveWindow.of(List.of(), entries(0, 20, 4), 0, 4, false, 6);
    assertEquals("#EXTM3U\n#EXT-X-VERSION:7\n#EXT-X-TARGETDURATION:4\n#EXT-X-MEDIA-SEQUENCE:14\n"
        + "#EXT-X-DISCONTINUITY-SEQUENCE:0\n#EXT-X-INDEPENDENT-SEGMENTS\n#EXT-X-MAP:URI=\"init.mp4\"\n"
        + "#EXTINF:4.000000,\nplayback/0000000014.m4s\n#EXTINF:4.000000,\nplayback/0000000015.m4s\n"
        + "#EXTINF:4.000000,\nplayback/0000000016.m4s\n#EXTINF:4.000000,\nplayback/0000000017.m4s\n"
        + "#EXTINF:4.000000,\nplayback/0000000018.m4s\n#EXTINF:4.000000,\nplayback/0000000019.m4s\n",
        w.text().text());
    assertEquals(6, w.text().entries());
    assertEquals(14, w.firstIndex());
    assertFalse(w.text().text().contains("PLAYLIST-TYPE"));
  }

  @Test
  void shortSegmentsExtendTheWindowBackToThreeTargetDurations() {
    List<Rendered> tail = entries(0, 30, 1);
    tail.add(entry(30, 4, false, false)); // target 4: the window must last 12 s
    LiveWindow.Window w = LiveWindow.of(List.of(), tail, 100, 4, false, 6);
    assertEquals(9, w.text().entries(), "4 s + 8 x 1 s = 12 s");
    assertEquals(100 + 31 - 9, w.mediaSequence(), "entry i has number 100 + i");
  }

  @Test
  void aShortPlaylistIsListedWhole() {
    LiveWindow.Window w = LiveWindow.of(List.of(), entries(0, 2, 4), 0, 4, false, 6);
    assertEquals(2, w.text().entries());
    assertEquals(0, w.mediaSequence());
  }

  @Test
  void theDiscontinuitySequenceCountsTheTagsBeforeTheFirstEntry() {
    List<Rendered> tail = entries(0, 5, 4);
    tail.add(entry(6, 4, true, false)); // index 5, after a hole
    tail.addAll(entries(7, 12, 4)); // indexes 6..10
    tail.add(entry(13, 4, true, false)); // index 11
    tail.addAll(entries(14, 20, 4)); // indexes 12..17
    LiveWindow.Window w = LiveWindow.of(List.of(), tail, 0, 4, true, 6);
    assertEquals(12, w.mediaSequence());
    assertEquals(2, w.discontinuitySequence());
    assertTrue(w.text().text().contains("#EXT-X-DISCONTINUITY-SEQUENCE:2\n"), w.text().text());
    assertTrue(w.text().text().endsWith("playback/0000000019.m4s\n#EXT-X-ENDLIST\n"), w.text().text());

    LiveWindow.Window wider = LiveWindow.of(List.of(), tail, 0, 4, true, 7);
    assertEquals(11, wider.mediaSequence());
    assertEquals(1, wider.discontinuitySequence(), "the first entry's own tag is in the window");
    assertTrue(wider.text().text().contains("#EXT-X-MAP:URI=\"init.mp4\"\n#EXT-X-DISCONTINUITY\n"));
  }

  @Test
  void aWindowReachingBackIntoASealedPartTakesItsEntriesAndCountsItsDiscontinuities() {
    StringBuilder text = new StringBuilder();
    List<Rendered> sealed = new ArrayList<>();
    sealed.add(entry(0, 4, false, false));
    sealed.add(entry(2, 4, true, true)); // a gap after a hole
    sealed.addAll(entries(3, 6, 4));
    sealed.forEach(r -> text.append(r.text()));
    PlaylistPart part = new PlaylistPart("b1", "720p", 0, 6, 5, 1, 4, 0, text.toString());
    assertEquals(sealed, LiveWindow.entries(part));

    LiveWindow.Window w = LiveWindow.of(List.of(part), entries(6, 8, 4), 0, 4, false, 4);
    assertEquals(3, w.mediaSequence(), "7 entries, the last 4");
    assertEquals(1, w.discontinuitySequence());
    assertTrue(w.text().text().contains("#EXT-X-MAP:URI=\"init.mp4\"\n#EXTINF:4.000000,\nplayback/0000000004.m4s\n"),
        w.text().text());
  }
}
