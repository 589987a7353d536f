package dev.segmentledger.core.internal;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.segmentledger.core.ItemId;
import dev.segmentledger.core.ItemState;
import dev.segmentledger.core.LedgerItem;
import dev.segmentledger.core.spi.LeaseRenewal;
import dev.segmentledger.core.spi.Repackager;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.time.Duration;
import java.time.Instant;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class AttemptTest {
  private static final Instant T0 = Instant.parse("2026-01-01T00:00:00Z");
  private static final LedgerItem ITEM = new LedgerItem(7, ItemId.original("b", "r", 1), "/x", null, 10, ItemState.PENDING, 0, null, null, T0, T0, null, null, null, null, null, null, null);

  @TempDir Path temp;

  private Attempt working() {
    Attempt attempt = new Attempt(ITEM, Thread.currentThread(), T0.plusSeconds(120), T0, () -> { },
        dev.segmentledger.core.spi.Tracing.Span.NONE);
    attempt.working(T0);
    return attempt;
  }

  @Test
  void bytesReadOrStoredAndTheGrowthOfTheRepackagersTemporaryFilesAreProgress() throws Exception {
    Attempt attempt = working();
    assertEquals(Duration.ofSeconds(1), attempt.idleFor(T0.plusSeconds(1)));
    attempt.moved(10);
    assertEquals(Duration.ZERO, attempt.idleFor(T0.plusSeconds(2)));
    assertEquals(Duration.ofSeconds(1), attempt.idleFor(T0.plusSeconds(3)));
    attempt.stored(5 << 20);
    assertEquals(Duration.ZERO, attempt.idleFor(T0.plusSeconds(4)));

    Path target = temp.resolve("init.mp4");
    attempt.watchOutput(target);
    Path partial = Repackager.createTemporaryBeside(target);
    assertEquals(Duration.ofSeconds(1), attempt.idleFor(T0.plusSeconds(5)), "an empty temporary is no progress");
    Files.writeString(partial, "i", StandardOpenOption.APPEND);
    assertEquals(Duration.ZERO, attempt.idleFor(T0.plusSeconds(6)));
    Files.writeString(temp.resolve("other.mp4"), "not a temporary of the target");
    assertEquals(Duration.ofSeconds(1), attempt.idleFor(T0.plusSeconds(7)));
  }

  @Test
  void aRenewalCarriesTheEvidenceAndIsDueWhenTheLeaseRunsLowOrEvidenceIsUnwritten() {
    Attempt attempt = working();
    Duration half = Duration.ofSeconds(60);
    assertEquals(null, attempt.renewalIfDue(T0.plusSeconds(10), half, T0.plusSeconds(130)));
    attempt.stored(8);
    LeaseRenewal withProgress = attempt.renewalIfDue(T0.plusSeconds(11), half, T0.plusSeconds(131));
    assertEquals(8, withProgress.storedBytes());
    attempt.renewed(withProgress, withProgress.leaseUntil());
    assertEquals(null, attempt.renewalIfDue(T0.plusSeconds(12), half, T0.plusSeconds(132)), "written");
    LeaseRenewal low = attempt.renewalIfDue(T0.plusSeconds(80), half, T0.plusSeconds(200));
    assertEquals(T0.plusSeconds(131), low.heldUntil(), "the lease as the last renewal left it");
    attempt.isolate();
    assertTrue(attempt.renewal(T0.plusSeconds(200)).isolated());
  }

  @Test
  void aCancellationInterruptsTheWorkerAndClosesWhatItRegisteredOnceAndNeverAfterTheHandOver() {
    Attempt attempt = working();
    boolean[] closed = {false};
    attempt.closeOnCancel(() -> closed[0] = true);
    assertTrue(attempt.cancel());
    assertTrue(closed[0]);
    assertTrue(Thread.interrupted(), "the worker (this thread) was interrupted");
    assertFalse(attempt.cancel(), "once");

    Attempt handedOver = working();
    handedOver.handOver();
    assertFalse(handedOver.cancel());
    assertFalse(Thread.interrupted());
  }
}
