package dev.segmentledger.engine;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.segmentledger.core.Axis;
import dev.segmentledger.core.BroadcastEndedException;
import dev.segmentledger.core.BroadcastStatus;
import dev.segmentledger.core.ItemId;
import dev.segmentledger.core.ItemState;
import dev.segmentledger.core.LedgerItem;
import dev.segmentledger.core.ManualLedger;
import dev.segmentledger.core.PlaybackView;
import dev.segmentledger.core.Reason;
import dev.segmentledger.testkit.ConsistencyAssertions;
import dev.segmentledger.testkit.SinkFault;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** ORIGINAL, INIT and PLAYBACK as three ledgers, the init gate, broadcast end and cutoff. */
class ThreeAxesTest {
  @TempDir Path temp;
  private LedgerFixture f;
  private ManualLedger ledger;

  @BeforeEach
  void setUp() {
    f = new LedgerFixture(temp);
    ledger = f.repackagingBuilder().buildManual();
  }

  private void registerOriginals(int count) {
    for (int i = 0; i < count; i++) {
      ItemId id = ItemId.original("b1", "720p", i);
      ledger.register(id, f.record(id));
    }
  }

  @Test
  void anOriginalBringsItsInitAndAWaitingPlaybackRow() {
    registerOriginals(1);
    assertEquals(ItemState.PENDING, ledger.find(ItemId.init("b1", "720p")).orElseThrow().state());
    LedgerItem playback = ledger.find(ItemId.playback("b1", "720p", 0)).orElseThrow();
    assertEquals(ItemState.WAITING, playback.state());
    assertEquals(LedgerItem.UNKNOWN_SIZE, playback.sizeBytes());

    LedgerFixture.settle(ledger);
    for (Axis axis : Axis.values()) {
      assertEquals(1, f.store.count(axis, ItemState.CONFIRMED), axis.toString());
    }
    ConsistencyAssertions.assertConsistent(f.store, f.sink, "b1");
  }

  @Test
  void playbackWaitsForTheInitAndIsReleasedWhenTheInitIsConfirmed() {
    f.repackager.failInit(true);
    registerOriginals(3);
    LedgerFixture.settle(ledger);
    assertEquals(3, f.store.count(Axis.ORIGINAL, ItemState.CONFIRMED));
    assertEquals(3, f.store.count(Axis.PLAYBACK, ItemState.WAITING), "no playback before the init");
    LedgerItem init = ledger.find(ItemId.init("b1", "720p")).orElseThrow();
    assertEquals(Reason.REPACKAGE_FAILED, init.reason());
    assertFalse(ledger.playback("b1", "720p").canOpen());

    f.repackager.failInit(false);
    f.clock.advance(Duration.ofSeconds(1));
    LedgerFixture.settle(ledger);
    assertEquals(3, f.store.count(Axis.PLAYBACK, ItemState.CONFIRMED));
    PlaybackView view = ledger.playback("b1", "720p");
    assertTrue(view.canOpen());
    assertEquals(3, view.segments().size());
    ConsistencyAssertions.assertConsistent(f.store, f.sink, "b1");
  }

  @Test
  void aPlaybackUploadThatKeepsFailingStaysVisibleAndOutOfThePlaylist() {
    registerOriginals(3);
    f.sink.failTimes(ItemId.playback("b1", "720p", 1).objectKey(), 1_000, SinkFault.failRetryable());
    LedgerFixture.settle(ledger);

    assertEquals(ItemState.CONFIRMED, ledger.find(ItemId.original("b1", "720p", 1)).orElseThrow().state());
    LedgerItem playback = ledger.find(ItemId.playback("b1", "720p", 1)).orElseThrow();
    assertEquals(ItemState.PENDING, playback.state());
    assertEquals(Reason.SINK_TRANSIENT, playback.reason());
    PlaybackView view = ledger.playback("b1", "720p");
    assertEquals(1, view.segments().size(), "the playlist stops at the first gap");
    assertFalse(view.mediaPlaylist().orElseThrow().contains("0000000001.m4s"));
    ConsistencyAssertions.assertConsistent(f.store, f.sink, "b1");
  }

  @Test
  void aRepackagerFailureIsRecordedOnThePlaybackRowOnly() {
    f.repackager.failSegment(0);
    registerOriginals(1);
    LedgerFixture.settle(ledger);

    assertEquals(ItemState.CONFIRMED, ledger.find(ItemId.original("b1", "720p", 0)).orElseThrow().state());
    LedgerItem original = ledger.find(ItemId.original("b1", "720p", 0)).orElseThrow();
    assertEquals(null, original.reason(), "the original row is never touched");
    LedgerItem playback = ledger.find(ItemId.playback("b1", "720p", 0)).orElseThrow();
    assertEquals(Reason.REPACKAGE_FAILED, playback.reason());
    assertEquals(ItemState.PENDING, playback.state(), "retried with backoff");
  }

  @Test
  void aPlaybackFileLostBeforeUploadIsProducedAgainFromTheOriginal() throws Exception {
    registerOriginals(1);
    ItemId playback = ItemId.playback("b1", "720p", 0);
    f.sink.failNext(playback.objectKey(), SinkFault.failRetryable());
    LedgerFixture.settle(ledger);
    LedgerItem failed = ledger.find(playback).orElseThrow();
    assertEquals(ItemState.PENDING, failed.state());
    Files.delete(Path.of(failed.sourcePath()));

    f.clock.advance(Duration.ofSeconds(1));
    LedgerFixture.settle(ledger);
    assertEquals(ItemState.CONFIRMED, ledger.find(playback).orElseThrow().state());
    assertEquals(2, f.repackager.segmentCalls());
    ConsistencyAssertions.assertConsistent(f.store, f.sink, "b1");
  }

  @Test
  void anEndedBroadcastRefusesRegistrationsRecoversItsRowsAndCompletes() {
    registerOriginals(2);
    assertTrue(ledger.endBroadcast("b1"));
    ItemId late = ItemId.original("b1", "720p", 2);
    assertThrows(BroadcastEndedException.class, () -> ledger.register(late, f.record(late)));
    assertEquals(BroadcastStatus.Phase.ENDED, ledger.broadcastStatus("b1").phase());

    LedgerFixture.settle(ledger);
    BroadcastStatus status = ledger.broadcastStatus("b1");
    assertEquals(BroadcastStatus.Phase.COMPLETE, status.phase());
    assertEquals(0, status.unconfirmed());
    assertTrue(ledger.playback("b1", "720p").mediaPlaylist().orElseThrow().endsWith("#EXT-X-ENDLIST\n"));
  }

  @Test
  void rowsPastTheCutoffAreExcludedWithAReasonAndNeverUploaded() {
    ManualLedger withCutoff = f.repackagingBuilder().cutoff(Duration.ofHours(1)).buildManual();
    f.repackager.failInit(true);
    ItemId id = ItemId.original("b1", "720p", 0);
    f.sink.failTimes(id.objectKey(), 1_000, SinkFault.failRetryable());
    withCutoff.register(id, f.record(id));
    LedgerFixture.settle(withCutoff);
    int putsBefore = f.sink.putCount();

    f.clock.advance(Duration.ofHours(2));
    assertEquals(3, withCutoff.sweepRound().excluded());
    LedgerFixture.settle(withCutoff);
    for (Axis axis : Axis.values()) {
      LedgerItem row = f.store.findByBroadcast("b1").stream().filter(r -> r.id().axis() == axis).findFirst()
          .orElseThrow();
      assertEquals(ItemState.EXCLUDED, row.state(), axis.toString());
      assertEquals(Reason.PAST_CUTOFF, row.reason());
      assertEquals(1, f.store.count(axis, ItemState.EXCLUDED), "counted per axis");
    }
    assertEquals(putsBefore, f.sink.putCount(), "no upload after exclusion");
  }
}
