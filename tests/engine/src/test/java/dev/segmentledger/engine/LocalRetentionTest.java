package dev.segmentledger.engine;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.segmentledger.core.ItemId;
import dev.segmentledger.core.ItemState;
import dev.segmentledger.core.LocalFileRefusal;
import dev.segmentledger.core.ManualLedger;
import dev.segmentledger.core.Reason;
import dev.segmentledger.core.LedgerItem;
import dev.segmentledger.core.spi.StateStore;
import dev.segmentledger.testkit.InMemoryStateStore;
import dev.segmentledger.testkit.SinkFault;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.atomic.AtomicBoolean;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Opt-in local retention of originals: an original's file goes {@code localRetention} after it and
 * its derived rows are confirmed, never earlier, never another file, never through a link, never by
 * another storage group; and the rows stay confirmed.
 */
class LocalRetentionTest {
  private static final ItemId O7 = ItemId.original("b1", "720p", 7);
  private static final Duration HOUR = Duration.ofHours(1);

  @TempDir Path temp;

  @Test
  void anOriginalGoesOnceItsRetentionPassedAfterItAndItsPlaybackWereConfirmed() {
    LedgerFixture f = new LedgerFixture(temp);
    ManualLedger ledger = f.repackagingBuilder().localRetention(HOUR).buildManual();
    Path original = f.record(O7);
    ledger.register(O7, original);
    LedgerFixture.settle(ledger);
    assertEquals(ItemState.CONFIRMED, ledger.find(ItemId.playback("b1", "720p", 7)).orElseThrow().state());

    f.clock.advance(HOUR.minusMinutes(1));
    LedgerFixture.settle(ledger);
    assertTrue(Files.exists(original), "kept until its retention has passed");

    f.clock.advance(Duration.ofMinutes(2));
    LedgerFixture.settle(ledger);
    assertFalse(Files.exists(original), "deleted once it has");
    assertEquals(ItemState.CONFIRMED, ledger.find(O7).orElseThrow().state(), "the row stays confirmed");
    assertEquals(0, ledger.stats().localDisk().refusedTotal());
  }

  @Test
  void withoutLocalRetentionOriginalsStay() {
    LedgerFixture f = new LedgerFixture(temp);
    ManualLedger ledger = f.repackagingBuilder().buildManual();
    Path original = f.record(O7);
    ledger.register(O7, original);
    LedgerFixture.settle(ledger);
    f.clock.advance(Duration.ofDays(30));
    LedgerFixture.settle(ledger);
    assertTrue(Files.exists(original));
  }

  @Test
  void anOriginalStaysWhileAPlaybackRowMadeFromItIsNotConfirmed() {
    LedgerFixture f = new LedgerFixture(temp);
    f.repackager.failSegment(7);
    ManualLedger ledger = f.repackagingBuilder().localRetention(HOUR).maxErrorAttempts(1_000).buildManual();
    Path original = f.record(O7);
    ledger.register(O7, original);
    LedgerFixture.settle(ledger);
    assertEquals(ItemState.CONFIRMED, ledger.find(O7).orElseThrow().state());
    assertNotEquals(ItemState.CONFIRMED, ledger.find(ItemId.playback("b1", "720p", 7)).orElseThrow().state());

    f.clock.advance(HOUR.multipliedBy(3));
    LedgerFixture.settle(ledger);
    assertTrue(Files.exists(original), "the playback segment still has to be made from it");
  }

  @Test
  void aFileThatIsNotTheRegisteredOneIsNotDeleted() throws Exception {
    LedgerFixture f = new LedgerFixture(temp);
    ManualLedger ledger = f.builder().localRetention(HOUR).buildManual();
    Path original = f.record(O7);
    ledger.register(O7, original);
    LedgerFixture.settle(ledger);
    String content = Files.readString(original);
    Files.delete(original);
    Files.writeString(original, content.toUpperCase()); // same size, another file

    f.clock.advance(HOUR.multipliedBy(2));
    LedgerFixture.settle(ledger);
    assertTrue(Files.exists(original));
    assertEquals(1, ledger.stats().localDisk().refused().get(LocalFileRefusal.NOT_THE_RECORDED_FILE));
  }

  @Test
  void anOriginalReplacedByALinkIsNotFollowed() throws Exception {
    LedgerFixture f = new LedgerFixture(temp);
    ManualLedger ledger = f.builder().localRetention(HOUR).buildManual();
    Path original = f.record(O7);
    ledger.register(O7, original);
    LedgerFixture.settle(ledger);
    Path outside = Files.copy(original, temp.resolve("outside.ts"));
    Files.delete(original);
    Files.createSymbolicLink(original, outside);

    f.clock.advance(HOUR.multipliedBy(2));
    LedgerFixture.settle(ledger);
    assertTrue(Files.exists(outside), "nothing outside the root is deleted");
    assertTrue(Files.isSymbolicLink(original));
    assertEquals(1, ledger.stats().localDisk().refused().get(LocalFileRefusal.SYMLINK));
  }

  @Test
  void onlyTheStorageGroupThatOwnsTheDiskDeletes() {
    LedgerFixture f = new LedgerFixture(temp);
    ManualLedger hostA = f.builder().storageGroup("host-a").buildManual();
    Path original = f.record(O7);
    hostA.register(O7, original);
    LedgerFixture.settle(hostA);
    f.clock.advance(HOUR.multipliedBy(2));

    ManualLedger hostB = f.builder().storageGroup("host-b").localRetention(HOUR).buildManual();
    LedgerFixture.settle(hostB);
    assertTrue(Files.exists(original), "host-b does not own host-a's disk");

    ManualLedger hostAWithRetention = f.builder().storageGroup("host-a").localRetention(HOUR).buildManual();
    LedgerFixture.settle(hostAWithRetention);
    assertFalse(Files.exists(original));
  }

  /**
   * The reconciler re-opens a row (its object is missing from the bucket) after the retention's page
   * read it as confirmed: the file is then the only copy and must stay, to be uploaded again.
   */
  @Test
  void anOriginalReOpenedAfterThePageReadItIsKeptAndUploadedAgain() {
    InMemoryStateStore inner = new InMemoryStateStore();
    AtomicBoolean reopenAfterNextPage = new AtomicBoolean();
    StateStore store = InterceptedStore.of(inner, (method, args, proceed) -> {
      Object result = proceed.call();
      if (method.equals("findOriginalsToRemove") && !((List<?>) result).isEmpty()
          && reopenAfterNextPage.getAndSet(false)) {
        LedgerItem row = (LedgerItem) ((List<?>) result).get(0);
        assertTrue(inner.reopen(row.rowId(), ItemState.CONFIRMED, Reason.OBJECT_MISSING, "no object",
            row.confirmedAt()));
      }
      return result;
    });
    LedgerFixture f = new LedgerFixture(temp, store);
    ManualLedger ledger = f.builder().localRetention(HOUR).buildManual();
    Path original = f.record(O7);
    ledger.register(O7, original);
    LedgerFixture.settle(ledger);

    f.clock.advance(HOUR.multipliedBy(2));
    reopenAfterNextPage.set(true);
    ledger.sweepRound();
    assertFalse(reopenAfterNextPage.get(), "the page read the row, then it was re-opened");
    assertTrue(Files.exists(original), "the only copy of a re-opened row stays");
    LedgerFixture.settle(ledger);
    assertEquals(ItemState.CONFIRMED, ledger.find(O7).orElseThrow().state(), "uploaded again from it");
  }

  /** One recorded file registered for two rows: it stays while the other row is not confirmed. */
  @Test
  void aFileAnotherUnconfirmedRowWasRegisteredWithStays() {
    LedgerFixture f = new LedgerFixture(temp);
    ManualLedger ledger = f.builder().localRetention(HOUR).maxErrorAttempts(1_000).buildManual();
    Path original = f.record(O7);
    ledger.register(O7, original);
    LedgerFixture.settle(ledger);
    f.sink.startOutage(SinkFault.failRetryable());
    ItemId o8 = ItemId.original("b1", "720p", 8);
    ledger.register(o8, original);
    LedgerFixture.settle(ledger);
    assertNotEquals(ItemState.CONFIRMED, ledger.find(o8).orElseThrow().state());

    f.clock.advance(HOUR.multipliedBy(2));
    LedgerFixture.settle(ledger);
    assertTrue(Files.exists(original), "another row still has to upload it");
    assertTrue(ledger.stats().localDisk().refused().get(LocalFileRefusal.IN_USE) >= 1);

    f.sink.endOutage();
    f.clock.advance(Duration.ofSeconds(2));
    LedgerFixture.settle(ledger);
    assertEquals(ItemState.CONFIRMED, ledger.find(o8).orElseThrow().state());
    f.clock.advance(HOUR.multipliedBy(2));
    LedgerFixture.settle(ledger);
    assertFalse(Files.exists(original), "deleted once both rows are confirmed long enough");
  }

  /** The page of produced files fails (its store query throws): the originals' page still runs. */
  @Test
  void aFailingPageOfProducedFilesDoesNotStopLocalRetention() {
    StateStore store = InterceptedStore.of(new InMemoryStateStore(), (method, args, proceed) -> {
      if (method.equals("findLocalFilesToRemove")) {
        throw new IllegalStateException("injected: the produced files' page fails");
      }
      return proceed.call();
    });
    LedgerFixture f = new LedgerFixture(temp, store);
    ManualLedger ledger = f.repackagingBuilder().localRetention(HOUR).buildManual();
    Path original = f.record(O7);
    ledger.register(O7, original);
    LedgerFixture.settle(ledger);

    f.clock.advance(HOUR.multipliedBy(2));
    LedgerFixture.settle(ledger);
    assertFalse(Files.exists(original), "local retention ran although the other page failed");
  }

  @Test
  void aNonPositiveLocalRetentionIsRefused() {
    LedgerFixture f = new LedgerFixture(temp);
    assertThrows(IllegalArgumentException.class, () -> f.builder().localRetention(Duration.ZERO));
  }
}
