package dev.segmentledger.engine;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.segmentledger.core.ItemId;
import dev.segmentledger.core.LedgerItem;
import dev.segmentledger.core.ManualLedger;
import dev.segmentledger.core.ObjectKeys;
import dev.segmentledger.core.query.Page;
import dev.segmentledger.core.spi.PlaylistPart;
import dev.segmentledger.core.spi.StateStore;
import dev.segmentledger.testkit.InMemoryStateStore;
import dev.segmentledger.testkit.PutAttempt;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * One more segment costs a playlist publication the same whatever the broadcast's length: the rows
 * it reads (counted on every store call made while it runs), the bytes of sealed parts' text a
 * live-only publication reads, and the live window it PUTs do not grow from segment 100 to
 * segment 2,000, and it never reads every row of the broadcast. (A publication of the full
 * playlist, once per interval, reads every part's text: that grows with the broadcast.)
 */
@Tag("long")
class PlaylistScalingTest {
  private static final int SEGMENTS = 2_000;

  @TempDir Path temp;

  @Test
  void aPublicationRoundReadsBoundedRowsWhateverTheBroadcastsLength() {
    AtomicBoolean publishing = new AtomicBoolean();
    AtomicLong rowsRead = new AtomicLong();
    AtomicInteger wholeBroadcastReads = new AtomicInteger();
    AtomicLong partTextRead = new AtomicLong();
    StateStore partsCounted = InterceptedStore.playlists(new InMemoryStateStore(), (method, args, proceed) -> {
      Object result = proceed.call();
      if (publishing.get() && result instanceof List<?> list) {
        partTextRead.addAndGet(list.stream().filter(PlaylistPart.class::isInstance)
            .mapToLong(p -> ((PlaylistPart) p).text().length()).sum());
      }
      return result;
    });
    StateStore counting = InterceptedStore.of(partsCounted, (method, args, proceed) -> {
      Object result = proceed.call();
      if (publishing.get()) {
        if (method.equals("findByBroadcast")) {
          wholeBroadcastReads.incrementAndGet();
        }
        rowsRead.addAndGet(rows(result));
      }
      return result;
    });
    LedgerFixture f = new LedgerFixture(temp, counting);
    ManualLedger ledger = f.repackagingBuilder().buildManual();
    String live = ObjectKeys.liveMediaPlaylistKey("b1", "720p");
    long[] rowsPerSegment = new long[SEGMENTS];
    long[] liveBytes = new long[SEGMENTS];
    long[] partTextPerLivePublication = new long[SEGMENTS];
    long[] partTextPerFullPublication = new long[SEGMENTS];
    String full = ObjectKeys.mediaPlaylistKey("b1", "720p");
    for (int i = 0; i < SEGMENTS; i++) {
      ItemId id = ItemId.original("b1", "720p", i);
      ledger.register(id, f.record(id));
      LedgerFixture.settle(ledger);
      f.clock.advance(Duration.ofSeconds(4));
      int putsBefore = f.sink.attempts(live).size();
      int fullPutsBefore = f.sink.attempts(full).size();
      rowsRead.set(0);
      partTextRead.set(0);
      publishing.set(true);
      try {
        ledger.publishPlaylists();
      } finally {
        publishing.set(false);
      }
      rowsPerSegment[i] = rowsRead.get();
      boolean fullPut = f.sink.attempts(full).size() > fullPutsBefore;
      (fullPut ? partTextPerFullPublication : partTextPerLivePublication)[i] = partTextRead.get();
      List<PutAttempt> puts = f.sink.attempts(live);
      liveBytes[i] = puts.subList(putsBefore, puts.size()).stream().mapToLong(PutAttempt::sizeBytes).sum();
    }
    double early = mean(rowsPerSegment, 100, 200);
    double late = mean(rowsPerSegment, SEGMENTS - 100, SEGMENTS);
    System.out.printf("rows read per segment: %.1f at segments 100-199, %.1f at %d-%d; live window bytes %d vs %d;"
        + " full playlist PUTs %d%n", early, late, SEGMENTS - 100, SEGMENTS - 1, liveBytes[150], liveBytes[SEGMENTS - 1],
        f.sink.attempts(ObjectKeys.mediaPlaylistKey("b1", "720p")).size());
    double earlyText = mean(partTextPerLivePublication, 100, 200);
    double lateText = mean(partTextPerLivePublication, SEGMENTS - 100, SEGMENTS);
    System.out.printf("part text bytes read per live-only publication: %.1f at segments 100-199, %.1f at %d-%d;"
        + " by the last full publication %d%n", earlyText, lateText, SEGMENTS - 100, SEGMENTS - 1,
        java.util.Arrays.stream(partTextPerFullPublication).max().orElse(0));
    assertEquals(0, wholeBroadcastReads.get(), "a publication read every row of the broadcast");
    assertTrue(lateText <= 2 * earlyText, "part text read per live-only publication grew from " + earlyText
        + " to " + lateText);
    assertTrue(late <= 2 * early, "rows read per segment grew from " + early + " to " + late);
    assertTrue(liveBytes[SEGMENTS - 1] <= 2 * liveBytes[150], "the live window grew");
    assertEquals(SEGMENTS, ledger.playback("b1", "720p").segments().size());
  }

  private static long rows(Object result) {
    if (result instanceof List<?> list) {
      return list.stream().filter(LedgerItem.class::isInstance).count();
    }
    if (result instanceof Page<?> page) {
      return page.items().size();
    }
    if (result instanceof Optional<?> optional) {
      return optional.filter(LedgerItem.class::isInstance).isPresent() ? 1 : 0;
    }
    return 0;
  }

  private static double mean(long[] values, int from, int to) {
    long sum = 0;
    for (int i = from; i < to; i++) {
      sum += values[i];
    }
    return (double) sum / (to - from);
  }
}
