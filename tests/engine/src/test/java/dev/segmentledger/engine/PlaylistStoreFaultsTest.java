package dev.segmentledger.engine;

import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.segmentledger.core.ItemId;
import dev.segmentledger.core.ManualLedger;
import dev.segmentledger.core.ObjectKeys;
import dev.segmentledger.core.spi.StoreException;
import dev.segmentledger.core.spi.StoreException.Outcome;
import dev.segmentledger.testkit.InMemoryStateStore;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Playlist publications that meet a store fault or a concurrent change half-way lose nothing. */
class PlaylistStoreFaultsTest {
  private static final String MASTER = ObjectKeys.multivariantPlaylistKey("b1");

  @TempDir Path temp;

  private String text(LedgerFixture f, String key) {
    return new String(f.sink.bytes(key).orElseThrow(() -> new AssertionError("no object at " + key)),
        StandardCharsets.UTF_8);
  }

  private static long bandwidth(String master, String rendition) {
    Matcher m = Pattern.compile("BANDWIDTH=(\\d+)\n" + Pattern.quote(rendition + "/")).matcher(master);
    if (!m.find()) {
      throw new AssertionError(rendition + " not listed: " + master);
    }
    return Long.parseLong(m.group(1));
  }

  @Test
  void thePeakOfSegmentsSealedBeforeAFailedRaiseIsStillAnnounced() {
    AtomicBoolean failRaise = new AtomicBoolean(true);
    LedgerFixture f = new LedgerFixture(temp, InterceptedStore.playlists(new InMemoryStateStore(),
        (method, args, proceed) -> {
          if (method.equals("raisePeakBandwidth") && failRaise.getAndSet(false)) {
            throw new StoreException("injected: the peak was not raised", null, Outcome.NOT_WRITTEN);
          }
          return proceed.call();
        }));
    ManualLedger ledger = f.repackagingBuilder().buildManual();
    // The first block (sealed at once: more than a block and a window are settled) holds the big segments.
    for (int i = 0; i < 200; i++) {
      ItemId id = ItemId.original("b1", "720p", i);
      String content = i < 100 ? "x".repeat(50_000) : "small " + i;
      ledger.register(id, f.record(id.broadcastId() + "/720p/" + i + ".ts", content));
    }
    LedgerFixture.settle(ledger);
    ledger.publishPlaylists(); // seals 0-99, then fails to raise the peak
    f.clock.advance(Duration.ofSeconds(5));
    ledger.publishPlaylists();
    ledger.publishPlaylists();
    long announced = bandwidth(text(f, MASTER), "720p");
    assertTrue(announced >= 50_000L * 8 / 4, "the big segments' bit rate is announced, got " + announced);
  }
}
