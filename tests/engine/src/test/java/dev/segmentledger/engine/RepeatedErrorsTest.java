package dev.segmentledger.engine;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.segmentledger.core.ItemId;
import dev.segmentledger.core.ItemState;
import dev.segmentledger.core.LedgerItem;
import dev.segmentledger.core.ManualLedger;
import dev.segmentledger.core.Reason;
import java.nio.file.Path;
import java.time.Duration;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A row whose failure is one the ledger cannot tell from a lasting one (a repackager failure, an
 * internal error) is retried with backoff, but not for ever: after {@code maxErrorAttempts} it ends
 * REJECTED with that reason, and a re-open gives it a fresh count.
 */
class RepeatedErrorsTest {
  @TempDir Path temp;

  @Test
  void aRepackagerFailureThatKeepsComingBackEndsTheRowAfterTheLimitAndAReopenStartsItOver() {
    LedgerFixture f = new LedgerFixture(temp);
    ManualLedger ledger = f.repackagingBuilder().publishPlaylists(false).maxErrorAttempts(3).buildManual();
    f.repackager.failSegment(0);
    ItemId original = ItemId.original("b1", "720p", 0);
    ItemId playback = ItemId.playback("b1", "720p", 0);
    ledger.register(original, f.record(original));

    for (int attempt = 1; attempt <= 2; attempt++) {
      LedgerFixture.settle(ledger);
      LedgerItem row = ledger.find(playback).orElseThrow();
      assertEquals(ItemState.PENDING, row.state(), "retried after attempt " + attempt);
      assertEquals(attempt, row.attempts());
      f.clock.advance(Duration.ofSeconds(1));
    }
    LedgerFixture.settle(ledger);

    LedgerItem rejected = ledger.find(playback).orElseThrow();
    assertEquals(ItemState.REJECTED, rejected.state());
    assertEquals(Reason.REPACKAGE_FAILED, rejected.reason());
    assertTrue(rejected.lastError().contains("REPACKAGE_FAILED 3 of at most 3"), rejected.lastError());
    assertEquals(3, f.repackager.segmentCalls());

    f.repackager.heal(0);
    assertTrue(ledger.reopen(playback));
    LedgerFixture.settle(ledger);
    assertEquals(ItemState.CONFIRMED, ledger.find(playback).orElseThrow().state());
  }
}
