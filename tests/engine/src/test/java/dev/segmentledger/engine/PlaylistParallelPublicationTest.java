package dev.segmentledger.engine;

import static org.junit.jupiter.api.Assertions.assertEquals;

import dev.segmentledger.core.ItemId;
import dev.segmentledger.core.Ledger;
import dev.segmentledger.core.ManualLedger;
import dev.segmentledger.core.ObjectKeys;
import dev.segmentledger.core.spi.ObjectSink;
import dev.segmentledger.testkit.ForwardingObjectSink;
import dev.segmentledger.testkit.LedgerEvents;
import java.nio.file.Path;
import java.time.Duration;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * With many broadcasts live, a round's publications overlap: the live windows of two broadcasts
 * due together are PUT at the same time, not one after the other. The sink holds each live window
 * PUT until a second one is in flight (at most 10 s): one after the other, the first would wait in
 * vain.
 */
class PlaylistParallelPublicationTest {
  @TempDir Path temp;

  @Test
  void theLiveWindowsOfTwoBroadcastsDueTogetherArePutAtTheSameTime() throws Exception {
    LedgerFixture f = new LedgerFixture(temp);
    CountDownLatch twoInFlight = new CountDownLatch(2);
    AtomicInteger metAnother = new AtomicInteger();
    ObjectSink sink = ForwardingObjectSink.beforeEachPut(f.sink, (key, content) -> {
      if (key.endsWith("/720p/" + ObjectKeys.LIVE_PLAYLIST_NAME)) {
        twoInFlight.countDown();
        try {
          if (twoInFlight.await(10, TimeUnit.SECONDS)) {
            metAnother.incrementAndGet();
          }
        } catch (InterruptedException e) {
          Thread.currentThread().interrupt();
        }
      }
    });
    try (ManualLedger recorder = f.repackagingBuilder().objectSink(sink).publishPlaylists(false).buildManual()) {
      for (String broadcast : new String[] {"b1", "b2"}) {
        ItemId id = ItemId.original(broadcast, "720p", 0);
        recorder.register(id, f.record(id));
      }
      LedgerFixture.settle(recorder);
    }

    LedgerEvents events = new LedgerEvents();
    try (Ledger ledger = f.repackagingBuilder().objectSink(sink).listener(events).build()) {
      ledger.start();
      events.awaitUntil("both live windows were PUT", () -> f.sink.attempts(ObjectKeys.liveMediaPlaylistKey("b1",
          "720p")).size() + f.sink.attempts(ObjectKeys.liveMediaPlaylistKey("b2", "720p")).size() >= 2,
          Duration.ofSeconds(30));
    }
    assertEquals(2, metAnother.get(), "each live window PUT met the other in flight");
  }
}
