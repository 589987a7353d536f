package dev.segmentledger.engine;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.segmentledger.core.ItemId;
import dev.segmentledger.core.Ledger;
import dev.segmentledger.core.ObjectKeys;
import dev.segmentledger.core.spi.PlaylistRecord;
import dev.segmentledger.testkit.LedgerEvents;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Three ledger instances with threads on one store and one bucket publish the playlists of one
 * broadcast whose segments they register in turn, while a reader polls the media playlist (PUT at
 * every publication here) and the live window: the media playlist never lists fewer entries than
 * the reader saw before, the live window's media sequence number and live edge never go back, and
 * the final playlist lists every segment. (The same with
 * child JVMs, kills and PostgreSQL is the 3-node run of the integration tests.)
 */
class MultiNodePlaylistTest {
  private static final int SEGMENTS = 30;
  @TempDir Path temp;

  @Test
  void aReaderPollingTheBucketNeverSeesAPlaylistShrink() throws Exception {
    LedgerFixture f = new LedgerFixture(temp);
    f.sink.setLatency(Duration.ofMillis(2));
    String key = ObjectKeys.mediaPlaylistKey("b1", "720p");
    String liveKey = ObjectKeys.liveMediaPlaylistKey("b1", "720p");
    LedgerEvents events = new LedgerEvents();
    List<Ledger> nodes = new ArrayList<>();
    for (int n = 0; n < 3; n++) {
      nodes.add(f.repackagingBuilder().clock(Clock.systemUTC()).nodeId("node-" + n).workers(2)
          .sweepInterval(Duration.ofMillis(20)).leaseDuration(Duration.ofSeconds(5)).fullPlaylistInterval(Duration.ZERO)
          .listener(events).build());
    }
    AtomicBoolean reading = new AtomicBoolean(true);
    AtomicInteger maxSeen = new AtomicInteger();
    AtomicLong polls = new AtomicLong();
    AtomicInteger regressions = new AtomicInteger();
    AtomicLong maxSequence = new AtomicLong();
    AtomicLong maxEdge = new AtomicLong();
    AtomicInteger liveRegressions = new AtomicInteger();
    Thread reader = new Thread(() -> {
      while (reading.get()) {
        int entries = f.sink.bytes(key).map(b -> entries(new String(b, StandardCharsets.UTF_8))).orElse(0);
        polls.incrementAndGet();
        if (entries < maxSeen.get()) {
          regressions.incrementAndGet();
        }
        maxSeen.accumulateAndGet(entries, Math::max);
        f.sink.bytes(liveKey).map(b -> new String(b, StandardCharsets.UTF_8)).ifPresent(live -> {
          long sequence = mediaSequence(live);
          long edge = sequence + entries(live);
          if (sequence < maxSequence.get() || edge < maxEdge.get()) {
            liveRegressions.incrementAndGet();
          }
          maxSequence.accumulateAndGet(sequence, Math::max);
          maxEdge.accumulateAndGet(edge, Math::max);
        });
        java.util.concurrent.locks.LockSupport.parkNanos(1_000_000); // poll about every millisecond
      }
    }, "playlist-reader");
    try {
      nodes.forEach(Ledger::start);
      reader.start();
      for (int i = 0; i < SEGMENTS; i++) {
        ItemId id = ItemId.original("b1", "720p", i);
        nodes.get(i % 3).register(id, f.record(id));
      }
      nodes.get(1).endBroadcast("b1");
      events.awaitUntil("the final playlists are published", () -> {
        List<PlaylistRecord> records = f.store.playlists().find("b1");
        return records.size() == 2 && records.stream().allMatch(r -> r.publishedFinal() && !r.awaitingPublication()
            && r.leaseOwner() == null);
      }, Duration.ofSeconds(60));
    } finally {
      reading.set(false);
      reader.join();
      nodes.forEach(Ledger::close);
    }
    String media = new String(f.sink.bytes(key).orElseThrow(), StandardCharsets.UTF_8);
    System.out.printf("3 nodes, %d segments: %d polls, %d regressions, %d final entries, %d playlist PUTs%n",
        SEGMENTS, polls.get(), regressions.get(), entries(media), f.sink.attempts(key).size());
    assertEquals(0, regressions.get(), "a reader saw a playlist shrink");
    assertEquals(0, liveRegressions.get(), "a reader saw the live window go back");
    assertEquals(SEGMENTS, maxEdge.get(), "the live edge reached the last segment");
    assertEquals(SEGMENTS, entries(media), media);
    assertTrue(media.endsWith("#EXT-X-ENDLIST\n"), media);
  }

  private static long mediaSequence(String m3u8) {
    for (String line : m3u8.split("\n")) {
      if (line.startsWith("#EXT-X-MEDIA-SEQUENCE:")) {
        return Long.parseLong(line.substring(line.indexOf(':') + 1));
      }
    }
    throw new AssertionError("no media sequence: " + m3u8);
  }

  private static int entries(String m3u8) {
    int n = 0;
    for (String line : m3u8.split("\n")) {
      if (line.startsWith("#EXTINF:")) {
        n++;
      }
    }
    return n;
  }
}
