package dev.segmentledger.engine;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;

import dev.segmentledger.core.ClosedFile;
import dev.segmentledger.core.ItemId;
import dev.segmentledger.core.ItemState;
import dev.segmentledger.core.LedgerItem;
import dev.segmentledger.core.LedgerListener;
import dev.segmentledger.core.ManualLedger;
import dev.segmentledger.core.spi.Claim;
import dev.segmentledger.core.spi.ObjectSink;
import dev.segmentledger.core.spi.StateStore;
import dev.segmentledger.testkit.FakeObjectSink;
import dev.segmentledger.testkit.ForwardingObjectSink;
import dev.segmentledger.testkit.InMemoryStateStore;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Consumer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A worker that takes an item whose registration lease is more than half gone extends, in the same
 * store call ({@code renewAll}), the registration leases of the work waiting behind it in the queue:
 * those stay leases of the rows' wait (not counted as abandoned attempts if the node dies, no longer
 * than a registration lease), and the workers that take them need no lease statement of their own.
 */
class QueuedLeaseRenewalTest {
  private static final Duration LEASE = Duration.ofMinutes(2);
  private static final Duration REGISTRATION_LEASE = Duration.ofSeconds(10);

  @TempDir Path temp;

  private final Map<String, AtomicInteger> calls = new ConcurrentHashMap<>();

  /** The store, counting the calls made to it by name. */
  private StateStore counting(StateStore store) {
    return InterceptedStore.of(store, (method, args, proceed) -> {
      calls.computeIfAbsent(method, n -> new AtomicInteger()).incrementAndGet();
      return proceed.call();
    });
  }

  private int calls(String method) {
    AtomicInteger count = calls.get(method);
    return count == null ? 0 : count.get();
  }

  /** A sink that runs {@code beforeFirstPut} once, then stores as the fake does. */
  private static ObjectSink sinkWithHook(FakeObjectSink sink, Consumer<String> beforeFirstPut) {
    AtomicInteger puts = new AtomicInteger();
    return ForwardingObjectSink.beforeEachPut(sink, (key, content) -> {
      if (puts.getAndIncrement() == 0) {
        beforeFirstPut.accept(key);
      }
    });
  }

  private List<ClosedFile> files(LedgerFixture f, int count) {
    List<ClosedFile> files = new ArrayList<>();
    for (int i = 0; i < count; i++) {
      ItemId id = ItemId.original("b1", "720p", i);
      files.add(ClosedFile.of(id, f.record(id)));
    }
    return files;
  }

  @Test
  void oneStoreCallRenewsTheTakenItemAndExtendsTheQueuedOnes() {
    LedgerFixture f = new LedgerFixture(temp, counting(new InMemoryStateStore()));
    List<Instant> dueWhileFirstUploads = new ArrayList<>();
    ManualLedger ledger = f.builder().nodeId("node-a").leaseDuration(LEASE)
        .objectSink(sinkWithHook(f.sink, key -> {
          for (int i = 0; i < 20; i++) {
            dueWhileFirstUploads.add(f.store.find(ItemId.original("b1", "720p", i)).orElseThrow().nextAttemptAt());
          }
        }))
        .buildManual();
    ledger.registerAll(files(f, 20));
    Instant late = f.clock.advance(REGISTRATION_LEASE.dividedBy(2).plusSeconds(1));

    assertEquals(20, ledger.drainQueue());

    assertEquals(1, calls("renewAll") + calls("renewAllFor"), "one store call for the lease of every queued row");
    assertEquals(0, calls("renew") + calls("claim") + calls("claimRow") + calls("claimFor"));
    assertEquals(late.plus(LEASE), dueWhileFirstUploads.get(0), "the taken item: a lease for its attempt");
    for (int i = 1; i < 20; i++) {
      assertEquals(late.plus(REGISTRATION_LEASE), dueWhileFirstUploads.get(i), "queued row " + i + ": its wait");
    }
    for (int i = 0; i < 20; i++) {
      assertEquals(ItemState.CONFIRMED, f.store.find(ItemId.original("b1", "720p", i)).orElseThrow().state());
    }
    assertEquals(20, f.sink.putCount());
  }

  @Test
  void queuedRowsExtendedWithARenewalAreNoAbandonedAttemptsWhenTheirNodeDies() {
    LedgerFixture f = new LedgerFixture(temp, new InMemoryStateStore());
    List<Claim> takenOverByAnotherNode = new ArrayList<>();
    Instant[] late = new Instant[1];
    ManualLedger ledger = f.builder().nodeId("node-a").leaseDuration(LEASE)
        .objectSink(sinkWithHook(f.sink, key -> {
          // While node-a uploads its first item, the others wait in its queue. Had node-a died now,
          // another node would claim them once their leases end:
          for (int i = 0; i < 3; i++) {
            LedgerItem row = f.store.find(ItemId.original("b1", "720p", i)).orElseThrow();
            takenOverByAnotherNode.add(f.store.claim(row.rowId(), "node-b", late[0].plus(Duration.ofHours(1)),
                late[0].plus(i == 0 ? LEASE : REGISTRATION_LEASE)));
          }
        }))
        .buildManual();
    ledger.registerAll(files(f, 3));
    late[0] = f.clock.advance(REGISTRATION_LEASE.dividedBy(2).plusSeconds(1));

    ledger.drainQueue();

    assertNotNull(late[0]);
    assertEquals(List.of(Claim.held(true, 1, 0), Claim.HELD, Claim.HELD), takenOverByAnotherNode,
        "the attempt under way is counted as abandoned; the rows that only waited are not");
  }

  @Test
  void queuedRowsWhoseExtensionWasWrittenButItsAnswerLostAreStillUploadedByTheirNode() {
    InMemoryStateStore inner = new InMemoryStateStore();
    AtomicInteger renewals = new AtomicInteger();
    StateStore store = InterceptedStore.firstRenewalAnswerLost(inner, renewals);
    LedgerFixture f = new LedgerFixture(temp, store);
    AtomicInteger claimsLost = new AtomicInteger();
    ManualLedger ledger = f.builder().nodeId("node-a").leaseDuration(LEASE).listener(new LedgerListener() {
      @Override
      public void onClaimLost(LedgerItem item) {
        claimsLost.incrementAndGet();
      }
    }).buildManual();
    ledger.registerAll(files(f, 3));
    f.clock.advance(REGISTRATION_LEASE.dividedBy(2).plusSeconds(1));

    ledger.drainQueue(); // the first item's extension, with the queued ones', is written; its answer lost

    assertEquals(0, claimsLost.get(), "the queued rows' leases were still node-a's");
    for (int i = 1; i < 3; i++) {
      LedgerItem row = inner.find(ItemId.original("b1", "720p", i)).orElseThrow();
      assertEquals(ItemState.CONFIRMED, row.state(), "queued row " + i);
      assertEquals(0, row.attempts(), "queued row " + i);
    }
  }

  @Test
  void queuedRowsWhoseLeasesANewProcessUnderTheSameNodeIdEndedAreNotUploadedByTheOldOne() {
    LedgerFixture f = new LedgerFixture(temp);
    ManualLedger frozen = f.builder().nodeId("node-a").leaseDuration(LEASE).buildManual();
    frozen.registerAll(files(f, 3));
    f.clock.advance(REGISTRATION_LEASE.dividedBy(2).plusSeconds(1));
    // a new process under the same node id starts: it ends its predecessor's leases and claims a row
    assertEquals(3, f.store.releaseAllOf("node-a", f.clock.instant()));
    long claimed = f.store.find(ItemId.original("b1", "720p", 1)).orElseThrow().rowId();
    assertEquals(Claim.HELD, f.store.claimFor(claimed, "node-a", LEASE, f.clock.instant()).claim());

    frozen.drainQueue(); // the old process wakes: no extension of its own was of unknown outcome

    assertEquals(0, f.sink.putCount(), "the old process uploaded rows whose leases the new one had ended or taken");
  }
}
