package dev.segmentledger.engine;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.segmentledger.core.Axis;
import dev.segmentledger.core.ItemId;
import dev.segmentledger.core.ItemState;
import dev.segmentledger.core.Ledger;
import dev.segmentledger.core.LedgerItem;
import dev.segmentledger.core.LedgerListener;
import dev.segmentledger.core.spi.DuePage;
import dev.segmentledger.core.spi.StateStore;
import dev.segmentledger.testkit.InMemoryStateStore;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A rendition's first PLAYBACK rows, registered while its INIT was not yet confirmed (WAITING), are
 * offered by this node's confirm of the INIT, not left to a sweep: a sweep reaches them only after
 * every due row before them in their axis (behind a backlog of an ended broadcast's produced rows,
 * several rounds). Here the sweeps find no PLAYBACK row at all, so only the confirm can offer them.
 */
class FirstPlaybackTest {
  @TempDir Path temp;

  @Test
  void theRowsWaitingForAnInitAreOfferedByItsConfirmWithoutASweep() throws Exception {
    InMemoryStateStore rows = new InMemoryStateStore();
    StateStore sweepsFindNoPlayback = InterceptedStore.of(rows, (method, args, proceed) ->
        method.equals("findDue") && args[0] == Axis.PLAYBACK ? DuePage.of(List.of()) : proceed.call());
    LedgerFixture f = new LedgerFixture(temp, sweepsFindNoPlayback);
    CountDownLatch playbackConfirmed = new CountDownLatch(2);
    LedgerListener listener = new LedgerListener() {
      @Override
      public void onConfirmed(LedgerItem item) {
        if (item.id().axis() == Axis.PLAYBACK) {
          playbackConfirmed.countDown();
        }
      }
    };
    try (Ledger ledger = f.repackagingBuilder().workers(2).listener(listener).build()) {
      // Registered before the start: the INIT cannot be confirmed before both segments wait for it.
      ledger.register(ItemId.original("b1", "720p", 0), f.record("b1/720p/0.ts", "segment 0"));
      ledger.register(ItemId.original("b1", "720p", 1), f.record("b1/720p/1.ts", "segment 1"));
      assertEquals(ItemState.WAITING, rows.find(ItemId.playback("b1", "720p", 1)).orElseThrow().state());
      ledger.start();
      assertTrue(playbackConfirmed.await(10, TimeUnit.SECONDS), "the playback rows were offered by the INIT's confirm");
    }
  }
}
