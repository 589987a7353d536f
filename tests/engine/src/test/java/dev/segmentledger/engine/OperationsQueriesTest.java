package dev.segmentledger.engine;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;

import dev.segmentledger.core.Axis;
import dev.segmentledger.core.ItemId;
import dev.segmentledger.core.ItemState;
import dev.segmentledger.core.LedgerItem;
import dev.segmentledger.core.ManualLedger;
import dev.segmentledger.core.Reason;
import dev.segmentledger.core.query.Backlog;
import dev.segmentledger.core.query.Page;
import dev.segmentledger.core.query.RowQuery;
import dev.segmentledger.testkit.SinkFault;
import java.nio.file.Path;
import java.time.Duration;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The ledger answers an operator's questions across broadcasts: which rows are stuck, how big the backlog is. */
class OperationsQueriesTest {
  @TempDir Path temp;

  @Test
  void rejectedRowsOfEveryBroadcastAndTheBacklogAreReadFromTheStore() {
    LedgerFixture f = new LedgerFixture(temp);
    ManualLedger ledger = f.manual();
    f.sink.startOutage(SinkFault.failPermanent());
    for (String broadcast : new String[] {"b1", "b2"}) {
      ItemId id = ItemId.original(broadcast, "720p", 0);
      ledger.register(id, f.record(id));
    }
    ledger.drainQueue();
    f.sink.startOutage(SinkFault.failRetryable());
    ItemId retried = ItemId.original("b3", "720p", 0);
    ledger.register(retried, f.record(retried));
    ledger.drainQueue();
    f.clock.advance(Duration.ofMillis(100));

    Page<LedgerItem> rejected = ledger.items(RowQuery.builder().states(ItemState.REJECTED)
        .reasons(Reason.SINK_PERMANENT).order(RowQuery.Order.OLDEST_FIRST).build());
    assertEquals(2, rejected.items().size());
    assertEquals("b1", rejected.items().get(0).id().broadcastId());
    assertEquals("b2", rejected.items().get(1).id().broadcastId());
    assertFalse(rejected.hasNext());
    assertEquals(retried, ledger.items(RowQuery.builder().states(ItemState.PENDING).minAttempts(1).build())
        .items().get(0).id());

    Backlog backlog = ledger.backlog();
    assertEquals(f.clock.instant(), backlog.at());
    assertEquals(1, backlog.axis(Axis.ORIGINAL).unconfirmed());
    assertEquals(1, backlog.axis(Axis.ORIGINAL).inBackoff(), "the transient failure waits for its retry");
    assertEquals(Duration.ofMillis(100), backlog.oldestAge());
  }
}
