package dev.segmentledger.engine;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import dev.segmentledger.core.BroadcastEndedException;
import dev.segmentledger.core.BroadcastStatus;
import dev.segmentledger.core.ItemId;
import dev.segmentledger.core.ItemState;
import dev.segmentledger.core.Ledger;
import dev.segmentledger.core.ManualLedger;
import dev.segmentledger.core.spi.StateStore;
import dev.segmentledger.testkit.InMemoryStateStore;
import dev.segmentledger.testkit.SinkFault;
import java.lang.reflect.Proxy;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Retention in the engine ({@code LedgerBuilder.retention}, {@code Ledger.purge}): complete
 * broadcasts are removed once they ended longer ago than the retention, by the ledger's clock;
 * everything else stays.
 */
class RetentionTest {
  private static final Duration RETENTION = Duration.ofDays(7);

  @TempDir Path temp;

  private static void registerAndUpload(LedgerFixture f, ManualLedger ledger, String broadcast, int files) {
    for (int i = 0; i < files; i++) {
      ItemId id = ItemId.original(broadcast, "720p", i);
      ledger.register(id, f.record(id));
    }
    LedgerFixture.settle(ledger);
  }

  @Test
  void aCompleteBroadcastIsRemovedOnceItEndedLongerAgoThanTheRetention() {
    LedgerFixture f = new LedgerFixture(temp);
    ManualLedger ledger = f.builder().retention(RETENTION).buildManual();
    registerAndUpload(f, ledger, "old", 3);
    ledger.endBroadcast("old");
    assertEquals(BroadcastStatus.Phase.COMPLETE, ledger.broadcastStatus("old").phase());

    f.clock.advance(RETENTION.minusSeconds(1));
    assertEquals(0, ledger.purge(), "not old enough yet");
    assertEquals(3, ledger.items("old").size());

    f.clock.advance(Duration.ofSeconds(2));
    assertEquals(3, ledger.purge());
    assertEquals(List.of(), ledger.items("old"));
    assertEquals(3, f.sink.list("old/").size(), "objects in the bucket are never touched");
    ItemId late = ItemId.original("old", "720p", 3);
    assertThrows(BroadcastEndedException.class, () -> ledger.register(late, f.record(late)),
        "the broadcast record stays: a late registration is still refused");
  }

  @Test
  void liveAndIncompleteBroadcastsKeepEveryRow() {
    LedgerFixture f = new LedgerFixture(temp);
    ManualLedger ledger = f.builder().retention(RETENTION).buildManual();
    registerAndUpload(f, ledger, "live", 2);
    f.sink.startOutage(SinkFault.failRetryable());
    ItemId stuck = ItemId.original("incomplete", "720p", 0);
    ledger.register(stuck, f.record(stuck));
    ledger.drainQueue();
    f.sink.endOutage();
    ledger.endBroadcast("incomplete");
    assertEquals(BroadcastStatus.Phase.ENDED, ledger.broadcastStatus("incomplete").phase());

    f.clock.advance(RETENTION.multipliedBy(3));
    assertEquals(0, ledger.purge());
    assertEquals(2, ledger.items("live").size());
    assertEquals(ItemState.PENDING, ledger.find(stuck).orElseThrow().state());

    LedgerFixture.settle(ledger); // the row is uploaded at last: the broadcast is complete
    assertEquals(ItemState.CONFIRMED, ledger.find(stuck).orElseThrow().state());
    assertEquals(1, ledger.purge(), "ended three retentions ago, complete now");
  }

  @Test
  void purgeWithoutARetentionIsRefused() {
    LedgerFixture f = new LedgerFixture(temp);
    ManualLedger ledger = f.manual();
    assertThrows(IllegalStateException.class, ledger::purge);
  }

  @Test
  void aStoreWithoutRetentionFailsTheStartBeforeAnythingRuns() {
    LedgerFixture f = new LedgerFixture(temp, withoutRetention(new InMemoryStateStore()));
    Ledger ledger = f.builder().retention(RETENTION).build();
    try {
      assertThrows(UnsupportedOperationException.class, ledger::start);
    } finally {
      ledger.close();
    }
  }

  /** {@code store} behind the SPI's default {@code purge}, as a store that does not implement it. */
  private static StateStore withoutRetention(StateStore store) {
    return (StateStore) Proxy.newProxyInstance(StateStore.class.getClassLoader(), new Class<?>[] {StateStore.class},
        (proxy, method, args) -> {
          if (method.getName().equals("purge")) {
            throw new UnsupportedOperationException("no retention");
          }
          try {
            return method.invoke(store, args);
          } catch (java.lang.reflect.InvocationTargetException e) {
            throw e.getCause();
          }
        });
  }
}
