package dev.segmentledger.engine;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.segmentledger.core.ItemId;
import dev.segmentledger.core.ManualLedger;
import dev.segmentledger.core.ObjectKeys;
import dev.segmentledger.core.spi.PlaylistRecord;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The full media playlist's cadence: while live it is PUT at most once per
 * {@code fullPlaylistInterval} (the live window at every change), catches up within an interval
 * even with no further change, and the final playlist is PUT at once.
 */
class PlaylistCadenceTest {
  private static final String MEDIA = ObjectKeys.mediaPlaylistKey("b1", "720p");
  private static final String LIVE = ObjectKeys.liveMediaPlaylistKey("b1", "720p");
  private static final Duration INTERVAL = Duration.ofSeconds(30);

  @TempDir Path temp;

  private static int entries(String text) {
    return text.split("#EXTINF:", -1).length - 1;
  }

  private static String text(LedgerFixture f, String key) {
    return new String(f.sink.bytes(key).orElseThrow(), StandardCharsets.UTF_8);
  }

  @Test
  void aLiveFullPlaylistIsPutAtMostOncePerIntervalAndTheFinalOneAtOnce() {
    LedgerFixture f = new LedgerFixture(temp);
    ManualLedger ledger = f.repackagingBuilder().fullPlaylistInterval(INTERVAL).buildManual();
    List<Instant> fullPuts = new ArrayList<>();
    for (int i = 0; i < 60; i++) {
      ItemId id = ItemId.original("b1", "720p", i);
      ledger.register(id, f.record(id));
      LedgerFixture.settle(ledger);
      int before = f.sink.attempts(MEDIA).size();
      int liveBefore = f.sink.attempts(LIVE).size();
      ledger.publishPlaylists();
      if (f.sink.attempts(MEDIA).size() > before) {
        fullPuts.add(f.clock.instant());
      }
      assertEquals(liveBefore + 1, f.sink.attempts(LIVE).size(), "the live window follows every change");
      assertTrue(text(f, LIVE).endsWith(String.format("playback/%010d.m4s\n", i)), text(f, LIVE));
      f.clock.advance(Duration.ofSeconds(4));
    }
    assertTrue(fullPuts.size() >= 6, "240 s of broadcast: " + fullPuts);
    for (int k = 1; k < fullPuts.size(); k++) {
      Duration between = Duration.between(fullPuts.get(k - 1), fullPuts.get(k));
      assertTrue(between.compareTo(INTERVAL) >= 0, "full PUTs " + between + " apart: " + fullPuts);
      assertTrue(between.compareTo(INTERVAL.plusSeconds(8)) <= 0, "the full playlist fell behind: " + fullPuts);
    }

    // No further change: the full playlist still catches up once its interval has passed.
    assertTrue(entries(text(f, MEDIA)) < 60, "behind its live window");
    f.clock.advance(INTERVAL);
    assertEquals(1, ledger.publishPlaylists(), "due without a change");
    assertEquals(60, entries(text(f, MEDIA)));
    PlaylistRecord record = f.store.playlists().find("b1").get(0);
    assertEquals(null, record.fullDueAt());
    assertEquals(0, ledger.publishPlaylists(), "up to date: nothing to do");

    // One more segment, then the end: the final playlist is PUT in the same round, VOD with an end.
    ItemId id = ItemId.original("b1", "720p", 60);
    ledger.register(id, f.record(id));
    LedgerFixture.settle(ledger);
    ledger.publishPlaylists();
    assertEquals(60, entries(text(f, MEDIA)), "within the interval only the live window moved");
    ledger.endBroadcast("b1");
    ledger.publishPlaylists();
    String full = text(f, MEDIA);
    assertEquals(61, entries(full));
    assertTrue(full.contains("#EXT-X-PLAYLIST-TYPE:VOD\n") && full.endsWith("#EXT-X-ENDLIST\n"), full);
    assertTrue(text(f, LIVE).endsWith("#EXT-X-ENDLIST\n"));
    assertTrue(f.store.playlists().find("b1").stream().allMatch(r -> r.publishedFinal() && !r.awaitingPublication()));
    assertFalse(f.store.playlists().find("b1").get(0).fullBehind());
  }

  @Test
  void aZeroIntervalPutsTheFullPlaylistAtEveryPublication() {
    LedgerFixture f = new LedgerFixture(temp);
    ManualLedger ledger = f.repackagingBuilder().fullPlaylistInterval(Duration.ZERO).buildManual();
    for (int i = 0; i < 5; i++) {
      ItemId id = ItemId.original("b1", "720p", i);
      ledger.register(id, f.record(id));
      LedgerFixture.settle(ledger);
      ledger.publishPlaylists();
      assertEquals(i + 1, entries(text(f, MEDIA)));
    }
  }
}
