package dev.segmentledger.engine;

import static org.junit.jupiter.api.Assertions.assertEquals;

import dev.segmentledger.core.BroadcastStatus;
import dev.segmentledger.core.ItemId;
import dev.segmentledger.core.ItemState;
import dev.segmentledger.core.LedgerItem;
import dev.segmentledger.core.ManualLedger;
import dev.segmentledger.core.Reason;
import dev.segmentledger.testkit.SinkFault;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Playback never waits for ever on an init that became terminal; the broadcast still completes. */
class StrandedPlaybackTest {
  @TempDir Path temp;

  @Test
  void playbackOfARejectedInitIsRejectedWithItsReasonAndTheBroadcastCompletes() {
    LedgerFixture f = new LedgerFixture(temp);
    ManualLedger ledger = f.repackagingBuilder().buildManual();
    f.sink.failNext(ItemId.init("b1", "720p").objectKey(), SinkFault.failPermanent());
    for (int i = 0; i < 2; i++) {
      ItemId id = ItemId.original("b1", "720p", i);
      ledger.register(id, f.record(id));
    }
    ledger.endBroadcast("b1");
    LedgerFixture.settle(ledger);
    // The init was refused in the first drain; the first round's upkeep settled its playback.
    assertEquals(ItemState.REJECTED, ledger.find(ItemId.init("b1", "720p")).orElseThrow().state());
    for (int i = 0; i < 2; i++) {
      LedgerItem playback = ledger.find(ItemId.playback("b1", "720p", i)).orElseThrow();
      assertEquals(ItemState.REJECTED, playback.state());
      assertEquals(Reason.INIT_FAILED, playback.reason());
    }
    assertEquals(BroadcastStatus.Phase.COMPLETE, ledger.broadcastStatus("b1").phase());
  }
}
