package dev.segmentledger.engine;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.segmentledger.core.ItemId;
import dev.segmentledger.core.LedgerItem;
import dev.segmentledger.core.ManualLedger;
import dev.segmentledger.core.ObjectKeys;
import dev.segmentledger.core.query.Page;
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
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * One more segment costs a playlist publication the same whatever the broadcast's length: the rows
 * it reads (counted on every store call made while it runs) and the live window it PUTs do not
 * grow from segment 100 to segment 2,000, and it never reads every row of the broadcast.
 */
class PlaylistScalingTest {
  private static final int SEGMENTS = 2_000;

  @TempDir Path temp;

  @Test
  void aPublicationRoundReadsBoundedRowsWhateverTheBroadcastsLength() {
    AtomicBoolean publishing = new AtomicBoolean();
    AtomicLong rowsRead = new AtomicLong();
    AtomicInteger wholeBroadcastReads = new AtomicInteger();
    StateStore counting = InterceptedStore.of(new InMemoryStateStore(), (method, args, proceed) -> {
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
    for (int i = 0; i < SEGMENTS; i++) {
      ItemId id = ItemId.original("b1", "720p", i);
      ledger.register(id, f.record(id));
      LedgerFixture.settle(ledger);
      f.clock.advance(Duration.ofSeconds(4));
      int putsBefore = f.sink.attempts(live).size();
      rowsRead.set(0);
      publishing.set(true);
      try {
        ledger.publishPlaylists();
      } finally {
        publishing.set(false);
      }
      rowsPerSegment[i] = rowsRead.get();
      List<PutAttempt> puts = f.sink.attempts(live);
      liveBytes[i] = puts.subList(putsBefore, puts.size()).stream().mapToLong(PutAttempt::sizeBytes).sum();
    }
    double early = mean(rowsPerSegment, 100, 200);
    double late = mean(rowsPerSegment, SEGMENTS - 100, SEGMENTS);
    System.out.printf("rows read per segment: %.1f at segments 100-199, %.1f at %d-%d; live window bytes %d vs %d;"
        + " full playlist PUTs %d%n", early, late, SEGMENTS - 100, SEGMENTS - 1, liveBytes[150], liveBytes[SEGMENTS - 1],
        f.sink.attempts(ObjectKeys.mediaPlaylistKey("b1", "720p")).size());
    assertEquals(0, wholeBroadcastReads.get(), "a publication read every row of the broadcast");
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
