package dev.segmentledger.engine;

import static org.junit.jupiter.api.Assertions.assertEquals;

import ch.qos.logback.classic.Level;
import ch.qos.logback.classic.Logger;
import ch.qos.logback.classic.spi.ILoggingEvent;
import ch.qos.logback.core.read.ListAppender;
import dev.segmentledger.core.ItemId;
import dev.segmentledger.core.ItemState;
import dev.segmentledger.core.ManualLedger;
import dev.segmentledger.core.spi.StateStore;
import dev.segmentledger.testkit.InMemoryStateStore;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Proxy;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Optional;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.slf4j.LoggerFactory;

/**
 * The skew between a node's clock and its store's is measured about every 30 s and reported in the
 * stats; a skew beyond a tenth of the lease is logged as a warning once when it crosses the
 * threshold, not at every measure, and again only after it came back within half of it.
 */
class ClockSkewTest {
  @TempDir Path temp;

  private final ListAppender<ILoggingEvent> logs = new ListAppender<>();
  private final Logger storeClockLog = (Logger) LoggerFactory.getLogger("dev.segmentledger.core.internal.StoreClock");

  @BeforeEach
  void capture() {
    logs.start();
    storeClockLog.addAppender(logs);
  }

  @AfterEach
  void release() {
    storeClockLog.detachAppender(logs);
  }

  private long lines(Level level) {
    return logs.list.stream().filter(e -> e.getLevel() == level).count();
  }

  @Test
  void aSkewBeyondTheThresholdIsReportedAndWarnedOfOncePerCrossing() {
    AtomicReference<Duration> ahead = new AtomicReference<>(Duration.ZERO);
    InMemoryStateStore rows = new InMemoryStateStore();
    LedgerFixture[] fixture = new LedgerFixture[1];
    StateStore store = (StateStore) Proxy.newProxyInstance(StateStore.class.getClassLoader(),
        new Class<?>[] {StateStore.class}, (proxy, method, args) -> {
          if (method.getName().equals("currentTime")) { // the store's clock, behind the node's by "ahead"
            return Optional.of(fixture[0].clock.instant().minus(ahead.get()));
          }
          try {
            return method.invoke(rows, args);
          } catch (InvocationTargetException e) {
            throw e.getCause();
          }
        });
    LedgerFixture f = new LedgerFixture(temp, store);
    fixture[0] = f;
    ManualLedger ledger = f.builder().leaseDuration(Duration.ofSeconds(60)).buildManual(); // warns beyond 6 s

    ledger.sweepRound();
    assertEquals(Duration.ZERO, ledger.stats().clockSkew());
    ahead.set(Duration.ofSeconds(20));
    for (int i = 0; i < 4; i++) {
      f.clock.advance(Duration.ofSeconds(30));
      ledger.sweepRound();
    }
    assertEquals(Duration.ofSeconds(20), ledger.stats().clockSkew());
    assertEquals(1, lines(Level.WARN), "one warning for four measures beyond the threshold");

    ahead.set(Duration.ofSeconds(-5)); // within the threshold, but not yet within half of it
    f.clock.advance(Duration.ofSeconds(30));
    ledger.sweepRound();
    assertEquals(Duration.ofSeconds(-5), ledger.stats().clockSkew());
    assertEquals(0, lines(Level.INFO));
    ahead.set(Duration.ofSeconds(1));
    f.clock.advance(Duration.ofSeconds(30));
    ledger.sweepRound();
    assertEquals(1, lines(Level.INFO), "back within half the threshold");

    ahead.set(Duration.ofSeconds(-20));
    f.clock.advance(Duration.ofSeconds(30));
    ledger.sweepRound();
    assertEquals(2, lines(Level.WARN), "a new crossing, behind");
    assertEquals(Duration.ofSeconds(-20), ledger.stats().clockSkew());
  }

  @Test
  void aRowRegisteredWithoutALeaseOnANodeWhoseClockRunsAheadIsDueForTheSweepAtOnce() throws Exception {
    InMemoryStateStore rows = new InMemoryStateStore();
    LedgerFixture[] fixture = new LedgerFixture[1];
    StateStore store = (StateStore) Proxy.newProxyInstance(StateStore.class.getClassLoader(),
        new Class<?>[] {StateStore.class}, (proxy, method, args) -> {
          if (method.getName().equals("currentTime")) { // the store's clock, an hour behind the node's
            return Optional.of(fixture[0].clock.instant().minus(Duration.ofHours(1)));
          }
          try {
            return method.invoke(rows, args);
          } catch (InvocationTargetException e) {
            throw e.getCause();
          }
        });
    LedgerFixture f = new LedgerFixture(temp, store);
    fixture[0] = f;
    ManualLedger ledger = f.builder().queueCapacity(1).buildManual();
    ledger.start(); // measures the skew
    ItemId leased = ItemId.original("b1", "720p", 0);
    ItemId unleased = ItemId.original("b1", "720p", 1); // the queue is full: left to the sweep
    ledger.register(leased, f.record(leased));
    ledger.register(unleased, f.record(unleased));
    ledger.drainQueue();

    ledger.sweepRound();
    ledger.drainQueue();

    assertEquals(ItemState.CONFIRMED, rows.find(unleased).orElseThrow().state(),
        "registered due at the node's time, an hour after the store's: the sweep does not find it due");
  }
}
