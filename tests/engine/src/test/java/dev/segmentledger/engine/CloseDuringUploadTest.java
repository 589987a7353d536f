package dev.segmentledger.engine;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.segmentledger.core.CircuitState;
import dev.segmentledger.core.ItemId;
import dev.segmentledger.core.Ledger;
import dev.segmentledger.core.LedgerBuilder;
import dev.segmentledger.core.LedgerItem;
import dev.segmentledger.core.LedgerListener;
import dev.segmentledger.core.Reason;
import dev.segmentledger.core.Uplink;
import dev.segmentledger.core.spi.Claim;
import dev.segmentledger.testkit.SinkFault;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.function.Predicate;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code close()} ends the uploads still running after the shutdown timeout, and leaves their rows
 * as they were: no failure recorded on them (no attempt counted, no reason, no event), none counted
 * by the breaker, and their leases given back so that the next node or run claims them at once,
 * without counting an abandoned attempt. Whether the upload waited for the bandwidth cap (1 KiB/s,
 * 64 KiB to send) or was blocked in the sink.
 */
class CloseDuringUploadTest {
  private static final Duration SHUTDOWN = Duration.ofMillis(300);
  /** A stack frame of a thread waiting for tokens of the bandwidth cap. */
  private static final Predicate<StackTraceElement> WAITING_FOR_THE_CAP =
      frame -> frame.getClassName().endsWith(".Throttle") && frame.getMethodName().equals("await");

  @TempDir Path temp;

  @Test
  void anUploadWaitingForTheBandwidthCapLeavesItsRowAsItWas() throws Exception {
    LedgerFixture f = new LedgerFixture(temp);
    ItemId id = ItemId.original("b1", "720p", 0);
    Path file = sixtyFourKib(f);
    closeDuring(f, id, file, f.builder().uplink(Uplink.builder().bytesPerSecond(1024).build()), WAITING_FOR_THE_CAP);
  }

  @Test
  void anUploadWaitingForTheCapEndsAtOnceEvenWithALongShutdownTimeout() throws Exception {
    LedgerFixture f = new LedgerFixture(temp);
    ItemId id = ItemId.original("b1", "720p", 0);
    Path file = sixtyFourKib(f);
    Ledger ledger = f.builder().uplink(Uplink.builder().bytesPerSecond(1024).build()).workers(1)
        .shutdownTimeout(Duration.ofMinutes(10)).build();
    ledger.start();
    ledger.register(id, file);
    awaitWorkerIn(WAITING_FOR_THE_CAP);

    long start = System.nanoTime();
    ledger.close();
    Duration closing = Duration.ofNanos(System.nanoTime() - start);
    assertTrue(closing.compareTo(Duration.ofSeconds(5)) < 0, "close waited for the cap: " + closing);
    assertFalse(Thread.getAllStackTraces().values().stream().anyMatch(stack -> Arrays.stream(stack)
        .anyMatch(WAITING_FOR_THE_CAP)),
        "no thread waits for the cap after close");
    LedgerItem row = f.store.find(id).orElseThrow();
    assertEquals(0, row.attempts(), "no attempt counted: " + row);
    assertNull(row.reason(), "no failure recorded: " + row);
  }

  @Test
  void anUploadBlockedInTheSinkLeavesItsRowAsItWas() throws Exception {
    LedgerFixture f = new LedgerFixture(temp);
    ItemId id = ItemId.original("b1", "720p", 0);
    f.sink.failNext(SinkFault.blockUntil(new CountDownLatch(1)));
    closeDuring(f, id, f.record(id), f.builder(), frame -> frame.getClassName().endsWith("FakeObjectSink"));
  }

  /** A 64 KiB original under the root: 64 s to send under a 1 KiB/s cap. */
  private static Path sixtyFourKib(LedgerFixture f) throws Exception {
    Path file = f.root.resolve("b1/720p/0.ts");
    Files.createDirectories(file.getParent());
    return Files.write(file, new byte[64 * 1024]);
  }

  private static void closeDuring(LedgerFixture f, ItemId id, Path file, LedgerBuilder builder,
      Predicate<StackTraceElement> uploading) throws Exception {
    List<String> events = new CopyOnWriteArrayList<>();
    Ledger ledger = builder.workers(1).shutdownTimeout(SHUTDOWN).circuitBreaker(1, Duration.ofSeconds(10))
        .listener(recorder(events)).build();
    ledger.start();
    ledger.register(id, file);
    awaitWorkerIn(uploading);

    long start = System.nanoTime();
    ledger.close();
    Duration closing = Duration.ofNanos(System.nanoTime() - start);
    assertTrue(closing.compareTo(SHUTDOWN.plusSeconds(2)) < 0, "close took " + closing);
    awaitWorkersEnded();

    LedgerItem row = f.store.find(id).orElseThrow();
    assertEquals(0, row.attempts(), "no attempt counted: " + row);
    assertNull(row.reason(), "no failure recorded: " + row);
    assertNull(row.lastError());
    assertEquals(List.of(), events, "no failure event, nothing counted by the breaker");
    Claim next = f.store.claim(row.rowId(), "next-node", f.clock.instant().plusSeconds(120), f.clock.instant());
    assertTrue(next.held(), "the next node claims the row at once");
    assertFalse(next.tookOverAbandoned(), "no abandoned attempt counted");
    assertTrue(f.sink.list("").isEmpty(), "nothing stored");
  }

  /** Waits until a worker's stack holds a frame {@code uploading} matches. */
  private static void awaitWorkerIn(Predicate<StackTraceElement> uploading) throws InterruptedException {
    for (int i = 0; i < 500; i++) {
      if (workers().anyMatch(t -> Arrays.stream(t.getStackTrace()).anyMatch(uploading))) {
        return;
      }
      Thread.sleep(10);
    }
    throw new AssertionError("no worker came to the point to interrupt");
  }

  private static void awaitWorkersEnded() throws InterruptedException {
    for (int i = 0; i < 500 && workers().findAny().isPresent(); i++) {
      Thread.sleep(10);
    }
    assertFalse(workers().findAny().isPresent(), "a worker still runs after close");
  }

  private static java.util.stream.Stream<Thread> workers() {
    return Thread.getAllStackTraces().keySet().stream()
        .filter(t -> t.getName().startsWith("segment-ledger-worker-") && t.isAlive());
  }

  private static LedgerListener recorder(List<String> events) {
    return new LedgerListener() {
      @Override
      public void onFailed(LedgerItem item, Reason reason, String detail, boolean terminal) {
        events.add("failed " + reason + " " + detail + " terminal=" + terminal);
      }

      @Override
      public void onCircuitStateChanged(CircuitState state) {
        events.add("circuit " + state);
      }

      @Override
      public void onCircuitOpened(Reason reason, String detail) {
        events.add("opened " + reason + " " + detail);
      }
    };
  }
}
