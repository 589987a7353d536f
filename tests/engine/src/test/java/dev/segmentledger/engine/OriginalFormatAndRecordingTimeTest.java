package dev.segmentledger.engine;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.segmentledger.core.Axis;
import dev.segmentledger.core.ClosedFile;
import dev.segmentledger.core.ItemId;
import dev.segmentledger.core.ItemState;
import dev.segmentledger.core.LedgerItem;
import dev.segmentledger.core.ManualLedger;
import dev.segmentledger.core.MediaFormat;
import dev.segmentledger.core.ObjectKeys;
import dev.segmentledger.core.Registration;
import dev.segmentledger.core.RegistrationConflictException;
import dev.segmentledger.testkit.ConsistencyAssertions;
import dev.segmentledger.testkit.SinkFault;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Instant;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Originals that are not MPEG-TS get the key of their format through the whole ledger,
 * and the recording time a recorder gives reaches the published media playlist as
 * {@code #EXT-X-PROGRAM-DATE-TIME}.
 */
class OriginalFormatAndRecordingTimeTest {
  private static final Instant RECORDED = Instant.parse("2026-11-30T17:00:00.250Z");

  @TempDir Path temp;
  private LedgerFixture f;
  private ManualLedger ledger;

  @BeforeEach
  void setUp() {
    f = new LedgerFixture(temp);
    ledger = f.repackagingBuilder().buildManual();
  }

  private Path file(ItemId id) {
    return f.record(id.broadcastId() + "/" + id.rendition() + "/" + id.sequence() + "." + id.format().extension(),
        "bytes of " + id);
  }

  @Test
  void anFmp4OriginalIsStoredUnderItsExtensionBesideItsPlaybackAndTheLedgerAndBucketAgree() {
    ItemId fmp4 = ItemId.original("b1", "720p", 0, MediaFormat.FMP4);
    ItemId mp4 = ItemId.original("b1", "720p", 1, MediaFormat.MP4);
    ledger.registerAll(List.of(ClosedFile.of(fmp4, file(fmp4)), ClosedFile.of(mp4, file(mp4))));
    LedgerFixture.settle(ledger);

    assertEquals(ItemState.CONFIRMED, ledger.find(fmp4).orElseThrow().state());
    assertTrue(f.sink.bytes("b1/720p/original/0000000000.m4s").isPresent());
    assertTrue(f.sink.bytes("b1/720p/original/0000000001.mp4").isPresent());
    assertTrue(f.sink.bytes("b1/720p/original/0000000000.ts").isEmpty());
    assertEquals(ItemState.CONFIRMED, ledger.find(ItemId.playback("b1", "720p", 0)).orElseThrow().state());
    assertEquals(ItemState.CONFIRMED, ledger.find(ItemId.init("b1", "720p")).orElseThrow().state());
    assertEquals(fmp4, ledger.find(ItemId.original("b1", "720p", 0)).orElseThrow().id(), "found by position");
    ConsistencyAssertions.assertConsistent(f.store, f.sink, "b1");

    ItemId sameAsTs = ItemId.original("b1", "720p", 0);
    RegistrationConflictException e = assertThrows(RegistrationConflictException.class,
        () -> ledger.register(sameAsTs, file(sameAsTs)));
    assertEquals(fmp4, e.existing().id());
    assertEquals(2, f.store.findByBroadcast("b1").stream().filter(r -> r.id().axis() == Axis.ORIGINAL).count());
    Registration again = ledger.register(ClosedFile.of(fmp4, file(fmp4)));
    assertEquals(fmp4, again.item().id());
  }

  @Test
  void thePublishedMediaPlaylistGivesEachSegmentItsRecordingTime() {
    for (int seq : new int[] {0, 1, 2, 4}) { // 3 never registered: a discontinuity once complete
      ItemId id = ItemId.original("b1", "720p", seq);
      ledger.register(ClosedFile.of(id, f.record(id), RECORDED.plusSeconds(4L * seq)));
    }
    f.sink.failNext(ObjectKeys.keyOf(ItemId.playback("b1", "720p", 1)), SinkFault.failPermanent());
    LedgerFixture.settle(ledger);
    LedgerItem playback = ledger.find(ItemId.playback("b1", "720p", 2)).orElseThrow();
    assertEquals(RECORDED.plusSeconds(8), playback.recordedAt(), "the playback row inherits its original's time");
    assertEquals(RECORDED, ledger.find(ItemId.init("b1", "720p")).orElseThrow().recordedAt());

    ledger.publishPlaylists();
    String live = text(ObjectKeys.mediaPlaylistKey("b1", "720p"));
    assertEquals(List.of("2026-11-30T17:00:00.250Z", "2026-11-30T17:00:04.250Z", "2026-11-30T17:00:08.250Z"),
        times(live), live);

    ledger.endBroadcast("b1");
    ledger.publishPlaylists();
    String vod = text(ObjectKeys.mediaPlaylistKey("b1", "720p"));
    assertTrue(vod.contains("#EXT-X-PROGRAM-DATE-TIME:2026-11-30T17:00:00.250Z\n#EXTINF:4.000000,\n"
        + "playback/0000000000.m4s\n"), vod);
    assertTrue(vod.contains("#EXT-X-PROGRAM-DATE-TIME:2026-11-30T17:00:04.250Z\n#EXT-X-GAP\n"), "after a gap: " + vod);
    assertTrue(vod.contains("#EXT-X-DISCONTINUITY\n#EXT-X-PROGRAM-DATE-TIME:2026-11-30T17:00:16.250Z\n"
        + "#EXTINF:4.000000,\nplayback/0000000004.m4s\n"), "after a discontinuity: " + vod);
    assertEquals(4, times(vod).size(), vod);
    assertTrue(vod.endsWith("#EXT-X-ENDLIST\n"), vod);

    String view = ledger.playback("b1", "720p").mediaPlaylist().orElseThrow();
    assertEquals(List.of("2026-11-30T17:00:00.250Z"), times(view), "the playback view stops at the gap: " + view);
  }

  private String text(String key) {
    return new String(f.sink.bytes(key).orElseThrow(() -> new AssertionError("no object at " + key)),
        StandardCharsets.UTF_8);
  }

  private static List<String> times(String playlist) {
    Matcher m = Pattern.compile("^#EXT-X-PROGRAM-DATE-TIME:(.*)$", Pattern.MULTILINE).matcher(playlist);
    List<String> times = new java.util.ArrayList<>();
    while (m.find()) {
      times.add(m.group(1));
    }
    return times;
  }
}
