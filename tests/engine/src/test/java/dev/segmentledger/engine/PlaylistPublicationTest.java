package dev.segmentledger.engine;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.segmentledger.core.ItemId;
import dev.segmentledger.core.ItemState;
import dev.segmentledger.core.LedgerItem;
import dev.segmentledger.core.LedgerListener;
import dev.segmentledger.core.ManualLedger;
import dev.segmentledger.core.ObjectKeys;
import dev.segmentledger.core.Reason;
import dev.segmentledger.core.ReconciliationReport;
import dev.segmentledger.core.spi.PlaylistRecord;
import dev.segmentledger.testkit.ConsistencyAssertions;
import dev.segmentledger.testkit.SinkFault;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Playlists published by the ledger: their text, gaps, completion, monotonicity, failures, reconciler. */
class PlaylistPublicationTest {
  private static final String MEDIA = ObjectKeys.mediaPlaylistKey("b1", "720p");
  private static final String MASTER = ObjectKeys.multivariantPlaylistKey("b1");
  private static final String LIVE = ObjectKeys.liveMediaPlaylistKey("b1", "720p");

  @TempDir Path temp;
  private LedgerFixture f;
  private ManualLedger ledger;
  private final List<String> published = new CopyOnWriteArrayList<>();

  @BeforeEach
  void setUp() {
    f = new LedgerFixture(temp);
    ledger = f.repackagingBuilder().listener(new LedgerListener() {
      @Override
      public void onPlaylistPublished(String broadcastId, String rendition, int entries, boolean complete) {
        published.add(broadcastId + "/" + rendition + " " + entries + (complete ? " complete" : ""));
      }
    }).buildManual();
  }

  private void register(String rendition, int from, int to) {
    for (int i = from; i < to; i++) {
      ItemId id = ItemId.original("b1", rendition, i);
      ledger.register(id, f.record(id));
    }
  }

  private String text(String key) {
    return new String(f.sink.bytes(key).orElseThrow(() -> new AssertionError("no object at " + key)),
        StandardCharsets.UTF_8);
  }

  private static int count(String text, String tag) {
    Matcher m = Pattern.compile("^" + Pattern.quote(tag), Pattern.MULTILINE).matcher(text);
    int n = 0;
    while (m.find()) {
      n++;
    }
    return n;
  }

  private PlaylistRecord record(String rendition) {
    return f.store.playlists().find("b1").stream()
        .filter(r -> rendition == null ? r.multivariant() : rendition.equals(r.rendition()))
        .findFirst().orElseThrow();
  }

  @Test
  void confirmedSegmentsArePublishedInAMediaAndAMultivariantPlaylist() {
    register("720p", 0, 3);
    register("1080p", 0, 1);
    LedgerFixture.settle(ledger);
    assertEquals(3, ledger.publishPlaylists(), "two media playlists and the multivariant one");

    String media = text(MEDIA);
    assertTrue(media.startsWith("#EXTM3U\n"), media);
    assertTrue(media.contains("#EXT-X-PLAYLIST-TYPE:EVENT\n"), media);
    assertTrue(media.contains("#EXT-X-MAP:URI=\"init.mp4\"\n"), media);
    assertTrue(media.contains("#EXT-X-MEDIA-SEQUENCE:0\n"), media);
    assertEquals(3, count(media, "#EXTINF:4.000000,"), media);
    assertTrue(media.contains("playback/0000000002.m4s\n"), media);
    assertFalse(media.contains("#EXT-X-ENDLIST"), media);
    assertFalse(media.contains("#EXT-X-PROGRAM-DATE-TIME"), "no recording time was given");

    String master = text(MASTER);
    assertEquals(2, count(master, "#EXT-X-STREAM-INF:BANDWIDTH="), master);
    assertTrue(master.indexOf("1080p/media.m3u8") < master.indexOf("720p/media.m3u8"), master);
    assertTrue(published.contains("b1/720p 3"), published.toString());
    assertTrue(published.contains("b1/null 2"), published.toString());
    assertEquals(0, ledger.stats().playlistsAwaitingPublication());
    assertEquals(0, ledger.publishPlaylists(), "nothing changed since");
    ConsistencyAssertions.assertConsistent(f.store, f.sink, "b1");
  }

  @Test
  void theEndOfTheBroadcastMakesTheFinalPlaylistsVodWithAnEndlist() {
    register("720p", 0, 2);
    LedgerFixture.settle(ledger);
    ledger.publishPlaylists();
    ledger.endBroadcast("b1");
    assertEquals(2, ledger.publishPlaylists());
    String media = text(MEDIA);
    assertTrue(media.contains("#EXT-X-PLAYLIST-TYPE:VOD\n"), media);
    assertTrue(media.endsWith("#EXT-X-ENDLIST\n"), media);
    assertEquals(2, count(media, "#EXTINF:"), media);
    assertTrue(published.contains("b1/720p 2 complete"), published.toString());
    assertTrue(record("720p").publishedFinal());
  }

  @Test
  void aSegmentThatFailedTerminallyIsAGapAndLaterSegmentsAreStillListed() {
    register("720p", 0, 3);
    String failing = ObjectKeys.keyOf(ItemId.playback("b1", "720p", 1));
    f.sink.failNext(failing, SinkFault.failPermanent());
    LedgerFixture.settle(ledger);
    assertEquals(ItemState.REJECTED, ledger.find(ItemId.playback("b1", "720p", 1)).orElseThrow().state());
    ledger.endBroadcast("b1");
    ledger.publishPlaylists();

    String media = text(MEDIA);
    assertEquals(3, count(media, "#EXTINF:"), media);
    assertEquals(1, count(media, "#EXT-X-GAP"), media);
    assertTrue(media.contains("#EXT-X-GAP\n#EXTINF:4.000000,\nplayback/0000000001.m4s\n"), media);
    assertTrue(media.contains("playback/0000000002.m4s\n#EXT-X-ENDLIST\n"), media);
  }

  @Test
  void aPlaylistNeverListsFewerEntriesThanItDidEvenWhenASegmentIsReopened() {
    register("720p", 0, 3);
    LedgerFixture.settle(ledger);
    ledger.publishPlaylists();
    assertEquals(3, count(text(MEDIA), "#EXTINF:"));

    LedgerItem second = ledger.find(ItemId.playback("b1", "720p", 1)).orElseThrow();
    assertTrue(f.store.reopen(second.rowId(), ItemState.CONFIRMED, Reason.OBJECT_MISSING, "test", f.clock.instant()));
    assertTrue(ledger.publishPlaylists() >= 1, "the re-open altered the playlist");
    String live = text(LIVE);
    assertEquals(3, count(live, "#EXTINF:"), "the live window shows the gap at once: " + live);
    assertTrue(live.contains("#EXT-X-GAP\n#EXTINF:4.000000,\nplayback/0000000001.m4s\n"), live);
    assertEquals(3, count(text(MEDIA), "#EXTINF:"), "the full playlist waits for its interval, never shorter");
    f.clock.advance(Duration.ofSeconds(30));
    ledger.publishPlaylists();
    String during = text(MEDIA);
    assertEquals(3, count(during, "#EXTINF:"), "still three entries: " + during);
    assertTrue(during.contains("#EXT-X-GAP\n#EXTINF:4.000000,\nplayback/0000000001.m4s\n"), during);

    LedgerFixture.settle(ledger);
    ledger.publishPlaylists();
    assertEquals(0, count(text(LIVE), "#EXT-X-GAP"), text(LIVE));
    f.clock.advance(Duration.ofSeconds(30));
    ledger.publishPlaylists();
    String after = text(MEDIA);
    assertEquals(3, count(after, "#EXTINF:"), after);
    assertEquals(0, count(after, "#EXT-X-GAP"), after);
  }

  @Test
  void aFailedPublicationIsRecordedBackedOffAndRetried() {
    register("720p", 0, 1);
    LedgerFixture.settle(ledger);
    f.sink.failNext(MEDIA, SinkFault.failRetryable());
    ledger.publishPlaylists();
    assertTrue(f.sink.bytes(MEDIA).isEmpty());
    PlaylistRecord failed = record("720p");
    assertEquals(1, failed.attempts());
    assertTrue(failed.lastError() != null && !failed.lastError().isEmpty());
    assertTrue(failed.awaitingPublication());
    assertEquals(0, ledger.publishPlaylists(), "in backoff");

    f.clock.advance(Duration.ofSeconds(1));
    assertEquals(1, ledger.publishPlaylists());
    assertEquals(1, count(text(MEDIA), "#EXTINF:"));
    assertEquals(0, record("720p").attempts());
  }

  @Test
  void theReconcilerReportsAndRepairsAMissingOrDifferentPlaylist() {
    register("720p", 0, 2);
    LedgerFixture.settle(ledger);
    ledger.publishPlaylists();
    assertTrue(ledger.reconcile("b1").isConsistent(), "playlists are not unrecognized objects");

    f.sink.delete(MEDIA);
    f.sink.seed(MASTER, "#EXTM3U\n".getBytes(StandardCharsets.UTF_8));
    ReconciliationReport report = ledger.reconcile("b1");
    assertEquals(List.of(ReconciliationReport.Kind.PLAYLIST_MISSING, ReconciliationReport.Kind.PLAYLIST_DIFFERENT),
        report.playlists().stream().map(ReconciliationReport.Difference::kind).toList(), report.describe());
    assertFalse(report.isConsistent());

    ReconciliationReport repaired = ledger.reconcileAndRepair("b1");
    assertEquals(2, repaired.playlistsRepublished(), repaired.describe());
    assertEquals(0, repaired.reopened(), "no row re-opened");
    assertEquals(2, ledger.publishPlaylists());
    assertEquals(2, count(text(MEDIA), "#EXTINF:"));
    assertTrue(ledger.reconcile("b1").isConsistent());
  }

  @Test
  void publicationCanBeTurnedOff() {
    ManualLedger off = f.repackagingBuilder().publishPlaylists(false).buildManual();
    ItemId id = ItemId.original("b1", "720p", 0);
    off.register(id, f.record(id));
    LedgerFixture.settle(off);
    assertEquals(0, off.publishPlaylists());
    assertTrue(f.sink.bytes(MEDIA).isEmpty());
    assertEquals(0, off.stats().playlistsAwaitingPublication());
  }
}
