package dev.segmentledger.engine;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.segmentledger.core.ItemId;
import dev.segmentledger.core.LedgerListener;
import dev.segmentledger.core.ManualLedger;
import dev.segmentledger.core.ObjectKeys;
import dev.segmentledger.core.spi.ObjectSink;
import dev.segmentledger.core.spi.PlaylistRecord;
import dev.segmentledger.testkit.ForwardingObjectSink;
import dev.segmentledger.testkit.InMemoryStateStore;
import dev.segmentledger.testkit.PutAttempt;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Playlists written conditionally (a sink that honours {@code If-Match}, a store that keeps the
 * ETags): two publishers whose leases overlap can never publish out of order. Node A claims the
 * playlist and is held just before its PUT until its lease has expired; node B takes the playlist
 * over and publishes a longer one; A's PUT, expecting the version A read at its claim, is refused by
 * the bucket and the newer playlist stays. And a refusal seen by the lease holder (the previous
 * publisher's PUT landed, its record did not) is recorded with its named reason and the versions
 * found, and the next round publishes from the ledger over them.
 */
class PlaylistConditionalWriteTest {
  private static final Duration LEASE = Duration.ofSeconds(10);
  private static final String BROADCAST = "b1";
  @TempDir Path temp;

  @Test
  void aStalePublisherCannotOverwriteTheNewerPlaylistOfTheNodeThatTookItOver() throws Exception {
    LedgerFixture f = new LedgerFixture(temp, new InMemoryStateStore());
    f.sink.conditionalPuts(true);
    String live = ObjectKeys.liveMediaPlaylistKey(BROADCAST, "720p");
    String full = ObjectKeys.mediaPlaylistKey(BROADCAST, "720p");
    CountDownLatch aHeld = new CountDownLatch(1);
    CountDownLatch releaseA = new CountDownLatch(1);
    AtomicBoolean holdA = new AtomicBoolean();
    ObjectSink aSink = ForwardingObjectSink.beforeEachPut(f.sink, (key, content) -> {
      if (key.equals(live) && holdA.compareAndSet(true, false)) {
        aHeld.countDown();
        await(releaseA);
      }
    });
    try (ManualLedger recorder = f.repackagingBuilder().publishPlaylists(false).buildManual();
        ManualLedger a = f.repackagingBuilder().objectSink(aSink).nodeId("node-a").leaseDuration(LEASE)
            .fullPlaylistInterval(Duration.ZERO).buildManual();
        ManualLedger b = f.repackagingBuilder().nodeId("node-b").leaseDuration(LEASE)
            .fullPlaylistInterval(Duration.ZERO).buildManual()) {
      registerSegments(f, recorder, 0, 3);
      assertEquals(2, b.publishPlaylists(), "the media and multivariant playlists, first published by B");
      registerSegments(f, recorder, 3, 5);

      holdA.set(true);
      CompletableFuture<Integer> aRound = CompletableFuture.supplyAsync(a::publishPlaylists);
      assertTrue(aHeld.await(10, TimeUnit.SECONDS), "A never reached its PUT");
      f.clock.advance(LEASE.plusSeconds(1)); // A's lease has expired; A does not know
      registerSegments(f, recorder, 5, 8);
      assertEquals(1, b.publishPlaylists(), "B takes the media playlist over and publishes 8 entries");
      String bText = text(f, live);
      String bFull = text(f, full);
      assertEquals(8, entries(bFull));

      releaseA.countDown();
      assertEquals(0, aRound.get(10, TimeUnit.SECONDS), "A's publication is refused, not recorded");
      assertEquals(bText, text(f, live), "the newer live window stays");
      assertEquals(bFull, text(f, full), "A wrote nothing after its refusal");
      List<PutAttempt> liveWrites = f.sink.attempts(live);
      assertEquals(PutAttempt.Outcome.REFUSED, liveWrites.get(liveWrites.size() - 1).outcome(), liveWrites.toString());
      PlaylistRecord record = record(f);
      assertEquals(f.sink.etag(live).orElseThrow(), record.liveEtag(), "B's record stands");
      assertEquals(f.sink.etag(full).orElseThrow(), record.fullEtag());
      assertNull(record.leaseOwner());
    }
  }

  @Test
  void aRefusalIsRecordedWithItsReasonAndTheNextRoundPublishesFromTheLedger() throws Exception {
    LedgerFixture f = new LedgerFixture(temp, new InMemoryStateStore());
    f.sink.conditionalPuts(true);
    String live = ObjectKeys.liveMediaPlaylistKey(BROADCAST, "720p");
    String full = ObjectKeys.mediaPlaylistKey(BROADCAST, "720p");
    List<String> refusals = new CopyOnWriteArrayList<>();
    LedgerListener listener = new LedgerListener() {
      @Override
      public void onPlaylistRefused(String broadcastId, String rendition, String key, String detail) {
        refusals.add(key + " " + detail);
      }
    };
    try (ManualLedger recorder = f.repackagingBuilder().publishPlaylists(false).buildManual();
        ManualLedger node = f.repackagingBuilder().nodeId("node-a").leaseDuration(LEASE)
            .fullPlaylistInterval(Duration.ZERO).listener(listener).buildManual()) {
      registerSegments(f, recorder, 0, 3);
      assertEquals(2, node.publishPlaylists());
      // Another publisher's PUT landed and its record did not (killed between the two).
      f.sink.seed(live, "#EXTM3U\n# written by a publisher killed before its record\n"
          .getBytes(StandardCharsets.UTF_8));
      registerSegments(f, recorder, 3, 4);

      assertEquals(0, node.publishPlaylists(), "refused: the live window is not the version last recorded");
      assertEquals(1, refusals.size(), refusals.toString());
      assertTrue(refusals.get(0).startsWith(live + " playlist version conflict: "), refusals.toString());
      PlaylistRecord refused = record(f);
      assertTrue(refused.lastError().startsWith("playlist version conflict: " + live), refused.lastError());
      assertEquals(f.sink.etag(live).orElseThrow(), refused.liveEtag(), "the version found is recorded");
      assertEquals(3, entries(text(f, full)), "nothing else written after the refusal");
      assertEquals(4, refused.publishedEntries(), "the intent stands: no later publication lists fewer");

      f.clock.advance(Duration.ofSeconds(2)); // the backoff of one failed attempt (1 s)
      assertEquals(1, node.publishPlaylists(), "the next round publishes over the version found");
      assertEquals(4, entries(text(f, live)));
      assertEquals(4, entries(text(f, full)));
      PlaylistRecord published = record(f);
      assertNull(published.lastError());
      assertEquals(f.sink.etag(live).orElseThrow(), published.liveEtag());
      assertEquals(f.sink.etag(full).orElseThrow(), published.fullEtag());
    }
  }

  private static void registerSegments(LedgerFixture f, ManualLedger recorder, int from, int to) {
    for (int i = from; i < to; i++) {
      ItemId id = ItemId.original(BROADCAST, "720p", i);
      recorder.register(id, f.record(id));
    }
    LedgerFixture.settle(recorder);
  }

  private static PlaylistRecord record(LedgerFixture f) {
    return f.store.playlists().find(BROADCAST).stream().filter(r -> "720p".equals(r.rendition())).findFirst()
        .orElseThrow();
  }

  private static String text(LedgerFixture f, String key) {
    return new String(f.sink.bytes(key).orElseThrow(), StandardCharsets.UTF_8);
  }

  private static int entries(String m3u8) {
    return (int) m3u8.lines().filter(line -> line.startsWith("#EXTINF:")).count();
  }

  private static void await(CountDownLatch latch) {
    try {
      if (!latch.await(30, TimeUnit.SECONDS)) {
        throw new AssertionError("never released");
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new AssertionError(e);
    }
  }
}
