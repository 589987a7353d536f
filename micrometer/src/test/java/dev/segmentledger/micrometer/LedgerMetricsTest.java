package dev.segmentledger.micrometer;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.assertThrows;

import dev.segmentledger.core.Axis;
import dev.segmentledger.core.ItemId;
import dev.segmentledger.core.Ledger;
import dev.segmentledger.core.LedgerStats;
import dev.segmentledger.core.ManualLedger;
import dev.segmentledger.core.RootReplacedException;
import dev.segmentledger.core.spi.ObjectSink;
import dev.segmentledger.core.spi.StateStore;
import dev.segmentledger.testkit.FakeObjectSink;
import dev.segmentledger.testkit.ForwardingObjectSink;
import dev.segmentledger.testkit.FakeRepackager;
import dev.segmentledger.testkit.InMemoryStateStore;
import dev.segmentledger.testkit.SettableClock;
import dev.segmentledger.testkit.SinkFault;
import io.micrometer.core.instrument.Timer;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Proxy;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Locale;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class LedgerMetricsTest {
  @TempDir Path temp;

  @Test
  void countersAfterARunMatchTheLedgersOwnCounts() throws Exception {
    Path root = Files.createDirectories(temp.resolve("rec"));
    Path outside = Files.writeString(temp.resolve("outside.ts"), "not for upload");
    SimpleMeterRegistry registry = new SimpleMeterRegistry();
    SettableClock clock = SettableClock.atFixedStart();
    FakeObjectSink sink = new FakeObjectSink();
    LedgerMetrics metrics = LedgerMetrics.create(registry, clock);
    ManualLedger ledger = Ledger.builder()
        .stateStore(new InMemoryStateStore())
        .objectSink(sink)
        .allowedRoot(root)
        .clock(clock)
        .repackager(new FakeRepackager(), root.resolve("playback"))
        .listener(metrics)
        .buildManual();
    metrics.bindGauges(ledger);
    sink.failNext(ItemId.original("b1", "720p", 1).objectKey(), SinkFault.failRetryable());
    sink.failNext(ItemId.original("b1", "720p", 2).objectKey(), SinkFault.failPermanent());
    for (int i = 0; i < 5; i++) {
      ledger.register(ItemId.original("b1", "720p", i), Files.writeString(root.resolve(i + ".ts"), "segment " + i));
    }
    ledger.register(ItemId.original("b1", "720p", 9), outside);
    for (int round = 0; round < 10; round++) {
      ledger.drainQueue();
      clock.advance(Duration.ofSeconds(2));
      ledger.sweepRound();
    }

    LedgerStats stats = ledger.stats();
    for (Axis axis : Axis.values()) {
      LedgerStats.AxisStats own = stats.axis(axis);
      String tag = axis.name().toLowerCase(Locale.ROOT);
      assertEquals(own.accepted(), count(registry, tag, "accepted"), axis + " accepted");
      assertEquals(own.stored(), count(registry, tag, "stored"), axis + " stored");
      assertEquals(own.confirmed(), count(registry, tag, "confirmed"), axis + " confirmed");
      assertEquals(own.failed(), count(registry, tag, "failed"), axis + " failed");
      assertEquals(own.rejected(), count(registry, tag, "rejected"), axis + " rejected");
      assertEquals(own.confirmed(), registry.get("segment.ledger.confirm.latency").tag("axis", tag).timer().count());
      assertEquals(own.stored(), registry.get("segment.ledger.put.bytes").tag("axis", tag).summary().count());
      assertEquals(own.stored(), registry.get("segment.ledger.put.duration").tag("axis", tag).timer().count());
    }
    assertEquals(4, count(registry, "original", "confirmed"), "5 registered, 1 refused by the sink");
    assertEquals(2, count(registry, "original", "rejected"), "one permanent sink refusal, one outside the root");
    assertEquals(1, registry.get("segment.ledger.failures").tag("reason", "outside_root").counter().count());
    assertEquals(0, registry.get("segment.ledger.queue.depth").gauge().value());
    assertEquals(0, registry.get("segment.ledger.circuit.open").gauge().value());
    assertEquals("segment 0".length(), registry.get("segment.ledger.put.bytes").tag("axis", "original").summary().max());
    LedgerStats.LocalDisk disk = ledger.stats().localDisk();
    assertTrue(disk.filesDeleted() > 0, "produced files are deleted once confirmed");
    assertEquals(disk.filesDeleted(), registry.get("segment.ledger.local.deleted").functionCounter().count());
    assertEquals(disk.bytesDeleted(), registry.get("segment.ledger.local.deleted.bytes").functionCounter().count());
    assertEquals(0, registry.get("segment.ledger.local.refused").tag("reason", "symlink").functionCounter().count());
    assertTrue(registry.get("segment.ledger.local.free").gauge().value() > 0);
    assertEquals(0, registry.get("segment.ledger.local.low").gauge().value(), "no threshold");
  }

  @Test
  void putDurationIsTheTimeTheSinkCallTookOnTheLedgersClock(@TempDir Path root) throws Exception {
    SimpleMeterRegistry registry = new SimpleMeterRegistry();
    SettableClock clock = SettableClock.atFixedStart();
    FakeObjectSink bucket = new FakeObjectSink();
    // the PUT "takes" 250 ms on the ledger's clock
    ObjectSink slowSink = ForwardingObjectSink.beforeEachPut(bucket, (key, content) ->
        clock.advance(Duration.ofMillis(250)));
    ManualLedger ledger = Ledger.builder().stateStore(new InMemoryStateStore()).objectSink(slowSink)
        .allowedRoot(root).clock(clock).listener(LedgerMetrics.create(registry, clock)).buildManual();
    ledger.register(ItemId.original("b1", "720p", 0), Files.writeString(root.resolve("0.ts"), "segment 0"));
    ledger.drainQueue();

    Timer put = registry.get("segment.ledger.put.duration").tag("axis", "original").timer();
    assertEquals(1, put.count());
    assertEquals(250, put.max(TimeUnit.MILLISECONDS));
  }

  @Test
  void anUnboundMeterBinderShowsItsMetersInEachRegistryBoundLater() throws Exception {
    Path root = Files.createDirectories(temp.resolve("rec"));
    LedgerMetrics metrics = LedgerMetrics.unbound(SettableClock.atFixedStart());
    ManualLedger ledger = Ledger.builder()
        .stateStore(new InMemoryStateStore())
        .objectSink(new FakeObjectSink())
        .allowedRoot(root)
        .listener(metrics)
        .buildManual();
    metrics.bindGauges(ledger);
    SimpleMeterRegistry first = new SimpleMeterRegistry();
    metrics.bindTo(first);
    ledger.register(ItemId.original("b1", "720p", 0), Files.writeString(root.resolve("0.ts"), "segment"));
    ledger.drainQueue();
    SimpleMeterRegistry second = new SimpleMeterRegistry();
    metrics.bindTo(second);
    metrics.bindTo(second);
    ledger.register(ItemId.original("b1", "720p", 1), Files.writeString(root.resolve("1.ts"), "segment"));
    ledger.drainQueue();

    assertEquals(2, count(first, "original", "confirmed"));
    assertEquals(1, count(second, "original", "confirmed"), "counted from its binding on");
    assertEquals(0, second.get("segment.ledger.queue.depth").gauge().value());
    for (SimpleMeterRegistry registry : new SimpleMeterRegistry[] {first, second}) {
      registry.getMeters().forEach(m -> m.getId().getTags().forEach(t ->
          assertEquals(t.getValue().toLowerCase(Locale.ROOT), t.getValue(), m.getId() + ": tag values are lower case")));
    }
  }

  /**
   * The allowed root re-created while running is counted once when re-opened; a root replaced by a
   * symlink is not re-opened, and each upload refused for it counts as a ROOT_REPLACED failure (a
   * registration refused for it throws and writes nothing, so it counts nothing).
   */
  @Test
  void aReopenedRootAndFilesRefusedForAReplacedRootAreCounted() throws Exception {
    Path root = Files.createDirectories(temp.resolve("rec"));
    SimpleMeterRegistry registry = new SimpleMeterRegistry();
    ManualLedger ledger = Ledger.builder().stateStore(new InMemoryStateStore()).objectSink(new FakeObjectSink())
        .allowedRoot(root).listener(LedgerMetrics.create(registry)).buildManual();
    assertEquals(0, registry.get("segment.ledger.root.reopened").counter().count(), "present before any re-opening");
    Files.move(root, temp.resolve("rec-old"));
    Files.createDirectories(root);
    for (int i = 0; i < 3; i++) {
      ledger.register(ItemId.original("b1", "720p", i), Files.writeString(root.resolve(i + ".ts"), "segment"));
    }
    ledger.drainQueue();
    assertEquals(3, count(registry, "original", "confirmed"));
    assertEquals(1, registry.get("segment.ledger.root.reopened").counter().count());

    ledger.register(ItemId.original("b1", "720p", 3), Files.writeString(root.resolve("3.ts"), "segment"));
    Files.move(root, temp.resolve("rec-newer"));
    Files.createSymbolicLink(root, temp.resolve("rec-newer"));
    assertThrows(RootReplacedException.class, () -> ledger.register(ItemId.original("b1", "720p", 4),
        root.resolve("0.ts")), "refused at registration: no row, nothing counted");
    ledger.drainQueue();
    assertEquals(1, registry.get("segment.ledger.root.reopened").counter().count(), "a symlink is not re-opened");
    assertEquals(1, registry.get("segment.ledger.failures").tag("reason", "root_replaced").counter().count(),
        "the upload refused for it");
  }

  private static long count(SimpleMeterRegistry registry, String axis, String event) {
    return (long) registry.get("segment.ledger.items").tag("axis", axis).tag("event", event).counter().count();
  }

  @Test
  void theClockSkewGaugeIsHowFarTheNodesClockRunsAheadOfTheStores(@TempDir Path root) {
    SimpleMeterRegistry registry = new SimpleMeterRegistry();
    SettableClock clock = SettableClock.atFixedStart();
    InMemoryStateStore rows = new InMemoryStateStore();
    StateStore storeBehind = (StateStore) Proxy.newProxyInstance(StateStore.class.getClassLoader(),
        new Class<?>[] {StateStore.class}, (proxy, method, args) -> {
          if (method.getName().equals("currentTime")) {
            return Optional.of(clock.instant().minusSeconds(90));
          }
          try {
            return method.invoke(rows, args);
          } catch (InvocationTargetException e) {
            throw e.getCause();
          }
        });
    LedgerMetrics metrics = LedgerMetrics.create(registry);
    ManualLedger ledger = Ledger.builder().stateStore(storeBehind).objectSink(new FakeObjectSink()).clock(clock)
        .allowedRoot(root).listener(metrics).buildManual();
    metrics.bindGauges(ledger);

    ledger.sweepRound();

    assertEquals(Duration.ofSeconds(90), ledger.stats().clockSkew());
    assertEquals(90.0, registry.get("segment.ledger.clock.skew").gauge().value());
  }
}
