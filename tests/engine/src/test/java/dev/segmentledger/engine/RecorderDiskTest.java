package dev.segmentledger.engine;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import dev.segmentledger.core.Axis;
import dev.segmentledger.core.ItemId;
import dev.segmentledger.core.ItemState;
import dev.segmentledger.core.LedgerItem;
import dev.segmentledger.core.LedgerListener;
import dev.segmentledger.core.LedgerStats;
import dev.segmentledger.core.LocalFileRefusal;
import dev.segmentledger.core.ManualLedger;
import dev.segmentledger.core.Reason;
import dev.segmentledger.core.spi.StateStore;
import dev.segmentledger.testkit.ConsistencyAssertions;
import dev.segmentledger.testkit.InMemoryStateStore;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The recorder's disk: the PLAYBACK and INIT files the ledger produced are deleted once their rows
 * are confirmed, also after a kill between the confirm and the deletion; the originals stay; a
 * link swapped in is never followed and nothing outside the root is deleted; a low disk is reported.
 */
class RecorderDiskTest {
  private static final ItemId O7 = ItemId.original("b1", "720p", 7);
  private static final ItemId O8 = ItemId.original("b1", "720p", 8);
  private static final ItemId P7 = ItemId.playback("b1", "720p", 7);
  private static final ItemId P8 = ItemId.playback("b1", "720p", 8);
  private static final ItemId INIT = ItemId.init("b1", "720p");

  @TempDir Path temp;

  /**
   * Stands for the process dying right after the confirm: thrown by a listener, it leaves the
   * confirm before the deletion (the worker logs it; the sweep's upkeep, which ran in the first
   * round, does not run again by this ledger's clock).
   */
  static final class Killed extends Error {
    Killed() {
      super("killed between the confirm and the deletion", null, false, false);
    }
  }

  @Test
  void producedFilesAreDeletedOnceConfirmedAndTheOriginalsStay() throws Exception {
    LedgerFixture f = new LedgerFixture(temp);
    ManualLedger ledger = f.repackagingBuilder().buildManual();
    Path original7 = f.record(O7);
    Path original8 = f.record(O8);
    ledger.register(O7, original7);
    ledger.register(O8, original8);
    LedgerFixture.settle(ledger);

    for (ItemId id : List.of(O7, O8, P7, P8, INIT)) {
      assertEquals(ItemState.CONFIRMED, ledger.find(id).orElseThrow().state(), id::toString);
    }
    ConsistencyAssertions.assertConsistent(f.store, f.sink, "b1");
    for (ItemId id : List.of(P7, P8, INIT)) {
      assertFalse(Files.exists(produced(f, id)), () -> id + "'s produced file is left");
    }
    assertTrue(Files.exists(original7) && Files.exists(original8), "the originals are the recorder's: kept");
    LedgerStats.LocalDisk disk = ledger.stats().localDisk();
    assertEquals(3, disk.filesDeleted());
    assertEquals(Stream.of(P7, P8, INIT).mapToLong(id -> f.sink.bytes(id.objectKey()).orElseThrow().length).sum(),
        disk.bytesDeleted());
    assertEquals(0, disk.refusedTotal());
    assertTrue(f.store.findLocalFilesToRemove(null, 0, 10).isEmpty(), "every produced row is marked done");
  }

  @Test
  void aKillBetweenConfirmAndDeletionLeavesNothingAfterTheRestart() throws Exception {
    LedgerFixture f = new LedgerFixture(temp);
    ManualLedger killed = killedAtPlaybackConfirm(f);
    assertEquals(ItemState.CONFIRMED, killed.find(P7).orElseThrow().state(), "confirmed before the kill");
    assertTrue(Files.exists(produced(f, P7)), "the kill left the produced file");

    ManualLedger restarted = f.repackagingBuilder().buildManual();
    restarted.start();
    LedgerFixture.settle(restarted);

    assertFalse(Files.exists(produced(f, P7)), "the restarted ledger deleted what the kill left");
    assertEquals(ItemState.CONFIRMED, restarted.find(P7).orElseThrow().state());
    assertEquals(1, f.sink.attempts(P7.objectKey()).size(), "nothing uploaded again");
    assertTrue(f.store.findLocalFilesToRemove(null, 0, 10).isEmpty());
    assertTrue(Files.exists(f.root.resolve("b1/720p/7.ts")), "the original stays");
  }

  @Test
  void aProducedFileReplacedByALinkIsNotFollowedAndNothingOutsideTheRootIsDeleted() throws Exception {
    LedgerFixture f = new LedgerFixture(temp);
    killedAtPlaybackConfirm(f);
    Path output = produced(f, P7);
    long size = Files.size(output);
    Path outside = Files.writeString(temp.resolve("precious"), "x".repeat((int) size));
    Files.delete(output);
    Files.createSymbolicLink(output, outside); // same size behind the link

    ManualLedger restarted = f.repackagingBuilder().buildManual();
    LedgerFixture.settle(restarted);

    assertTrue(Files.exists(outside), "the link's target outside the root is never deleted");
    assertTrue(Files.isSymbolicLink(output), "the link is left for the operator, not followed");
    LedgerStats.LocalDisk disk = restarted.stats().localDisk();
    assertEquals(1, disk.refused().get(LocalFileRefusal.SYMLINK));
    assertTrue(f.store.findLocalFilesToRemove(null, 0, 10).isEmpty(), "a final refusal is not read again");
    f.clock.advance(Duration.ofMinutes(5));
    LedgerFixture.settle(restarted);
    assertEquals(1, restarted.stats().localDisk().refused().get(LocalFileRefusal.SYMLINK), "refused once");
  }

  @Test
  void aDirectoryReplacedByALinkIsNotWalkedThrough() throws Exception {
    LedgerFixture f = new LedgerFixture(temp);
    killedAtPlaybackConfirm(f);
    Path output = produced(f, P7);
    Path segments = output.getParent();
    Path elsewhere = Files.createDirectories(temp.resolve("elsewhere"));
    Path bait = Files.copy(output, elsewhere.resolve(output.getFileName()));
    try (Stream<Path> files = Files.list(segments)) {
      for (Path file : files.toList()) {
        Files.delete(file);
      }
    }
    Files.delete(segments);
    Files.createSymbolicLink(segments, elsewhere);

    ManualLedger restarted = f.repackagingBuilder().buildManual();
    LedgerFixture.settle(restarted);

    assertTrue(Files.exists(bait), "a file reached through a linked directory is never deleted");
    assertEquals(1, restarted.stats().localDisk().refused().get(LocalFileRefusal.SYMLINK));
  }

  @Test
  void aReopenedRowIsProducedUploadedAndDeletedAgain() throws Exception {
    LedgerFixture f = new LedgerFixture(temp);
    ManualLedger ledger = f.repackagingBuilder().buildManual();
    ledger.register(O7, f.record(O7));
    LedgerFixture.settle(ledger);
    assertFalse(Files.exists(produced(f, P7)));

    // As the reconciler re-opens a confirmed row whose object is missing from the bucket.
    LedgerItem row = ledger.find(P7).orElseThrow();
    assertTrue(f.store.reopen(row.rowId(), ItemState.CONFIRMED, Reason.REOPENED, "object missing", f.clock.instant()));
    f.clock.advance(Duration.ofSeconds(2));
    LedgerFixture.settle(ledger);

    assertEquals(ItemState.CONFIRMED, ledger.find(P7).orElseThrow().state());
    assertFalse(Files.exists(produced(f, P7)), "produced again for its upload, then deleted again");
    assertEquals(3, ledger.stats().localDisk().filesDeleted(), "the init, the segment, the segment again");
  }

  /**
   * After a kill, the sweep's page reads a confirmed row whose produced file is still there; the
   * reconciler re-opens it before the deletion: the file is kept for the upload that follows.
   */
  @Test
  void aRowReOpenedAfterTheSweepsPageReadItKeepsItsProducedFile() throws Exception {
    InMemoryStateStore inner = new InMemoryStateStore();
    AtomicBoolean reopenAfterNextPage = new AtomicBoolean();
    StateStore store = InterceptedStore.of(inner, (method, args, proceed) -> {
      Object result = proceed.call();
      if (method.equals("findLocalFilesToRemove") && !((List<?>) result).isEmpty()
          && reopenAfterNextPage.getAndSet(false)) {
        LedgerItem row = (LedgerItem) ((List<?>) result).get(0);
        assertTrue(inner.reopen(row.rowId(), ItemState.CONFIRMED, Reason.OBJECT_MISSING, "no object",
            row.confirmedAt()));
      }
      return result;
    });
    LedgerFixture f = new LedgerFixture(temp, store);
    killedAtPlaybackConfirm(f);

    ManualLedger restarted = f.repackagingBuilder().buildManual();
    reopenAfterNextPage.set(true);
    restarted.sweepRound();
    assertFalse(reopenAfterNextPage.get(), "the page read the row, then it was re-opened");
    assertTrue(Files.exists(produced(f, P7)), "the re-opened row's file is kept for its upload");
    assertEquals(0, restarted.stats().localDisk().filesDeleted());

    LedgerFixture.settle(restarted);
    assertEquals(ItemState.CONFIRMED, restarted.find(P7).orElseThrow().state());
    assertEquals(2, f.sink.attempts(P7.objectKey()).size(), "uploaded again");
  }

  /**
   * A FIFO swapped in for a directory on the way to a produced file, between its production and the
   * deletion after its confirm: opening it as a directory would wait for a writer forever, and with
   * it the worker that confirmed the row. The deletion refuses it instead, named and counted.
   */
  @Test
  void aFifoInPlaceOfADirectoryIsRefusedWithoutBlockingTheConfirm() throws Exception {
    assumeTrue(System.getProperty("os.name").toLowerCase().contains("linux"), "mkfifo: Linux");
    LedgerFixture f = new LedgerFixture(temp);
    Path fifo = produced(f, P7).getParent();
    LedgerListener swapsInAFifo = new LedgerListener() {
      @Override
      public void onConfirmed(LedgerItem item) {
        if (item.id().equals(P7)) {
          try {
            Files.move(fifo, temp.resolve("moved-away"));
            Process mkfifo = new ProcessBuilder("mkfifo", fifo.toString()).inheritIO().start();
            assertEquals(0, mkfifo.waitFor(), "mkfifo");
          } catch (Exception e) {
            throw new AssertionError(e);
          }
        }
      }
    };
    ManualLedger ledger = f.repackagingBuilder().listener(swapsInAFifo).buildManual();
    ledger.register(O7, f.record(O7));
    ExecutorService thread = Executors.newSingleThreadExecutor(runnable -> {
      Thread daemon = new Thread(runnable, "settles");
      daemon.setDaemon(true);
      return daemon;
    });
    try {
      Future<Integer> settled = thread.submit(() -> LedgerFixture.settle(ledger));
      try {
        settled.get(20, TimeUnit.SECONDS);
      } catch (TimeoutException e) {
        Files.newOutputStream(fifo).close(); // a writer: the blocked open returns, the thread ends
        throw new AssertionError("the confirm's deletion blocked on the FIFO", e);
      }
    } finally {
      thread.shutdownNow();
    }
    assertEquals(ItemState.CONFIRMED, ledger.find(P7).orElseThrow().state());
    assertTrue(Files.exists(fifo, java.nio.file.LinkOption.NOFOLLOW_LINKS), "the FIFO is left");
    assertEquals(1, ledger.stats().localDisk().refused().get(LocalFileRefusal.NOT_REGULAR_FILE));
  }

  /**
   * A directory on the way that is missing (a sub-mount not mounted yet at the restart) says nothing
   * of the file: the row is not marked, and the file goes once the directory is back.
   */
  @Test
  void aMissingDirectoryOnTheWayLeavesTheRowForALaterSweep() throws Exception {
    LedgerFixture f = new LedgerFixture(temp);
    killedAtPlaybackConfirm(f);
    Path output = produced(f, P7);
    Path mount = output.getParent();
    Path unmounted = Files.move(mount, temp.resolve("unmounted"));

    ManualLedger restarted = f.repackagingBuilder().buildManual();
    LedgerFixture.settle(restarted);
    assertEquals(1, f.store.findLocalFilesToRemove(null, 0, 10).size(), "not marked: its file was not seen");
    assertEquals(0, restarted.stats().localDisk().refusedTotal());

    Files.move(unmounted, mount);
    f.clock.advance(Duration.ofMinutes(5));
    LedgerFixture.settle(restarted);
    assertFalse(Files.exists(output), "deleted once its directory is back");
    assertTrue(f.store.findLocalFilesToRemove(null, 0, 10).isEmpty());
  }

  /** A produced file outside this node's output directory (another playback root) is left, not marked. */
  @Test
  void aFileOutsideTheOutputDirectoryIsLeftUnmarked() throws Exception {
    LedgerFixture f = new LedgerFixture(temp);
    killedAtPlaybackConfirm(f);

    ManualLedger elsewhere = f.builder().repackager(f.repackager, f.root.resolve("other-playback")).buildManual();
    LedgerFixture.settle(elsewhere);
    assertTrue(Files.exists(produced(f, P7)));
    assertEquals(1, elsewhere.stats().localDisk().refused().get(LocalFileRefusal.OUTSIDE_OUTPUT_DIRECTORY));
    assertEquals(1, f.store.findLocalFilesToRemove(null, 0, 10).size(), "not marked");

    ManualLedger restarted = f.repackagingBuilder().buildManual();
    LedgerFixture.settle(restarted);
    assertFalse(Files.exists(produced(f, P7)), "deleted by a node whose output directory holds it");
  }

  @Test
  void aLowDiskIsReportedWithItsNamedCause() {
    LedgerFixture f = new LedgerFixture(temp);
    ManualLedger low = f.builder().lowDiskThreshold(Long.MAX_VALUE).buildManual();
    LedgerStats.LocalDisk disk = low.stats().localDisk();
    assertTrue(disk.freeBytes() > 0, "the free space of the root's file store is read");
    assertTrue(disk.lowDisk());
    assertTrue(disk.lowDiskCause().orElseThrow().startsWith("LOW_DISK"));

    ManualLedger plenty = f.builder().lowDiskThreshold(1).buildManual();
    assertFalse(plenty.stats().localDisk().lowDisk());
    assertTrue(plenty.stats().localDisk().lowDiskCause().isEmpty());
    assertFalse(f.builder().buildManual().stats().localDisk().lowDisk(), "no threshold by default");
    assertThrows(IllegalArgumentException.class, () -> f.builder().lowDiskThreshold(-1));
  }

  /**
   * Original 7 registered, its INIT confirmed and deleted; the process "dies" right after P7's
   * confirm: the row is confirmed, its produced file is still there.
   */
  private static ManualLedger killedAtPlaybackConfirm(LedgerFixture f) {
    LedgerListener dies = new LedgerListener() {
      @Override
      public void onConfirmed(LedgerItem item) {
        if (item.id().axis() == Axis.PLAYBACK) {
          throw new Killed();
        }
      }
    };
    ManualLedger ledger = f.repackagingBuilder().listener(dies).buildManual();
    ledger.register(O7, f.record(O7));
    // The sweep's upkeep (which deletes the produced files of confirmed rows) runs at its first
    // round and then not before its interval on this fixed clock: run it before the confirms, so
    // that nothing after the "kill" deletes P7's file (the INIT's confirm offers P7 in the same drain).
    ledger.sweepRound();
    LedgerFixture.settle(ledger);
    assertEquals(ItemState.CONFIRMED, ledger.find(P7).orElseThrow().state());
    assertTrue(Files.exists(produced(f, P7)), "the kill left the produced file");
    assertFalse(Files.exists(produced(f, INIT)), "the INIT's was deleted before the kill");
    return ledger;
  }

  private static Path produced(LedgerFixture f, ItemId id) {
    return f.root.resolve("playback").resolve(id.objectKey());
  }
}
