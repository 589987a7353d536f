package dev.segmentledger.engine;

import static org.junit.jupiter.api.Assertions.assertEquals;

import dev.segmentledger.core.ItemId;
import dev.segmentledger.core.ItemState;
import dev.segmentledger.core.LedgerItem;
import dev.segmentledger.core.ManualLedger;
import dev.segmentledger.core.Reason;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The INIT and PLAYBACK rows are made from the original as it was registered: an original that
 * shrank after registration is refused with that reason on every axis, never repackaged into a
 * confirmed playback segment.
 */
class DerivedFromRegisteredOriginalTest {
  @TempDir Path temp;

  @Test
  void anOriginalThatShrankAfterRegistrationIsNotRepackaged() throws Exception {
    LedgerFixture f = new LedgerFixture(temp);
    ManualLedger ledger = f.repackagingBuilder().buildManual();
    ItemId first = ItemId.original("b1", "720p", 0);
    ledger.register(first, f.record(first));
    LedgerFixture.settle(ledger); // the rendition's INIT is made from segment 0 and confirmed
    int putsBefore = f.sink.putCount();
    ItemId second = ItemId.original("b1", "720p", 1);
    Path file = f.record(second);
    ledger.register(second, file);

    Files.writeString(file, "x"); // truncated by the recorder's host after registration
    LedgerFixture.settle(ledger);

    for (ItemId id : new ItemId[] {second, ItemId.playback("b1", "720p", 1)}) {
      LedgerItem row = f.store.find(id).orElseThrow();
      assertEquals(ItemState.REJECTED, row.state(), id + ": " + row.lastError());
      assertEquals(Reason.FILE_SHRANK, row.reason(), id + ": " + row.lastError());
    }
    assertEquals(putsBefore, f.sink.putCount(), "nothing made from the truncated file is uploaded");
  }

  @Test
  void anInitIsNotMadeFromAnOriginalThatShrank() throws Exception {
    LedgerFixture f = new LedgerFixture(temp);
    ManualLedger ledger = f.repackagingBuilder().buildManual();
    ItemId original = ItemId.original("b1", "720p", 0);
    Path file = f.record(original);
    ledger.register(original, file);

    Files.writeString(file, "x");
    LedgerFixture.settle(ledger);

    LedgerItem init = f.store.find(ItemId.init("b1", "720p")).orElseThrow();
    assertEquals(ItemState.REJECTED, init.state(), init.lastError());
    assertEquals(Reason.FILE_SHRANK, init.reason(), init.lastError());
    LedgerItem playback = f.store.find(ItemId.playback("b1", "720p", 0)).orElseThrow();
    assertEquals(ItemState.REJECTED, playback.state(), "waits on an INIT that can never be made");
    assertEquals(0, f.sink.putCount(), "nothing made from the truncated file is uploaded");
  }

  @Test
  void anUnchangedOriginalIsRepackagedAndConfirmedOnEveryAxis() {
    LedgerFixture f = new LedgerFixture(temp);
    ManualLedger ledger = f.repackagingBuilder().buildManual();
    ItemId original = ItemId.original("b1", "720p", 0);
    ledger.register(original, f.record(original));
    LedgerFixture.settle(ledger);

    for (ItemId id : new ItemId[] {original, ItemId.init("b1", "720p"), ItemId.playback("b1", "720p", 0)}) {
      assertEquals(ItemState.CONFIRMED, f.store.find(id).orElseThrow().state(), id.toString());
    }
  }
}
