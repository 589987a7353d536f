package dev.segmentledger.engine;

import static org.junit.jupiter.api.Assertions.assertEquals;

import dev.segmentledger.core.Ledger;
import dev.segmentledger.core.StoreException;
import dev.segmentledger.core.Uplink;
import dev.segmentledger.core.UplinkTimetable;
import dev.segmentledger.core.spi.StateStore;
import dev.segmentledger.core.spi.StoredUplinkCap;
import dev.segmentledger.testkit.InMemoryStateStore;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Proxy;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.LongSupplier;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A cap an operator stores in the ledger for this node, or for every node, is in force over the
 * node's configured one from the first upload and follows every change within about a second;
 * removed, the configured cap (as last set through the API) applies again. A failed read of the
 * stored caps keeps the cap in force.
 */
class StoredUplinkCapsTest {
  private static final long MIB = 1 << 20;
  private static final Duration FOLLOWS_WITHIN = Duration.ofSeconds(3);
  private static final Instant AT = Instant.parse("2026-12-05T00:00:00Z");

  @TempDir Path temp;

  @Test
  void aStoredCapIsInForceOverTheConfiguredOneAndTheNodesOwnOverTheOneForEveryNode() throws Exception {
    InMemoryStateStore store = new InMemoryStateStore();
    store.putUplinkCap(new StoredUplinkCap(StoredUplinkCap.EVERY_NODE, 2 * MIB, 0, AT));
    LedgerFixture f = new LedgerFixture(temp, store);
    try (Ledger ledger = f.builder().nodeId("recorder-1").uplink(Uplink.builder().bytesPerSecond(MIB).build())
        .build()) {
      ledger.start();
      assertEquals(2 * MIB, ledger.uplink().bytesPerSecond(), "the stored cap for every node, from the start");

      store.putUplinkCap(new StoredUplinkCap("recorder-1", 3 * MIB, 50, AT));
      awaitEquals(3 * MIB, () -> ledger.uplink().bytesPerSecond(), "the node's own cap");
      assertEquals(50, ledger.uplinkStats().settings().requestsPerSecond());

      ledger.uplink(ledger.uplink().toBuilder().bytesPerSecond(5 * MIB).requestsPerSecond(0).build());
      assertEquals(3 * MIB, ledger.uplink().bytesPerSecond(), "the stored cap stays in force over the API's");

      store.removeUplinkCap("recorder-1");
      awaitEquals(2 * MIB, () -> ledger.uplink().bytesPerSecond(), "every node's cap once the node's is removed");
      assertEquals(0, ledger.uplink().requestsPerSecond());

      store.removeUplinkCap(StoredUplinkCap.EVERY_NODE);
      awaitEquals(5 * MIB, () -> ledger.uplink().bytesPerSecond(), "the cap last set through the API");
    }
  }

  @Test
  void aFailedReadOfTheStoredCapsKeepsTheCapInForce() throws Exception {
    InMemoryStateStore store = new InMemoryStateStore();
    store.putUplinkCap(new StoredUplinkCap(StoredUplinkCap.EVERY_NODE, 2 * MIB, 0, AT));
    AtomicBoolean failing = new AtomicBoolean();
    AtomicBoolean failedOnce = new AtomicBoolean();
    StateStore flaky = failingCapReads(store, failing, failedOnce);
    LedgerFixture f = new LedgerFixture(temp, flaky);
    try (Ledger ledger = f.builder().build()) {
      ledger.start();
      assertEquals(2 * MIB, ledger.uplink().bytesPerSecond());

      failing.set(true);
      awaitEquals(1, () -> failedOnce.get() ? 1 : 0, "a read failed");
      assertEquals(2 * MIB, ledger.uplink().bytesPerSecond(), "kept while the reads fail");

      store.putUplinkCap(new StoredUplinkCap(StoredUplinkCap.EVERY_NODE, 4 * MIB, 0, AT));
      failing.set(false);
      awaitEquals(4 * MIB, () -> ledger.uplink().bytesPerSecond(), "followed once the reads succeed");
    }
  }

  @Test
  void aStoreThatKeepsNoCapsLeavesTheConfiguredCap() throws Exception {
    StateStore withoutCaps = withoutCapReads(new InMemoryStateStore());
    LedgerFixture f = new LedgerFixture(temp, withoutCaps);
    try (Ledger ledger = f.builder().uplink(Uplink.builder().bytesPerSecond(MIB).build()).build()) {
      ledger.start();
      assertEquals(MIB, ledger.uplink().bytesPerSecond());
      ledger.uplink(ledger.uplink().toBuilder().bytesPerSecond(2 * MIB).build());
      assertEquals(2 * MIB, ledger.uplink().bytesPerSecond());
    }
  }

  @Test
  void aTimetableDecidesTheConfiguredCapAsTheClockMovesAndAStoredCapStillGoesFirst() throws Exception {
    InMemoryStateStore store = new InMemoryStateStore();
    LedgerFixture f = new LedgerFixture(temp, store); // the ledger's clock: 2026-01-01T00:00:00Z
    UplinkTimetable table = UplinkTimetable.parse("08:00,1MiB 18:00,off", java.time.ZoneOffset.UTC);
    try (Ledger ledger = f.builder().nodeId("recorder-1")
        .uplink(Uplink.builder().bytesPerSecond(5 * MIB).timetable(table).build()).build()) {
      ledger.start();
      assertEquals(0, ledger.uplink().bytesPerSecond(), "midnight: the 18:00 entry (off), not bytesPerSecond");

      f.clock.set(Instant.parse("2026-01-01T08:00:00Z"));
      awaitEquals(MIB, () -> ledger.uplink().bytesPerSecond(), "the 08:00 entry");
      assertEquals(MIB, ledger.uplinkStats().settings().bytesPerSecond());

      store.putUplinkCap(new StoredUplinkCap("recorder-1", 3 * MIB, 0, AT));
      awaitEquals(3 * MIB, () -> ledger.uplink().bytesPerSecond(), "the stored cap over the timetable");
      f.clock.set(Instant.parse("2026-01-01T18:00:00Z"));
      store.removeUplinkCap("recorder-1");
      awaitEquals(0, () -> ledger.uplink().bytesPerSecond(), "removed: the timetable's 18:00 entry");
    }
  }

  /** Waits, at most {@link #FOLLOWS_WITHIN}, for {@code actual} to become {@code expected}. */
  private static void awaitEquals(long expected, LongSupplier actual, String what) throws InterruptedException {
    long deadline = System.nanoTime() + FOLLOWS_WITHIN.toNanos();
    while (actual.getAsLong() != expected && System.nanoTime() < deadline) {
      Thread.sleep(10);
    }
    assertEquals(expected, actual.getAsLong(), what + " within " + FOLLOWS_WITHIN);
  }

  /** {@code store}, whose reads of the caps fail while {@code failing} is set. */
  private static StateStore failingCapReads(StateStore store, AtomicBoolean failing, AtomicBoolean failed) {
    return forwarding(store, "uplinkCaps", () -> {
      if (failing.get()) {
        failed.set(true);
        throw new StoreException("the database is away", null);
      }
    });
  }

  /** {@code store}, as a store written before caps were stored. */
  private static StateStore withoutCapReads(StateStore store) {
    return forwarding(store, "uplinkCaps", () -> {
      throw new UnsupportedOperationException("keeps no uplink caps");
    });
  }

  private static StateStore forwarding(StateStore store, String method, Runnable before) {
    return (StateStore) Proxy.newProxyInstance(StateStore.class.getClassLoader(), new Class<?>[] {StateStore.class},
        (proxy, called, args) -> {
          if (called.getName().equals(method)) {
            before.run();
          }
          try {
            return called.invoke(store, args);
          } catch (InvocationTargetException e) {
            throw e.getCause();
          }
        });
  }
}
