package dev.segmentledger.micrometer;

import static org.junit.jupiter.api.Assertions.assertEquals;

import dev.segmentledger.core.ItemId;
import dev.segmentledger.core.Ledger;
import dev.segmentledger.core.ManualLedger;
import dev.segmentledger.core.Uplink;
import dev.segmentledger.testkit.FakeObjectSink;
import dev.segmentledger.testkit.InMemoryStateStore;
import dev.segmentledger.testkit.SettableClock;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The uplink's meters show each lane's queue and the cap in force, a changed cap at once. */
class UplinkMetricsTest {
  @TempDir Path temp;

  @Test
  void metersShowTheLanesQueuesAndTheCapInForce() throws Exception {
    Path root = Files.createDirectories(temp.resolve("rec"));
    SettableClock clock = SettableClock.atFixedStart();
    try (ManualLedger ledger = Ledger.builder().stateStore(new InMemoryStateStore()).objectSink(new FakeObjectSink())
        .allowedRoot(root).clock(clock).uplink(Uplink.builder().bytesPerSecond(1_000_000).build()).buildManual()) {
      SimpleMeterRegistry registry = new SimpleMeterRegistry();
      UplinkMetrics.of(ledger).bindTo(registry);
      for (int i = 0; i < 3; i++) {
        ledger.register(ItemId.original("b1", "720p", i), Files.writeString(root.resolve(i + ".ts"), "segment " + i));
      }
      clock.advance(Duration.ofSeconds(7));

      assertEquals(3, registry.get("segment.ledger.lane.queued").tag("lane", "original").gauge().value());
      assertEquals(0, registry.get("segment.ledger.lane.queued").tag("lane", "live").gauge().value());
      assertEquals(7, registry.get("segment.ledger.lane.oldest.wait").tag("lane", "original").gauge().value());
      assertEquals(1_000_000, registry.get("segment.ledger.uplink.cap.bytes").gauge().value());

      ledger.drainQueue();
      ledger.uplink(ledger.uplink().toBuilder().bytesPerSecond(2_000_000).build());
      assertEquals(3, registry.get("segment.ledger.lane.taken").tag("lane", "original").functionCounter().count());
      assertEquals(2_000_000, registry.get("segment.ledger.uplink.cap.bytes").gauge().value());
      assertEquals(3 * "segment 0".length(),
          registry.get("segment.ledger.uplink.body.bytes").functionCounter().count());
    }
  }
}
