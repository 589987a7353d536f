package dev.segmentledger.core.internal;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertSame;

import dev.segmentledger.core.BroadcastEndedException;
import dev.segmentledger.core.ItemId;
import dev.segmentledger.core.StoreException;
import dev.segmentledger.core.spi.NewItem;
import dev.segmentledger.core.spi.RegisterResult;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Function;
import org.junit.jupiter.api.Test;

/**
 * How {@link RowWriter} answers the callers of a shared batch the store failed: a database that
 * also fails the first registration written alone (unreachable, failing over) fails them all at
 * once with the shared batch's exception, instead of holding the last caller for one failed
 * connection attempt per registration; any other failure is still isolated registration by
 * registration. A registration whose shared batch may have written keeps that outcome.
 */
class RowWriterTest {
  private static final Instant T0 = Instant.parse("2026-01-01T00:00:00Z");
  private static final int QUEUED = 4;

  @Test
  void aStoreThatFailsTheSharedBatchAndTheFirstAloneFailsTheOthersWithoutWritingEach() throws Exception {
    StoreException shared = new StoreException("injected: shared batch", null, StoreException.Outcome.UNKNOWN);
    Batches run = new Batches(rows -> {
      throw rows.size() > 1 ? shared : new StoreException("injected: alone", null, StoreException.Outcome.NOT_WRITTEN);
    });
    List<Throwable> failures = run.failuresOfTheQueuedCallers();
    assertEquals(3, run.calls.get(), "the first caller's batch, the shared batch, its first registration alone");
    assertEquals(QUEUED, failures.size());
    for (Throwable failure : failures.subList(1, QUEUED)) {
      assertSame(shared, failure, "the shared batch's exception: its outcome is theirs");
    }
    StoreException alone = assertInstanceOf(StoreException.class, failures.get(0));
    assertEquals(StoreException.Outcome.UNKNOWN, alone.writeOutcome(),
        "written alone, nothing was written; but the shared batch, whose outcome is unknown, had its rows");
  }

  @Test
  void aSharedBatchThatWroteNothingLeavesTheOutcomeOfTheRegistrationWrittenAlone() throws Exception {
    Batches run = new Batches(rows -> {
      throw new StoreException("injected: " + rows.size(), null, StoreException.Outcome.NOT_WRITTEN);
    });
    for (Throwable failure : run.failuresOfTheQueuedCallers()) {
      assertEquals(StoreException.Outcome.NOT_WRITTEN, assertInstanceOf(StoreException.class, failure).writeOutcome());
    }
  }

  @Test
  void aRefusalOfOneRegistrationInASharedBatchIsStillIsolatedRegistrationByRegistration() throws Exception {
    Batches run = new Batches(rows -> {
      if (rows.size() > 1) {
        throw new StoreException("injected: shared batch", null, StoreException.Outcome.NOT_WRITTEN);
      }
      throw new BroadcastEndedException("b1"); // one registration's own refusal
    });
    List<Throwable> failures = run.failuresOfTheQueuedCallers();
    assertEquals(2 + QUEUED, run.calls.get(), "the first caller's batch, the shared batch, each alone");
    failures.forEach(f -> assertInstanceOf(BroadcastEndedException.class, f));
  }

  /**
   * One caller writes alone while {@link #QUEUED} more queue behind it; their shared batch (and what
   * follows) is answered by {@code store}.
   */
  private static final class Batches {
    final AtomicInteger calls = new AtomicInteger();
    final CountDownLatch firstWriting = new CountDownLatch(1);
    final CountDownLatch releaseFirst = new CountDownLatch(1);
    final RowWriter writer;

    Batches(Function<List<NewItem>, List<RegisterResult>> store) {
      writer = new RowWriter(new StubStore() {
        @Override
        public List<RegisterResult> registerAll(List<NewItem> items) {
          if (calls.incrementAndGet() == 1) {
            firstWriting.countDown();
            await(releaseFirst);
            return List.of();
          }
          return store.apply(items);
        }
      });
    }

    List<Throwable> failuresOfTheQueuedCallers() throws Exception {
      CompletableFuture<?> first = CompletableFuture.runAsync(() -> writer.write(List.of()));
      await(firstWriting);
      List<Thread> threads = new ArrayList<>();
      List<CompletableFuture<Throwable>> outcomes = new ArrayList<>();
      for (int i = 0; i < QUEUED; i++) {
        CompletableFuture<Throwable> outcome = new CompletableFuture<>();
        List<NewItem> rows = List.of(NewItem.pending(ItemId.original("b1", "720p", i), "/rec/" + i, 10, T0));
        Thread t = new Thread(() -> {
          try {
            writer.write(rows);
            outcome.complete(null);
          } catch (RuntimeException e) {
            outcome.complete(e);
          }
        });
        threads.add(t);
        outcomes.add(outcome);
        t.start();
        awaitParked(t); // queued behind the first caller's write, in this order
      }
      releaseFirst.countDown();
      first.get(1, TimeUnit.MINUTES);
      List<Throwable> failures = new ArrayList<>();
      for (CompletableFuture<Throwable> outcome : outcomes) {
        failures.add(outcome.get(1, TimeUnit.MINUTES));
      }
      return failures;
    }
  }

  private static void awaitParked(Thread t) throws InterruptedException {
    long deadline = System.nanoTime() + TimeUnit.MINUTES.toNanos(1);
    while (t.getState() != Thread.State.WAITING && t.getState() != Thread.State.TIMED_WAITING) {
      if (System.nanoTime() > deadline) {
        throw new AssertionError(t + " never queued");
      }
      Thread.onSpinWait();
    }
  }

  private static void await(CountDownLatch latch) {
    try {
      if (!latch.await(1, TimeUnit.MINUTES)) {
        throw new AssertionError("timed out");
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException(e);
    }
  }
}
