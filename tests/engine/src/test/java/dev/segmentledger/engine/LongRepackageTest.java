package dev.segmentledger.engine;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.segmentledger.core.ItemId;
import dev.segmentledger.core.ItemState;
import dev.segmentledger.core.LedgerItem;
import dev.segmentledger.core.ManualLedger;
import dev.segmentledger.core.Reason;
import dev.segmentledger.core.Uplink;
import dev.segmentledger.core.spi.RepackageException;
import dev.segmentledger.core.spi.RepackagedFile;
import dev.segmentledger.core.spi.Repackager;
import java.io.IOException;
import java.io.OutputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.Semaphore;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A repackage is long work too: while the repackager's temporary output grows, the attempt makes
 * progress and keeps its lease however long it runs; once it stops growing for the stall timeout,
 * the attempt is cancelled by its own node (the repackager's thread is interrupted) and retried.
 */
class LongRepackageTest {
  private static final Duration LEASE = Duration.ofSeconds(2);
  private static final Duration STALL = Duration.ofSeconds(3);
  private static final Duration STEP = Duration.ofMillis(500);

  @TempDir Path temp;
  private LedgerFixture f;
  private final SlowInit repackager = new SlowInit();
  private final ItemId original = ItemId.original("b1", "720p", 0);
  private final ItemId init = ItemId.init("b1", "720p");
  private CompletableFuture<Integer> draining;

  @BeforeEach
  void setUp() {
    f = new LedgerFixture(temp);
  }

  @AfterEach
  void finish() throws Exception {
    repackager.finish();
    if (draining != null) {
      draining.get(10, TimeUnit.SECONDS);
    }
  }

  private ManualLedger node(String name) {
    // One lane: node a uploads the original before it starts the init's long repackage, so that the
    // only row node b could take is the init (with lanes the init goes first, and the original, waiting
    // in node a's queue past its registration lease, is b's to take: not what this test is about).
    return f.builder().repackager(repackager, f.root.resolve("playback")).publishPlaylists(false).nodeId(name)
        .leaseDuration(LEASE).stallTimeout(STALL).uplink(Uplink.builder().lanes(false).build()).buildManual();
  }

  private ManualLedger startOnA() throws InterruptedException {
    ManualLedger a = node("node-a");
    a.register(original, f.record(original));
    draining = CompletableFuture.supplyAsync(a::drainQueue);
    assertTrue(repackager.started.await(10, TimeUnit.SECONDS), "the init's repackage started");
    return a;
  }

  @Test
  void aRepackageFiveLeasesLongWhoseOutputGrowsKeepsItsLease() throws Exception {
    ManualLedger a = startOnA();
    ManualLedger b = node("node-b");

    for (int i = 0; i < 20; i++) {
      f.clock.advance(STEP);
      repackager.writeOneByte();
      a.heartbeat();
      b.sweepRound();
      assertEquals(0, b.drainQueue(), "node b finds nothing to take at " + f.clock.instant());
    }
    repackager.finish();
    draining.get(10, TimeUnit.SECONDS);

    LedgerItem row = f.store.find(init).orElseThrow();
    assertEquals(ItemState.CONFIRMED, row.state());
    assertEquals(0, row.attempts());
    assertEquals(1, repackager.runs.get(), "repackaged once");
  }

  @Test
  void aRepackageWhoseOutputStopsGrowingIsCancelledAndRetried() throws Exception {
    ManualLedger a = startOnA();
    for (int i = 0; i < 4; i++) { // it writes for 2 s
      f.clock.advance(STEP);
      repackager.writeOneByte();
      a.heartbeat();
    }
    for (int i = 0; i < 7; i++) { // then nothing for 3.5 s
      f.clock.advance(STEP);
      a.heartbeat();
    }
    draining.get(10, TimeUnit.SECONDS);
    LedgerItem stalled = f.store.find(init).orElseThrow();
    assertEquals(ItemState.PENDING, stalled.state());
    assertEquals(Reason.STALLED, stalled.reason(), stalled.lastError());
    assertTrue(repackager.interrupted.get() > 0, "the repackager's thread was interrupted");

    repackager.finish();
    f.clock.advance(Duration.ofSeconds(1)); // the backoff
    LedgerFixture.settle(a);
    assertEquals(ItemState.CONFIRMED, f.store.find(init).orElseThrow().state());
    assertEquals(2, repackager.runs.get());
  }

  /**
   * Produces the init segment slowly: one byte into its temporary file per {@link #writeOneByte}
   * (blocking in between, interruptibly), until {@link #finish}; segments at once.
   */
  private static final class SlowInit implements Repackager {
    final CountDownLatch started = new CountDownLatch(1);
    final AtomicInteger runs = new AtomicInteger();
    final AtomicInteger interrupted = new AtomicInteger();
    private final Semaphore bytes = new Semaphore(0);
    private final Semaphore written = new Semaphore(0);
    private final CountDownLatch finished = new CountDownLatch(1);

    /** Lets the repackager write one byte, and waits until it has. */
    void writeOneByte() throws InterruptedException {
      bytes.release();
      assertTrue(written.tryAcquire(10, TimeUnit.SECONDS), "the repackager wrote its byte");
    }

    void finish() {
      finished.countDown();
      bytes.release(1_000_000);
    }

    @Override
    public RepackagedFile init(Path original, Path target) throws RepackageException {
      runs.incrementAndGet();
      started.countDown();
      try {
        Path partial = Repackager.createTemporaryBeside(target);
        try (OutputStream out = Files.newOutputStream(partial)) {
          while (finished.getCount() > 0) {
            bytes.acquire();
            out.write('i');
            out.flush();
            written.release();
          }
          out.write("init\n".getBytes(java.nio.charset.StandardCharsets.US_ASCII));
        }
        Files.move(partial, target, StandardCopyOption.REPLACE_EXISTING);
        return new RepackagedFile(target, Files.size(target), Duration.ZERO);
      } catch (InterruptedException e) {
        interrupted.incrementAndGet();
        throw new RepackageException("interrupted: cancelled", e);
      } catch (IOException e) {
        throw new RepackageException("cannot write " + target + ": " + e, e);
      }
    }

    @Override
    public RepackagedFile segment(Path original, long sequence, Path target) throws RepackageException {
      try {
        Files.writeString(target, "segment " + sequence);
        return new RepackagedFile(target, Files.size(target), Duration.ofSeconds(2));
      } catch (IOException e) {
        throw new RepackageException("cannot write " + target + ": " + e, e);
      }
    }
  }
}
