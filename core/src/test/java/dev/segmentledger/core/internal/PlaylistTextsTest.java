package dev.segmentledger.core.internal;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.segmentledger.core.ItemId;
import dev.segmentledger.core.ItemState;
import dev.segmentledger.core.LedgerItem;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/** The media playlist's {@code #EXT-X-PROGRAM-DATE-TIME} tags, from rows' recording times. */
class PlaylistTextsTest {
  private static final Instant T0 = Instant.parse("2026-11-30T18:00:00Z");
  private static final Instant REC = Instant.parse("2026-11-30T17:00:00.123456Z");

  private static LedgerItem row(ItemId id, ItemState state, Instant recordedAt) {
    return new LedgerItem(id.sequence() + 1, id, "/p/" + id.sequence(), "/r/" + id.sequence(), 1000, state, 0, null,
        null, T0, T0, state == ItemState.CONFIRMED ? T0 : null, null, Duration.ofSeconds(2), null, recordedAt, null, null);
  }

  private static List<LedgerItem> rows(ItemState[] states, Instant[] times, long... sequences) {
    List<LedgerItem> rows = new ArrayList<>();
    rows.add(row(ItemId.init("b1", "720p"), ItemState.CONFIRMED, times[0]));
    for (int i = 0; i < sequences.length; i++) {
      rows.add(row(ItemId.playback("b1", "720p", sequences[i]), states[i], times[i]));
    }
    return rows;
  }

  @Test
  void eachEntryWithARecordingTimeCarriesItBeforeItsDurationInUtcMilliseconds() {
    ItemState c = ItemState.CONFIRMED;
    String text = PlaylistTexts.media("b1", "720p", rows(new ItemState[] {c, c}, new Instant[] {REC,
        REC.plusMillis(2000)}, 0, 1), false, 0).text();
    assertTrue(text.contains("#EXT-X-MAP:URI=\"init.mp4\"\n"
        + "#EXT-X-PROGRAM-DATE-TIME:2026-11-30T17:00:00.123Z\n#EXTINF:2.000000,\nplayback/0000000000.m4s\n"
        + "#EXT-X-PROGRAM-DATE-TIME:2026-11-30T17:00:02.123Z\n#EXTINF:2.000000,\nplayback/0000000001.m4s\n"), text);
  }

  @Test
  void aGapAndADiscontinuityKeepTheTagOfTheirEntryAndTheEntryCountIsUnchanged() {
    ItemState c = ItemState.CONFIRMED;
    ItemState[] states = {c, ItemState.REJECTED, c};
    Instant[] times = {REC, REC.plusSeconds(2), REC.plusSeconds(8)};
    PlaylistTexts.Text with = PlaylistTexts.media("b1", "720p", rows(states, times, 0, 1, 4), true, 0);
    PlaylistTexts.Text without = PlaylistTexts.media("b1", "720p", rows(states, new Instant[3], 0, 1, 4), true, 0);

    assertTrue(with.text().contains("#EXT-X-PROGRAM-DATE-TIME:2026-11-30T17:00:02.123Z\n#EXT-X-GAP\n"
        + "#EXTINF:2.000000,\nplayback/0000000001.m4s\n"), with.text());
    assertTrue(with.text().contains("#EXT-X-DISCONTINUITY\n#EXT-X-PROGRAM-DATE-TIME:2026-11-30T17:00:08.123Z\n"
        + "#EXTINF:2.000000,\nplayback/0000000004.m4s\n"), with.text());
    assertEquals(3, with.entries());
    assertEquals(without.entries(), with.entries(), "the tags add no entry");
    assertFalse(without.text().contains("PROGRAM-DATE-TIME"), without.text());
    assertEquals(without.text(), with.text().replaceAll("#EXT-X-PROGRAM-DATE-TIME:[^\n]*\n", ""));
  }

  @Test
  void onlyEntriesWhoseTimeIsKnownAreTaggedAndTheFloorStillHolds() {
    ItemState c = ItemState.CONFIRMED;
    // The second row was re-opened (PENDING) after a publication of three entries: listed as a gap.
    List<LedgerItem> rows = rows(new ItemState[] {c, ItemState.PENDING, c}, new Instant[] {REC, null,
        REC.plusSeconds(4)}, 0, 1, 2);
    PlaylistTexts.Text text = PlaylistTexts.media("b1", "720p", rows, false, 3);
    assertEquals(3, text.entries());
    assertEquals(2, text.text().split("#EXT-X-PROGRAM-DATE-TIME:", -1).length - 1, text.text());
    assertTrue(text.text().contains("#EXT-X-GAP\n#EXTINF:2.000000,\nplayback/0000000001.m4s\n"
        + "#EXT-X-PROGRAM-DATE-TIME:2026-11-30T17:00:04.123Z\n"), text.text());
  }

  @Test
  void theValueIsIso8601InUtcWithMilliseconds() {
    assertEquals("2026-01-02T03:04:05.000Z", PlaylistTexts.programDateTime(Instant.parse("2026-01-02T03:04:05Z")));
    assertEquals("1999-12-31T23:59:59.999Z",
        PlaylistTexts.programDateTime(Instant.parse("1999-12-31T23:59:59.999999Z")));
  }
}
