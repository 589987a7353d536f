package dev.segmentledger.engine;

import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.segmentledger.core.spi.RepackageException;
import dev.segmentledger.core.spi.RepackagedFile;
import dev.segmentledger.core.spi.Repackager;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Optional;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The builder refuses long-work settings that cannot work and says why. */
class LongWorkSettingsTest {
  @TempDir Path temp;

  @Test
  void aStallTimeoutShorterThanTwoHeartbeatsIsRefused() {
    LedgerFixture f = new LedgerFixture(temp);
    IllegalStateException refused = assertThrows(IllegalStateException.class,
        () -> f.builder().leaseDuration(Duration.ofMinutes(2)).stallTimeout(Duration.ofMillis(1500)).buildManual());
    assertTrue(refused.getMessage().contains("shorter than two heartbeats (PT2S"), refused.getMessage());
  }

  @Test
  void zeroOrNegativeSettingsAreRefusedByName() {
    LedgerFixture f = new LedgerFixture(temp);
    IllegalArgumentException stall = assertThrows(IllegalArgumentException.class,
        () -> f.builder().stallTimeout(Duration.ZERO));
    assertTrue(stall.getMessage().contains("stallTimeout"), stall.getMessage());
    IllegalArgumentException errors = assertThrows(IllegalArgumentException.class,
        () -> f.builder().maxErrorAttempts(0));
    assertTrue(errors.getMessage().contains("maxErrorAttempts"), errors.getMessage());
  }

  @Test
  void aRepackagerTimeoutLongerThanTheStallTimeoutIsAcceptedWithAWarning() {
    LedgerFixture f = new LedgerFixture(temp);
    Repackager slow = new Repackager() {
      @Override
      public RepackagedFile init(Path original, Path target) throws RepackageException {
        throw new RepackageException("unused");
      }

      @Override
      public RepackagedFile segment(Path original, long sequence, Path target) throws RepackageException {
        throw new RepackageException("unused");
      }

      @Override
      public Optional<Duration> timeout() {
        return Optional.of(Duration.ofMinutes(10));
      }
    };
    f.builder().repackager(slow, f.root.resolve("playback")).stallTimeout(Duration.ofMinutes(1)).buildManual().close();
  }
}
