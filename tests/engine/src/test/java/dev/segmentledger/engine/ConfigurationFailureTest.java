package dev.segmentledger.engine;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import ch.qos.logback.classic.Level;
import ch.qos.logback.classic.Logger;
import ch.qos.logback.classic.spi.ILoggingEvent;
import ch.qos.logback.core.read.ListAppender;
import dev.segmentledger.core.Axis;
import dev.segmentledger.core.Backoff;
import dev.segmentledger.core.CircuitState;
import dev.segmentledger.core.ItemId;
import dev.segmentledger.core.ItemState;
import dev.segmentledger.core.Ledger;
import dev.segmentledger.core.LedgerItem;
import dev.segmentledger.core.LedgerListener;
import dev.segmentledger.core.Reason;
import dev.segmentledger.testkit.ConsistencyAssertions;
import dev.segmentledger.testkit.LedgerEvents;
import dev.segmentledger.testkit.SinkFault;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.slf4j.LoggerFactory;

/**
 * A sink whose configuration is refused: no row is rejected, the breaker opens,
 * and its cause is logged and reported once per opening, not once per row.
 */
class ConfigurationFailureTest {
  @TempDir Path temp;

  @Test
  void aConfigurationRefusalOpensTheBreakerRejectsNothingAndNamesTheCauseOncePerOpening() throws Exception {
    LedgerFixture f = new LedgerFixture(temp);
    int items = 40;
    List<CircuitState> transitions = new CopyOnWriteArrayList<>();
    List<String> causes = new CopyOnWriteArrayList<>();
    AtomicInteger rowFailures = new AtomicInteger();
    AtomicInteger confirmed = new AtomicInteger();
    LedgerEvents events = new LedgerEvents();
    LedgerListener listener = new LedgerListener() {
      @Override
      public void onCircuitStateChanged(CircuitState state) {
        transitions.add(state);
      }

      @Override
      public void onCircuitOpened(Reason reason, String detail) {
        causes.add(reason + " " + detail);
      }

      @Override
      public void onFailed(LedgerItem item, Reason reason, String detail, boolean terminal) {
        assertEquals(Reason.SINK_CONFIGURATION, reason);
        assertTrue(!terminal, "a configuration refusal is never terminal");
        rowFailures.incrementAndGet();
      }

      @Override
      public void onConfirmed(LedgerItem item) {
        confirmed.incrementAndGet();
      }
    };
    ListAppender<ILoggingEvent> logs = new ListAppender<>();
    Logger root = (Logger) LoggerFactory.getLogger(org.slf4j.Logger.ROOT_LOGGER_NAME);
    logs.start();
    root.addAppender(logs);
    f.sink.startOutage(SinkFault.failConfiguration());
    try (Ledger ledger = f.builder()
        .clock(Clock.systemUTC())
        .backoff(new Backoff(Duration.ofMillis(50), Duration.ofMillis(200), 2.0, 0.2))
        .circuitBreaker(3, Duration.ofMillis(300))
        .sweepInterval(Duration.ofMillis(20))
        .workers(4)
        .listener(listener)
        .listener(events)
        .build()) {
      ledger.start();
      for (int i = 0; i < items; i++) {
        ItemId id = ItemId.original("b1", "720p", i);
        ledger.register(id, f.record(id));
      }
      events.awaitUntil("the breaker re-opened after a failed probe",
          () -> transitions.stream().filter(s -> s == CircuitState.OPEN).count() >= 2, Duration.ofSeconds(20));

      assertEquals(0, f.store.count(Axis.ORIGINAL, ItemState.REJECTED), "no row rejected for the sink's configuration");
      assertEquals(items, f.store.count(Axis.ORIGINAL, ItemState.PENDING));
      // Each opening adds its transition, then its cause: read the causes first, so that an opening
      // while the two are read cannot make the counts disagree.
      List<String> causesSeen = List.copyOf(causes);
      long openings = transitions.stream().filter(s -> s == CircuitState.OPEN).count();
      assertTrue(causesSeen.size() >= openings - 1 && causesSeen.size() <= openings, causesSeen + " vs " + transitions);
      assertTrue(causes.stream().allMatch(c -> c.startsWith("SINK_CONFIGURATION injected configuration failure")),
          causes::toString);
      assertTrue(rowFailures.get() < items, "rows are not all attempted while the breaker is open: " + rowFailures);

      f.sink.endOutage();
      events.awaitUntil("every row confirmed", () -> confirmed.get() == items, Duration.ofSeconds(30));
    } finally {
      root.detachAppender(logs);
    }
    assertEquals(items, f.store.count(Axis.ORIGINAL, ItemState.CONFIRMED));
    ConsistencyAssertions.assertConsistent(f.store, f.sink, "b1");

    List<ILoggingEvent> causeLines = logs.list.stream()
        .filter(e -> e.getFormattedMessage().contains("injected configuration failure"))
        .filter(e -> e.getLevel().isGreaterOrEqual(Level.INFO))
        .toList();
    long openings = transitions.stream().filter(s -> s == CircuitState.OPEN).count();
    assertEquals(openings, causeLines.size(), "one line at INFO or above per opening, none per row: " + causeLines);
    assertTrue(causeLines.stream().allMatch(e -> e.getLevel() == Level.WARN
        && e.getFormattedMessage().startsWith("circuit breaker OPEN after SINK_CONFIGURATION")), causeLines::toString);
  }
}
