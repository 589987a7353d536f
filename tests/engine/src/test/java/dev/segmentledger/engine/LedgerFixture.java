package dev.segmentledger.engine;

import dev.segmentledger.core.Backoff;
import dev.segmentledger.core.ItemId;
import dev.segmentledger.core.Ledger;
import dev.segmentledger.core.LedgerBuilder;
import dev.segmentledger.core.ManualLedger;
import dev.segmentledger.core.SweepReport;
import dev.segmentledger.core.spi.StateStore;
import dev.segmentledger.testkit.FakeObjectSink;
import dev.segmentledger.testkit.FakeRepackager;
import dev.segmentledger.testkit.InMemoryStateStore;
import dev.segmentledger.testkit.SettableClock;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;

/** Wiring shared by the ledger tests: a recordings root, a clock, a store, a sink, a repackager. */
final class LedgerFixture {
  static final Backoff ONE_SECOND = new Backoff(Duration.ofSeconds(1), Duration.ofSeconds(1), 1.0, 0.0);

  final Path root;
  final SettableClock clock = SettableClock.atFixedStart();
  final StateStore store;
  final FakeObjectSink sink = new FakeObjectSink();
  final FakeRepackager repackager = new FakeRepackager();

  LedgerFixture(Path temp) {
    this(temp, new InMemoryStateStore());
  }

  LedgerFixture(Path temp, StateStore store) {
    try {
      this.root = Files.createDirectories(temp.resolve("recordings"));
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    this.store = store;
  }

  LedgerBuilder builder() {
    return Ledger.builder().stateStore(store).objectSink(sink).allowedRoot(root).clock(clock).backoff(ONE_SECOND);
  }

  LedgerBuilder repackagingBuilder() {
    return builder().repackager(repackager, root.resolve("playback"));
  }

  ManualLedger manual() {
    return builder().buildManual();
  }

  /** Writes a recorded file under the root. */
  Path record(String name, String content) {
    try {
      Path file = root.resolve(name);
      Files.createDirectories(file.getParent());
      return Files.writeString(file, content, StandardCharsets.UTF_8);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  Path record(ItemId id) {
    return record(id.broadcastId() + "/" + id.rendition() + "/" + id.sequence() + ".ts", "bytes of " + id);
  }

  /** Sweeps and drains until a round finds nothing to accept; returns the rounds run. */
  static int settle(ManualLedger ledger) {
    int rounds = 0;
    for (int i = 0; i < 1_000; i++) {
      ledger.drainQueue();
      SweepReport report = ledger.sweepRound();
      rounds++;
      if (report.accepted() == 0 && ledger.queued() == 0) {
        return rounds;
      }
    }
    throw new AssertionError("the ledger did not settle in 1,000 rounds");
  }
}
