package dev.segmentledger.engine;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import ch.qos.logback.classic.Level;
import ch.qos.logback.classic.Logger;
import ch.qos.logback.classic.spi.ILoggingEvent;
import ch.qos.logback.core.read.ListAppender;
import dev.segmentledger.core.Axis;
import dev.segmentledger.core.ItemId;
import dev.segmentledger.core.ItemState;
import dev.segmentledger.core.ManualLedger;
import dev.segmentledger.testkit.SinkFault;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.slf4j.LoggerFactory;

/**
 * When S3 fails every upload at once, the log gets one line per reason and window, not one per
 * row (measured: while S3 flapped, the failures of the uploads in flight at each drop made 1.03
 * ledger log lines per second). A terminal failure, which is about its own row, always has its line.
 */
class FailureLogTest {
  @TempDir Path temp;

  private final ListAppender<ILoggingEvent> logs = new ListAppender<>();
  private final Logger failuresLog = (Logger) LoggerFactory.getLogger("dev.segmentledger.core.internal.Failures");
  private Level levelBefore;

  @BeforeEach
  void capture() {
    levelBefore = failuresLog.getLevel();
    failuresLog.setLevel(Level.DEBUG);
    logs.start();
    failuresLog.addAppender(logs);
  }

  @AfterEach
  void release() {
    failuresLog.detachAppender(logs);
    failuresLog.setLevel(levelBefore);
  }

  @Test
  void retriedFailuresOfOneReasonShareOneInfoLinePerWindowAndSayHowManyWereNotShown() throws Exception {
    LedgerFixture f = new LedgerFixture(temp);
    try (ManualLedger ledger = f.builder().circuitBreaker(1_000, Duration.ofSeconds(1)).buildManual()) {
      f.sink.startOutage(SinkFault.failRetryable());
      for (int i = 0; i < 10; i++) {
        ItemId id = ItemId.original("b1", "720p", i);
        ledger.register(id, f.record(id));
      }
      assertEquals(10, ledger.drainQueue());
      assertEquals(1, lines(Level.INFO, "failed on SINK_TRANSIENT").size(), "one line for ten failures");
      assertEquals(9, lines(Level.DEBUG, "failed on SINK_TRANSIENT").size(), "the others at DEBUG");

      f.clock.advance(Duration.ofSeconds(10)); // the window of Failures.LOG_WINDOW, and past the backoff
      ledger.sweepRound();
      assertEquals(10, ledger.drainQueue());
      List<String> info = lines(Level.INFO, "failed on SINK_TRANSIENT");
      assertEquals(2, info.size(), "one more line in the next window: " + info);
      assertTrue(info.get(1).contains("(and 9 more SINK_TRANSIENT failures logged at DEBUG since the last such line)"),
          info.get(1));
    }
  }

  @Test
  void everyTerminalFailureHasItsLine() throws Exception {
    LedgerFixture f = new LedgerFixture(temp);
    try (ManualLedger ledger = f.builder().buildManual()) {
      for (int i = 0; i < 3; i++) {
        ItemId id = ItemId.original("b1", "720p", i);
        Path file = f.record(id);
        ledger.register(id, file);
        Files.delete(file); // gone before its upload: terminal
      }
      assertEquals(3, ledger.drainQueue());
    }
    assertEquals(3, f.store.count(Axis.ORIGINAL, ItemState.REJECTED));
    assertEquals(3, lines(Level.INFO, "(terminal)").size(), levels("failed on").toString());
  }

  private List<String> levels(String containing) {
    return logs.list.stream().filter(e -> e.getFormattedMessage().contains(containing))
        .map(e -> e.getLevel().toString()).distinct().toList();
  }

  private List<String> lines(Level level, String containing) {
    return logs.list.stream().filter(e -> e.getLevel() == level && e.getFormattedMessage().contains(containing))
        .map(ILoggingEvent::getFormattedMessage).toList();
  }
}
