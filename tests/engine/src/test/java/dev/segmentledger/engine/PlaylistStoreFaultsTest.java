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
import dev.segmentledger.core.StoreException;
import dev.segmentledger.core.StoreException.Outcome;
import dev.segmentledger.core.spi.PlaylistRecord;
import dev.segmentledger.core.spi.StateStore;
import dev.segmentledger.testkit.InMemoryStateStore;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Playlist publications that meet a store fault or a concurrent change half-way lose nothing. */
class PlaylistStoreFaultsTest {
  private static final String MEDIA = ObjectKeys.mediaPlaylistKey("b1", "720p");
  private static final String MASTER = ObjectKeys.multivariantPlaylistKey("b1");

  @TempDir Path temp;

  private String text(LedgerFixture f, String key) {
    return new String(f.sink.bytes(key).orElseThrow(() -> new AssertionError("no object at " + key)),
        StandardCharsets.UTF_8);
  }

  private static long bandwidth(String master, String rendition) {
    Matcher m = Pattern.compile("BANDWIDTH=(\\d+)\n" + Pattern.quote(rendition + "/")).matcher(master);
    if (!m.find()) {
      throw new AssertionError(rendition + " not listed: " + master);
    }
    return Long.parseLong(m.group(1));
  }

  @Test
  void thePeakOfSegmentsSealedBeforeAFailedRaiseIsStillAnnounced() {
    AtomicBoolean failRaise = new AtomicBoolean(true);
    LedgerFixture f = new LedgerFixture(temp, InterceptedStore.playlists(new InMemoryStateStore(),
        (method, args, proceed) -> {
          if (method.equals("raisePeakBandwidth") && failRaise.getAndSet(false)) {
            throw new StoreException("injected: the peak was not raised", null, Outcome.NOT_WRITTEN);
          }
          return proceed.call();
        }));
    ManualLedger ledger = f.repackagingBuilder().buildManual();
    // The first block (sealed at once: more than a block and a window are settled) holds the big segments.
    for (int i = 0; i < 200; i++) {
      ItemId id = ItemId.original("b1", "720p", i);
      String content = i < 100 ? "x".repeat(50_000) : "small " + i;
      ledger.register(id, f.record(id.broadcastId() + "/720p/" + i + ".ts", content));
    }
    LedgerFixture.settle(ledger);
    ledger.publishPlaylists(); // seals 0-99, then fails to raise the peak
    f.clock.advance(Duration.ofSeconds(5));
    ledger.publishPlaylists();
    ledger.publishPlaylists();
    long announced = bandwidth(text(f, MASTER), "720p");
    assertTrue(announced >= 50_000L * 8 / 4, "the big segments' bit rate is announced, got " + announced);
  }

  @Test
  void aRowReopenedAfterTheCompletenessReadDoesNotMakeAShortVod() {
    InMemoryStateStore inner = new InMemoryStateStore();
    AtomicBoolean reopenNext = new AtomicBoolean();
    LedgerFixture[] fixture = new LedgerFixture[1];
    StateStore store = InterceptedStore.of(inner, (method, args, proceed) -> {
      Object result = proceed.call();
      if (method.equals("hasOpenRows") && Boolean.FALSE.equals(result) && reopenNext.getAndSet(false)) {
        LedgerItem second = inner.find(ItemId.playback("b1", "720p", 1)).orElseThrow();
        assertTrue(inner.reopen(second.rowId(), ItemState.CONFIRMED, Reason.OBJECT_MISSING, "test",
            fixture[0].clock.instant()));
      }
      return result;
    });
    LedgerFixture f = new LedgerFixture(temp, store);
    fixture[0] = f;
    ManualLedger ledger = f.repackagingBuilder().buildManual();
    for (int i = 0; i < 3; i++) {
      ItemId id = ItemId.original("b1", "720p", i);
      ledger.register(id, f.record(id));
    }
    LedgerFixture.settle(ledger);
    ledger.endBroadcast("b1");
    reopenNext.set(true);
    ledger.publishPlaylists();

    String media = text(f, MEDIA);
    PlaylistRecord record = inner.playlists().find("b1").stream().filter(r -> "720p".equals(r.rendition()))
        .findFirst().orElseThrow();
    if (media.contains("#EXT-X-ENDLIST")) {
      assertEquals(3, media.split("#EXTINF:", -1).length - 1, "a VOD lists every entry: " + media);
    } else {
      assertFalse(record.publishedFinal(), "an EVENT playlist is not recorded final");
    }
    LedgerFixture.settle(ledger);
    ledger.publishPlaylists();
    String end = text(f, MEDIA);
    assertTrue(end.endsWith("#EXT-X-ENDLIST\n"), end);
    assertEquals(3, end.split("#EXTINF:", -1).length - 1, end);
    assertFalse(end.contains("#EXT-X-GAP"), end);
  }

  @Test
  void aRenditionStaysInTheMultivariantPlaylistsWhenItsInitIsReopened() {
    LedgerFixture f = new LedgerFixture(temp);
    ManualLedger ledger = f.repackagingBuilder().buildManual();
    for (String rendition : new String[] {"720p", "1080p"}) {
      for (int i = 0; i < 2; i++) {
        ItemId id = ItemId.original("b1", rendition, i);
        ledger.register(id, f.record(id));
      }
    }
    LedgerFixture.settle(ledger);
    ledger.publishPlaylists();
    assertTrue(text(f, MASTER).contains("1080p/media.m3u8"), text(f, MASTER));

    LedgerItem init = f.store.find(ItemId.init("b1", "1080p")).orElseThrow();
    assertTrue(f.store.reopen(init.rowId(), ItemState.CONFIRMED, Reason.OBJECT_MISSING, "test", f.clock.instant()));
    ledger.publishPlaylists();
    String live = text(f, ObjectKeys.liveMultivariantPlaylistKey("b1"));
    assertTrue(text(f, MASTER).contains("1080p/media.m3u8"), "withdrawn from master.m3u8: " + text(f, MASTER));
    assertTrue(live.contains("1080p/live.m3u8"), "withdrawn from live.m3u8: " + live);
    assertTrue(text(f, MASTER).contains("720p/media.m3u8"), text(f, MASTER));
  }
}
