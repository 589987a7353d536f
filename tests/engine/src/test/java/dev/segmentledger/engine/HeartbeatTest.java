package dev.segmentledger.engine;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.segmentledger.core.ItemId;
import dev.segmentledger.core.ItemState;
import dev.segmentledger.core.LedgerItem;
import dev.segmentledger.core.LedgerListener;
import dev.segmentledger.core.ManualLedger;
import dev.segmentledger.core.Reason;
import dev.segmentledger.core.SinkException;
import dev.segmentledger.core.StoredObjectInfo;
import dev.segmentledger.core.spi.ObjectSink;
import dev.segmentledger.core.spi.StateStore;
import dev.segmentledger.core.spi.UploadContent;
import dev.segmentledger.testkit.ForwardingObjectSink;
import dev.segmentledger.testkit.InMemoryStateStore;
import java.io.IOException;
import java.io.InputStream;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.Semaphore;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Long work is not dead work: while an attempt lives, its node's heartbeat keeps its lease, so
 * another node never takes a slow upload over; an attempt that makes no progress for the stall
 * timeout is cancelled by its own node and retried; an attempt whose lease was taken over while its
 * node was frozen is cancelled when the node wakes. Two manual ledgers share one store; the test
 * drives the clock, the heartbeats and the sink's reads, so nothing depends on timing.
 */
class HeartbeatTest {
  private static final Duration LEASE = Duration.ofSeconds(2);
  private static final Duration STEP = Duration.ofMillis(500);

  @TempDir Path temp;
  private LedgerFixture f;
  private SteppedSink sink;
  private final ItemId id = ItemId.original("b1", "720p", 0);
  private CompletableFuture<Integer> draining;

  @BeforeEach
  void setUp() {
    f = new LedgerFixture(temp);
    sink = new SteppedSink(f.sink);
  }

  @AfterEach
  void stopDraining() throws Exception {
    sink.unblock();
    if (draining != null) {
      draining.get(10, TimeUnit.SECONDS);
    }
  }

  private ManualLedger node(String name, Duration stallTimeout, LedgerListener listener) {
    return f.builder().objectSink(sink).nodeId(name).leaseDuration(LEASE).stallTimeout(stallTimeout)
        .listener(listener).buildManual();
  }

  /** Node a registers the item and starts uploading it on a thread of its own. */
  private ManualLedger startUploadOnA(Duration stallTimeout, LedgerListener listener) throws InterruptedException {
    ManualLedger a = node("node-a", stallTimeout, listener);
    a.register(id, f.record(id));
    draining = CompletableFuture.supplyAsync(a::drainQueue);
    assertTrue(sink.started.await(10, TimeUnit.SECONDS), "the PUT started");
    return a;
  }

  @Test
  void anUploadTenTimesTheLeaseKeepsItsLeaseAndIsPutExactlyOnce() throws Exception {
    ManualLedger a = startUploadOnA(Duration.ofMinutes(5), LedgerListener.noop());
    ManualLedger b = node("node-b", Duration.ofMinutes(5), LedgerListener.noop());

    for (int i = 0; i < 40; i++) { // 20 s of the ledger's clock: ten leases
      f.clock.advance(STEP);
      sink.readOneByte();
      a.heartbeat();
      b.sweepRound();
      assertEquals(0, b.drainQueue(), "node b finds nothing to take at " + f.clock.instant());
    }
    sink.unblock();
    draining.get(10, TimeUnit.SECONDS);

    LedgerItem row = f.store.find(id).orElseThrow();
    assertEquals(ItemState.CONFIRMED, row.state());
    assertEquals(0, row.attempts(), "no attempt was abandoned");
    assertEquals(1, sink.puts.get(), "exactly one PUT");
  }

  @Test
  void aStalledPutIsCancelledByItsOwnNodeAndRetried() throws Exception {
    Recorded events = new Recorded();
    ManualLedger a = startUploadOnA(Duration.ofSeconds(3), events);

    for (int i = 0; i < 6; i++) { // 3 s without a byte read
      f.clock.advance(STEP);
      a.heartbeat();
    }
    assertEquals(1, draining.get(10, TimeUnit.SECONDS).intValue(), "the cancelled attempt ended");
    LedgerItem stalled = f.store.find(id).orElseThrow();
    assertEquals(ItemState.PENDING, stalled.state());
    assertEquals(Reason.STALLED, stalled.reason(), stalled.lastError());
    assertEquals(1, stalled.attempts());
    assertEquals(1, events.failures(Reason.STALLED), "recorded once, by the heartbeat, not again by the worker");

    sink.unblock();
    f.clock.advance(Duration.ofSeconds(1)); // the backoff
    LedgerFixture.settle(a);

    assertEquals(ItemState.CONFIRMED, f.store.find(id).orElseThrow().state());
    assertEquals(2, sink.puts.get(), "cancelled, then retried");
  }

  @Test
  void anAttemptWhoseLeaseWasTakenOverWhileItsNodeWasFrozenIsCancelledWhenItWakes() throws Exception {
    Recorded eventsOfA = new Recorded();
    ManualLedger a = startUploadOnA(Duration.ofMinutes(5), eventsOfA);
    ManualLedger b = node("node-b", Duration.ofMinutes(5), LedgerListener.noop());
    f.clock.advance(LEASE.plus(STEP)); // node a is frozen: no heartbeat, no byte read
    sink.unblockAfterPuts(2);

    LedgerFixture.settle(b);
    assertEquals(ItemState.CONFIRMED, f.store.find(id).orElseThrow().state(), "node b took it over");
    a.heartbeat(); // node a wakes

    assertEquals(1, draining.get(10, TimeUnit.SECONDS).intValue());
    LedgerItem row = f.store.find(id).orElseThrow();
    assertEquals(ItemState.CONFIRMED, row.state());
    assertEquals(1, eventsOfA.claimsLost(), "node a learnt it had lost the lease");
    assertEquals(0, eventsOfA.failures(), "and recorded nothing over node b's work");
  }

  @Test
  void anAttemptWhoseRenewalWasWrittenButItsAnswerLostKeepsItsLease() throws Exception {
    AtomicInteger renewalsLost = new AtomicInteger();
    InMemoryStateStore inner = new InMemoryStateStore();
    StateStore store = InterceptedStore.firstRenewalAnswerLost(inner, renewalsLost);
    f = new LedgerFixture(temp, store);
    sink = new SteppedSink(f.sink);
    Recorded events = new Recorded();
    ManualLedger a = startUploadOnA(Duration.ofMinutes(5), events);

    for (int i = 0; i < 12; i++) { // 6 s of the ledger's clock: three leases, renewed after the lost answer
      f.clock.advance(STEP);
      sink.readOneByte();
      a.heartbeat();
    }
    sink.unblock();
    assertEquals(1, draining.get(10, TimeUnit.SECONDS).intValue());

    assertTrue(renewalsLost.get() > 1, "renewed after the lost answer");
    assertEquals(0, events.claimsLost(), "the lease was still the attempt's: nothing to cancel");
    LedgerItem row = inner.find(id).orElseThrow();
    assertEquals(ItemState.CONFIRMED, row.state());
    assertEquals(0, row.attempts(), "no attempt was abandoned: " + row.lastError());
    assertEquals(1, sink.puts.get(), "exactly one PUT");
  }

  @Test
  void aFrozenAttemptWhoseLeaseAReplacementUnderTheSameNodeIdTookIsCancelledWhenItWakes() throws Exception {
    Recorded events = new Recorded();
    ManualLedger a = startUploadOnA(Duration.ofMinutes(5), events);
    f.clock.advance(STEP); // node a is frozen; a new process under the same node id starts and claims
    assertEquals(1, f.store.releaseAllOf("node-a", f.clock.instant()), "the replacement ends its predecessor's leases");
    long rowId = f.store.find(id).orElseThrow().rowId();
    assertTrue(f.store.claimFor(rowId, "node-a", LEASE, f.clock.instant()).claim().held(), "and claims the row");

    for (int i = 0; i < 4; i++) { // node a wakes: no renewal of its own was of unknown outcome
      f.clock.advance(STEP);
      sink.readOneByte();
      a.heartbeat();
    }

    assertEquals(1, events.claimsLost(), "node a renewed the lease the replacement had taken");
    assertEquals(1, draining.get(10, TimeUnit.SECONDS).intValue(), "the attempt was cancelled");
    assertEquals(0, events.failures(), "and recorded nothing over the replacement's work");
  }

  @Test
  void anAttemptOnANodeWhoseClockRunsBehindTheStoresIsNotTakenForStalled() throws Exception {
    InMemoryStateStore inner = new InMemoryStateStore();
    LedgerFixture[] fixture = new LedgerFixture[1];
    StateStore store = InterceptedStore.of(inner, (method, args, proceed) ->
        method.equals("currentTime") // the store's clock, an hour ahead of the node's
            ? Optional.of(fixture[0].clock.instant().plus(Duration.ofHours(1)))
            : proceed.call());
    f = new LedgerFixture(temp, store);
    fixture[0] = f;
    sink = new SteppedSink(f.sink);
    Recorded events = new Recorded();
    ManualLedger a = startUploadOnA(Duration.ofMinutes(5), events);

    f.clock.advance(STEP); // half a second into the attempt, no byte read yet: far from the stall timeout
    a.heartbeat();
    for (int i = 0; i < 3; i++) {
      f.clock.advance(STEP);
      sink.readOneByte();
      a.heartbeat();
    }
    sink.unblock();
    assertEquals(1, draining.get(10, TimeUnit.SECONDS).intValue());

    assertEquals(0, events.failures(Reason.STALLED), "the attempt's start and its idle time were on two clocks");
    assertEquals(ItemState.CONFIRMED, inner.find(id).orElseThrow().state());
    assertEquals(1, sink.puts.get(), "exactly one PUT");
  }

  /** What a node reported: failures by reason, and lost claims. */
  private static final class Recorded implements LedgerListener {
    private final List<Reason> failed = new CopyOnWriteArrayList<>();
    private final AtomicInteger claimsLost = new AtomicInteger();

    @Override
    public void onFailed(LedgerItem item, Reason reason, String detail, boolean terminal) {
      failed.add(reason);
    }

    @Override
    public void onClaimLost(LedgerItem item) {
      claimsLost.incrementAndGet();
    }

    long failures(Reason reason) {
      return failed.stream().filter(reason::equals).count();
    }

    int failures() {
      return failed.size();
    }

    int claimsLost() {
      return claimsLost.get();
    }
  }

  /**
   * A sink whose PUT reads the content one byte per {@link #readOneByte} (blocking in between,
   * interruptibly) until {@link #unblock}, then stores it through the fake sink.
   */
  private static final class SteppedSink extends ForwardingObjectSink {
    private final ObjectSink delegate;
    final CountDownLatch started = new CountDownLatch(1);
    final AtomicInteger puts = new AtomicInteger();
    private final Semaphore steps = new Semaphore(0);
    private final CountDownLatch unblocked = new CountDownLatch(1);
    private volatile int unblockAfterPuts = Integer.MAX_VALUE;

    SteppedSink(ObjectSink delegate) {
      this.delegate = delegate;
    }

    @Override
    protected ObjectSink delegate() {
      return delegate;
    }

    void readOneByte() {
      steps.release();
    }

    void unblock() {
      unblocked.countDown();
      steps.release(1_000_000);
    }

    void unblockAfterPuts(int n) {
      unblockAfterPuts = n;
    }

    @Override
    public StoredObjectInfo put(String key, UploadContent content, boolean mayExist) {
      int put = puts.incrementAndGet();
      started.countDown();
      if (put >= unblockAfterPuts) {
        return delegate.put(key, content, mayExist);
      }
      try (InputStream in = content.openStream()) {
        while (unblocked.getCount() > 0) {
          steps.acquire();
          if (unblocked.getCount() > 0 && in.read() < 0) {
            break;
          }
        }
      } catch (InterruptedException e) {
        throw SinkException.retryable("interrupted while sending " + key, e);
      } catch (IOException e) {
        throw SinkException.retryable("reading " + key + " failed: " + e, e);
      }
      return delegate.put(key, content, mayExist);
    }
  }
}
