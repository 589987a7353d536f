package dev.segmentledger.engine;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.segmentledger.core.LedgerBuilder;
import dev.segmentledger.core.LedgerSettings;
import dev.segmentledger.core.ManualLedger;
import dev.segmentledger.core.spi.Tracing;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Optional;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** A ledger exposes the settings it was built with, by name, copied on build, with the derived values beside them. */
class LedgerSettingsTest {
  @TempDir Path temp;

  @Test
  void anUntouchedBuilderGivesTheDocumentedDefaults() {
    LedgerFixture f = new LedgerFixture(temp);
    try (ManualLedger ledger = f.builder().buildManual()) {
      LedgerSettings s = ledger.settings();
      assertSame(f.store, s.stateStore());
      assertSame(f.sink, s.objectSink());
      assertEquals(LedgerBuilder.DEFAULT_WORKERS, s.workers());
      assertEquals(LedgerBuilder.DEFAULT_QUEUE_CAPACITY, s.queueCapacity());
      assertEquals(LedgerBuilder.DEFAULT_LEASE, s.leaseDuration());
      assertEquals(LedgerBuilder.DEFAULT_STALL_TIMEOUT, s.stallTimeout());
      assertEquals(LedgerBuilder.DEFAULT_BREAKER_OPEN_DELAY, s.breakerOpenDelay());
      assertEquals(Optional.empty(), s.retention());
      assertEquals(Optional.empty(), s.repackager());
      assertFalse(s.publishPlaylists(), "no playlists without a repackager");
      assertSame(Tracing.NONE, s.tracing());
      assertFalse(s.nodeId().isBlank(), "a generated node id");
      assertEquals(Duration.ofSeconds(1), s.heartbeatInterval(), "a tenth of 2 minutes, at most 1 second");
      assertEquals(Duration.ofSeconds(12), s.clockSkewWarning());
      assertEquals(Optional.empty(), s.purgeInterval());
    }
  }

  @Test
  void theSettingsAreCopiedOnBuildSoTheBuilderMayBeReused() {
    LedgerFixture f = new LedgerFixture(temp);
    LedgerBuilder builder = f.builder().workers(2).leaseDuration(Duration.ofSeconds(5))
        .stallTimeout(Duration.ofSeconds(5)).retention(Duration.ofDays(2)).nodeId("node-a");
    try (ManualLedger first = builder.buildManual()) {
      builder.workers(7).nodeId("node-b").repackager(f.repackager, f.root.resolve("playback"));
      try (ManualLedger second = builder.buildManual()) {
        assertEquals(2, first.settings().workers());
        assertEquals("node-a", first.settings().nodeId());
        assertFalse(first.settings().repackaging());
        assertEquals(7, second.settings().workers());
        assertEquals("node-b", second.settings().nodeId());
        assertTrue(second.settings().publishPlaylists(), "published by default with a repackager");
      }
      assertEquals(Duration.ofMillis(500), first.settings().heartbeatInterval());
      assertEquals(Optional.of(Duration.ofHours(1)), first.settings().purgeInterval(), "a tenth of 2 days, at most 1 hour");
      assertTrue(first.settings().toString().contains("2 workers"), first.settings().toString());
    }
  }
}
