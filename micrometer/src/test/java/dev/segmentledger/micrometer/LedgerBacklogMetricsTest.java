package dev.segmentledger.micrometer;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.segmentledger.core.ItemId;
import dev.segmentledger.core.Ledger;
import dev.segmentledger.core.ManualLedger;
import dev.segmentledger.core.query.Backlog;
import dev.segmentledger.testkit.FakeObjectSink;
import dev.segmentledger.testkit.InMemoryStateStore;
import dev.segmentledger.testkit.SettableClock;
import dev.segmentledger.testkit.SinkFault;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class LedgerBacklogMetricsTest {
  @TempDir Path temp;

  @Test
  void gaugesShowTheCachedBacklogAndReadingThemNeverQueries() throws Exception {
    Path root = Files.createDirectories(temp.resolve("rec"));
    SettableClock clock = SettableClock.atFixedStart();
    FakeObjectSink sink = new FakeObjectSink();
    ManualLedger ledger = Ledger.builder()
        .stateStore(new InMemoryStateStore())
        .objectSink(sink)
        .allowedRoot(root)
        .clock(clock)
        .buildManual();
    AtomicInteger queries = new AtomicInteger();
    LedgerBacklogMetrics backlog = LedgerBacklogMetrics.create(() -> {
      queries.incrementAndGet();
      return ledger.backlog();
    }, clock, Duration.ofSeconds(30));
    SimpleMeterRegistry registry = new SimpleMeterRegistry();
    backlog.bindTo(registry);

    assertTrue(Double.isNaN(gauge(registry, "segment.ledger.backlog.unconfirmed", "original")), "not read yet");

    sink.failNext(ItemId.original("b1", "720p", 1).objectKey(), SinkFault.failRetryable());
    for (int i = 0; i < 3; i++) {
      ledger.register(ItemId.original("b1", "720p", i), Files.writeString(root.resolve(i + ".ts"), "segment " + i));
    }
    clock.advance(Duration.ofSeconds(5));
    ledger.drainQueue();
    for (int i = 3; i < 5; i++) {
      ledger.register(ItemId.original("b1", "720p", i), Files.writeString(root.resolve(i + ".ts"), "segment " + i));
    }
    Backlog read = backlog.refresh();
    clock.advance(Duration.ofSeconds(10));

    assertEquals(1, queries.get());
    assertEquals(3, read.axis(dev.segmentledger.core.Axis.ORIGINAL).unconfirmed(), "one failed, two queued");
    assertEquals(3, gauge(registry, "segment.ledger.backlog.unconfirmed", "original"));
    assertEquals(1, gauge(registry, "segment.ledger.backlog.in.backoff", "original"));
    assertEquals(0, gauge(registry, "segment.ledger.backlog.waiting.for.init", "original"));
    assertEquals(0, gauge(registry, "segment.ledger.backlog.unconfirmed", "playback"));
    assertEquals("segment 1".length() + "segment 3".length() + "segment 4".length(),
        gauge(registry, "segment.ledger.backlog.bytes", "original"), "the bytes still to upload");
    assertEquals(15, registry.get("segment.ledger.backlog.oldest.age").tag("axis", "original").timeGauge()
        .value(TimeUnit.SECONDS), 0.001, "the failed row, registered 15 s ago on the injected clock");
    assertEquals(10, registry.get("segment.ledger.backlog.staleness").timeGauge().value(TimeUnit.SECONDS), 0.001);
    for (int i = 0; i < 5; i++) {
      registry.getMeters().forEach(m -> registry.get(m.getId().getName()));
      gauge(registry, "segment.ledger.backlog.unconfirmed", "init");
    }
    assertEquals(1, queries.get(), "gauge reads never query");

    ledger.drainQueue();
    backlog.refresh();
    assertEquals(1, gauge(registry, "segment.ledger.backlog.unconfirmed", "original"), "the failed row in backoff");
    assertEquals(3, backlog.latest().orElseThrow().previous().unconfirmed());
  }

  @Test
  void theRefresherReadsOnItsIntervalAndStopsOnClose() throws Exception {
    AtomicInteger queries = new AtomicInteger();
    SettableClock clock = SettableClock.atFixedStart();
    try (LedgerBacklogMetrics backlog = LedgerBacklogMetrics.create(() -> {
      queries.incrementAndGet();
      return new Backlog(clock.instant(), java.util.Map.of());
    }, clock, Duration.ofMillis(20)).start()) {
      long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
      while (queries.get() < 3 && System.nanoTime() < deadline) {
        Thread.sleep(10);
      }
      assertTrue(queries.get() >= 3, "refreshed " + queries.get() + " times");
      assertTrue(backlog.latest().isPresent());
    }
    int after = queries.get();
    Thread.sleep(100);
    assertTrue(queries.get() <= after + 1, "stopped");
  }

  private static double gauge(SimpleMeterRegistry registry, String name, String axis) {
    return registry.get(name).tag("axis", axis).gauge().value();
  }
}
