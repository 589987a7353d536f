package dev.segmentledger.engine;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.segmentledger.core.ItemId;
import dev.segmentledger.core.ItemState;
import dev.segmentledger.core.LedgerItem;
import dev.segmentledger.core.ManualLedger;
import dev.segmentledger.core.ObjectKeys;
import dev.segmentledger.core.Reason;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The live window playlist ({@code {broadcast}/{rendition}/live.m3u8}) as a player polling it sees
 * it over a broadcast with re-opens and restarts: its media sequence number never decreases, a
 * number always names the same segment, it lists at least six entries and three target durations,
 * its discontinuity sequence counts the discontinuities it dropped, and it ends with the broadcast.
 */
class PlaylistLiveWindowTest {
  private static final String LIVE = ObjectKeys.liveMediaPlaylistKey("b1", "720p");

  @TempDir Path temp;

  /** A live window as parsed from its text. */
  private record Window(long mediaSequence, long discontinuitySequence, long target, List<String> uris,
      double seconds, boolean ended, String text) {
    static Window parse(String text) {
      long msn = -1;
      long dsn = -1;
      long target = -1;
      double seconds = 0;
      List<String> uris = new ArrayList<>();
      for (String line : text.split("\n")) {
        if (line.startsWith("#EXT-X-MEDIA-SEQUENCE:")) {
          msn = Long.parseLong(line.substring(line.indexOf(':') + 1));
        } else if (line.startsWith("#EXT-X-DISCONTINUITY-SEQUENCE:")) {
          dsn = Long.parseLong(line.substring(line.indexOf(':') + 1));
        } else if (line.startsWith("#EXT-X-TARGETDURATION:")) {
          target = Long.parseLong(line.substring(line.indexOf(':') + 1));
        } else if (line.startsWith("#EXTINF:")) {
          seconds += Double.parseDouble(line.substring("#EXTINF:".length(), line.indexOf(',')));
        } else if (!line.startsWith("#")) {
          uris.add(line);
        }
      }
      assertFalse(text.contains("#EXT-X-PLAYLIST-TYPE"), text);
      return new Window(msn, dsn, target, uris, seconds, text.endsWith("#EXT-X-ENDLIST\n"), text);
    }

    String uriAt(long msn) {
      return uris.get((int) (msn - mediaSequence));
    }
  }

  private Window live(LedgerFixture f) {
    return Window.parse(new String(f.sink.bytes(LIVE).orElseThrow(), StandardCharsets.UTF_8));
  }

  private static void register(LedgerFixture f, ManualLedger ledger, int from, int to) {
    for (int i = from; i < to; i++) {
      ItemId id = ItemId.original("b1", "720p", i);
      ledger.register(id, f.record(id));
    }
  }

  private static void reopen(LedgerFixture f, ManualLedger ledger, long sequence) {
    LedgerItem row = ledger.find(ItemId.playback("b1", "720p", sequence)).orElseThrow();
    assertTrue(f.store.reopen(row.rowId(), ItemState.CONFIRMED, Reason.OBJECT_MISSING, "test", f.clock.instant()));
  }

  @Test
  void theMediaSequenceNeverDecreasesAndTheWindowOnlyDropsEntriesFromItsFront() {
    LedgerFixture f = new LedgerFixture(temp);
    ManualLedger ledger = f.repackagingBuilder().nodeId("node-a").buildManual();
    Window previous = null;
    int windows = 0;
    for (int i = 0; i < 260; i++) {
      register(f, ledger, i, i + 1);
      if (i == 40 || i == 230) {
        reopen(f, ledger, i - 3); // inside the window: a gap until it is uploaded again
      }
      if (i == 200) {
        reopen(f, ledger, 50); // inside the first sealed part: it is read from the rows again
      }
      if (i % 7 != 3) { // now and then, the new and re-opened rows stay unsettled for a round
        LedgerFixture.settle(ledger);
      }
      if (i == 120 || i == 240) { // a restart: another node publishes from the ledger alone
        ledger.close();
        ledger = f.repackagingBuilder().nodeId("node-" + i).buildManual();
      }
      f.clock.advance(Duration.ofSeconds(4));
      ledger.publishPlaylists();
      Window window = live(f);
      windows++;
      if (previous != null && previous.uris().size() >= 6) {
        assertTrue(window.uris().size() >= 6, "at least six entries once there are six: " + window.text());
      }
      if (window.uris().size() >= 6) {
        assertTrue(window.seconds() >= 3 * window.target(), "three target durations: " + window.text());
      }
      if (previous != null) {
        assertTrue(window.mediaSequence() >= previous.mediaSequence(),
            "media sequence went back from " + previous.mediaSequence() + " to " + window.mediaSequence());
        assertTrue(window.mediaSequence() + window.uris().size() >= previous.mediaSequence() + previous.uris().size(),
            "the live edge went back");
        for (long msn = window.mediaSequence(); msn < previous.mediaSequence() + previous.uris().size(); msn++) {
          assertEquals(previous.uriAt(msn), window.uriAt(msn), "number " + msn + " names another segment");
        }
      }
      previous = window;
    }
    LedgerFixture.settle(ledger);
    ledger.publishPlaylists();
    Window last = live(f);
    assertEquals("playback/0000000259.m4s", last.uris().get(last.uris().size() - 1));
    assertEquals(260 - last.uris().size(), last.mediaSequence(), "entry i has number i");
    assertEquals(0, last.discontinuitySequence());
    assertFalse(last.ended());
    assertEquals(260, windows);
    ledger.close();
  }

  @Test
  void atCompletionTheWindowEndsAndCountsTheDiscontinuitiesItDropped() {
    LedgerFixture f = new LedgerFixture(temp);
    ManualLedger ledger = f.repackagingBuilder().buildManual();
    register(f, ledger, 0, 10);
    register(f, ledger, 11, 21); // sequence 10 never comes
    LedgerFixture.settle(ledger);
    ledger.publishPlaylists();
    Window live = live(f);
    assertEquals(4, live.mediaSequence(), "while live the prefix stops at the hole: entries 4 to 9");
    assertEquals("playback/0000000009.m4s", live.uris().get(5));
    assertFalse(live.ended());

    ledger.endBroadcast("b1");
    ledger.publishPlaylists();
    Window done = live(f);
    assertTrue(done.ended(), done.text());
    assertEquals(14, done.mediaSequence(), "20 entries, the last six: " + done.text());
    assertEquals(1, done.discontinuitySequence(), "the discontinuity at sequence 11 is before the window");
    assertEquals("playback/0000000015.m4s", done.uris().get(0));
    String full = new String(f.sink.bytes(ObjectKeys.mediaPlaylistKey("b1", "720p")).orElseThrow(),
        StandardCharsets.UTF_8);
    assertTrue(full.contains("#EXT-X-PLAYLIST-TYPE:VOD\n") && full.endsWith("#EXT-X-ENDLIST\n"), full);
    assertTrue(full.contains("#EXT-X-DISCONTINUITY\n#EXTINF:4.000000,\nplayback/0000000011.m4s\n"), full);

    String liveMaster = new String(f.sink.bytes(ObjectKeys.liveMultivariantPlaylistKey("b1")).orElseThrow(),
        StandardCharsets.UTF_8);
    assertTrue(liveMaster.contains("\n720p/live.m3u8\n"), liveMaster);
  }

  @Test
  void theWindowSizeIsASetting() {
    LedgerFixture f = new LedgerFixture(temp);
    ManualLedger ledger = f.repackagingBuilder().liveWindowSegments(10).buildManual();
    register(f, ledger, 0, 30);
    LedgerFixture.settle(ledger);
    ledger.publishPlaylists();
    assertEquals(10, live(f).uris().size());
    assertEquals(20, live(f).mediaSequence());
  }
}
