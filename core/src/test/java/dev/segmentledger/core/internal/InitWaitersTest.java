package dev.segmentledger.core.internal;

import static org.junit.jupiter.api.Assertions.assertEquals;

import dev.segmentledger.core.ItemId;
import dev.segmentledger.core.ItemState;
import dev.segmentledger.core.LedgerItem;
import java.time.Instant;
import java.util.List;
import org.junit.jupiter.api.Test;

/** The playback rows waiting for an INIT: released by rendition, once, in a bounded memory. */
class InitWaitersTest {
  @Test
  void anInitReleasesTheRowsOfItsRenditionOnlyAndOnlyOnce() {
    InitWaiters waiters = new InitWaiters();
    waiters.waiting(playback(1, "b1", "720p", 0));
    waiters.waiting(playback(2, "b1", "720p", 1));
    waiters.waiting(playback(3, "b1", "1080p", 0));

    assertEquals(List.of(1L, 2L), rowIds(waiters.released(ItemId.init("b1", "720p"))));
    assertEquals(List.of(), waiters.released(ItemId.init("b1", "720p")), "released once");
    assertEquals(1, waiters.size(), "the other rendition's row still waits");
  }

  @Test
  void beyondItsBoundTheRenditionsRegisteredFirstAreForgottenFirst() {
    InitWaiters waiters = new InitWaiters();
    waiters.waiting(playback(1, "old", "720p", 0));
    for (int i = 0; i < InitWaiters.MAX_ROWS; i++) {
      waiters.waiting(playback(10 + i, "new", "720p", i));
    }
    assertEquals(InitWaiters.MAX_ROWS, waiters.size());
    assertEquals(List.of(), waiters.released(ItemId.init("old", "720p")), "forgotten: the sweep finds it");
    assertEquals(InitWaiters.MAX_ROWS, waiters.released(ItemId.init("new", "720p")).size());
    assertEquals(0, waiters.size());
  }

  private static List<Long> rowIds(List<LedgerItem> rows) {
    return rows.stream().map(LedgerItem::rowId).toList();
  }

  private static LedgerItem playback(long rowId, String broadcast, String rendition, long sequence) {
    Instant t = Instant.EPOCH;
    return new LedgerItem(rowId, ItemId.playback(broadcast, rendition, sequence), "/x", null, 1, ItemState.WAITING, 0,
        null, null, t, t, null, null, null, null, null, null, null);
  }
}
