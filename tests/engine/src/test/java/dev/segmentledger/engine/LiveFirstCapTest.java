package dev.segmentledger.engine;

import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.segmentledger.core.ItemId;
import dev.segmentledger.core.Lane;
import dev.segmentledger.core.Ledger;
import dev.segmentledger.core.LedgerItem;
import dev.segmentledger.core.LedgerListener;
import dev.segmentledger.core.StoredObjectInfo;
import dev.segmentledger.core.Uplink;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Random;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Live first in the bytes: an upload of live work that starts while three backfill uploads use the
 * whole cap gets the cap less the lower lanes' share (60% by default), not an equal quarter of it;
 * with lanes off it gets no more than its equal share. On real time: a cap of 2 MiB/s, backfill
 * originals of 4 MiB, a live segment of 1 MiB (about 0.85 s live first, 2 s or more with an equal
 * share).
 */
class LiveFirstCapTest {
  private static final int MIB = 1 << 20;
  private static final long CAP = 2L * MIB;

  @TempDir Path temp;

  @Test
  void aLiveUploadBesideBackfillGetsTheCapLessTheLowerLanesShare() throws Exception {
    double seconds = liveUploadSeconds(Uplink.builder().bytesPerSecond(CAP).build());
    assertTrue(seconds < 1.4, "1 MiB of live work at 60% of 2 MiB/s takes about 0.85 s: " + seconds);
  }

  @Test
  void withLanesOffTheSameUploadGetsNoMoreThanItsEqualShare() throws Exception {
    double seconds = liveUploadSeconds(Uplink.builder().lanes(false).bytesPerSecond(CAP).build());
    assertTrue(seconds > 1.6, "1 MiB at an equal share of 2 MiB/s, or after a backfill upload: " + seconds);
  }

  /** Seconds from the live segment's registration to its object stored, three backfill uploads under way. */
  private double liveUploadSeconds(Uplink uplink) throws Exception {
    LedgerFixture f = new LedgerFixture(temp.resolve(String.valueOf(System.nanoTime())));
    Random random = new Random(7);
    CompletableFuture<Long> liveStored = new CompletableFuture<>();
    LedgerListener listener = new LedgerListener() {
      @Override
      public void onStored(LedgerItem item, StoredObjectInfo object) {
        if (item.id().broadcastId().equals("live")) {
          liveStored.complete(System.nanoTime());
        }
      }
    };
    try (Ledger ledger = f.builder().workers(4).uplink(uplink).listener(listener).build()) {
      for (int i = 0; i < 3; i++) {
        ledger.register(ItemId.original("old", "r0", i), file(f, "old/" + i + ".ts", 4 * MIB, random));
      }
      ledger.endBroadcast("old");
      Path live = file(f, "live/0.ts", MIB, random);
      ledger.start();
      long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
      while (ledger.uplinkStats().bodyBytes() < MIB / 2) { // the three backfill uploads are sending
        assertTrue(System.nanoTime() < deadline, "the backfill never started");
        Thread.sleep(10);
      }
      long registered = System.nanoTime();
      ledger.register(ItemId.original("live", "r0", 0), live, Lane.LIVE);
      return (liveStored.get(30, TimeUnit.SECONDS) - registered) / 1e9;
    }
  }

  private static Path file(LedgerFixture f, String name, int size, Random random) throws Exception {
    byte[] bytes = new byte[size];
    random.nextBytes(bytes);
    Path file = f.root.resolve(name);
    Files.createDirectories(file.getParent());
    return Files.write(file, bytes);
  }
}
