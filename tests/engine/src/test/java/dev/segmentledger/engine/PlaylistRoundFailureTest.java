package dev.segmentledger.engine;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.segmentledger.core.ItemId;
import dev.segmentledger.core.Ledger;
import dev.segmentledger.core.ManualLedger;
import dev.segmentledger.core.ObjectKeys;
import dev.segmentledger.core.spi.ObjectSink;
import dev.segmentledger.core.spi.StateStore;
import dev.segmentledger.testkit.ForwardingObjectSink;
import dev.segmentledger.testkit.InMemoryStateStore;
import dev.segmentledger.testkit.LedgerEvents;
import java.nio.file.Path;
import java.time.Duration;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * An Error in one publication of a background round does not end the round while the others are in
 * flight: no further round claims playlists before they ended. b1's publication throws an Error;
 * b2's live window PUT, held until b1 failed, then waits up to 3 s for another claim (a new round)
 * to begin: it must not.
 */
class PlaylistRoundFailureTest {
  @TempDir Path temp;

  @Test
  void aRoundWaitsForEveryPublicationBeforeItRethrowsAnError() throws Exception {
    CountDownLatch b1Failed = new CountDownLatch(1);
    CountDownLatch claimedAgain = new CountDownLatch(1);
    AtomicBoolean watching = new AtomicBoolean();
    AtomicInteger claimsWhileInFlight = new AtomicInteger();
    StateStore store = InterceptedStore.playlists(new InMemoryStateStore(), (method, args, proceed) -> {
      if (method.equals("claimDue") && watching.get()) {
        claimsWhileInFlight.incrementAndGet();
        claimedAgain.countDown();
      }
      if (method.equals("recordIntent") && "b1".equals(args[0]) && args[1] != null) {
        b1Failed.countDown();
        throw new AssertionError("injected: an Error in b1's publication");
      }
      return proceed.call();
    });
    LedgerFixture f = new LedgerFixture(temp, store);
    ObjectSink sink = ForwardingObjectSink.beforeEachPut(f.sink, (key, content) -> {
      if (key.equals(ObjectKeys.liveMediaPlaylistKey("b2", "720p")) && b1Failed.getCount() == 0
          && watching.compareAndSet(false, true)) {
        try {
          claimedAgain.await(3, TimeUnit.SECONDS);
        } catch (InterruptedException e) {
          Thread.currentThread().interrupt();
        }
        watching.set(false);
      }
    });
    try (ManualLedger recorder = f.repackagingBuilder().objectSink(sink).publishPlaylists(false).buildManual()) {
      for (String broadcast : new String[] {"b1", "b2"}) {
        ItemId id = ItemId.original(broadcast, "720p", 0);
        recorder.register(id, f.record(id));
      }
      LedgerFixture.settle(recorder);
    }
    // b2's live window PUT waits for b1's failure first.
    ObjectSink ordered = ForwardingObjectSink.beforeEachPut(sink, (key, content) -> {
      if (key.equals(ObjectKeys.liveMediaPlaylistKey("b2", "720p"))) {
        try {
          assertTrue(b1Failed.await(10, TimeUnit.SECONDS), "b1's publication never failed");
        } catch (InterruptedException e) {
          Thread.currentThread().interrupt();
        }
      }
    });

    LedgerEvents events = new LedgerEvents();
    try (Ledger ledger = f.repackagingBuilder().objectSink(ordered).sweepInterval(Duration.ofMillis(100))
        .listener(events).build()) {
      ledger.start();
      events.awaitUntil("b2's live window was PUT", () -> f.sink.attempts(ObjectKeys.liveMediaPlaylistKey("b2",
          "720p")).size() >= 1, Duration.ofSeconds(30));
    }
    assertEquals(0, claimsWhileInFlight.get(), "a new round claimed while b2's publication was in flight");
  }
}
