package dev.segmentledger.it;

import dev.segmentledger.core.Axis;
import dev.segmentledger.core.ItemId;
import dev.segmentledger.core.Ledger;
import dev.segmentledger.jdbi.JdbiStateStore;
import dev.segmentledger.testkit.DirectoryObjectSink;
import dev.segmentledger.testkit.FakeRepackager;
import dev.segmentledger.testkit.LedgerEvents;
import dev.segmentledger.testkit.crash.CrashHooks;
import dev.segmentledger.testkit.crash.CrashMode;
import dev.segmentledger.testkit.crash.CrashPoint;
import java.nio.file.Path;
import java.time.Duration;
import org.jdbi.v3.core.Jdbi;

/**
 * A recorder process for crash tests: registers {@code count} segments of one broadcast and lets
 * its ledger upload them, with crash hooks armed at one point. Run in a child JVM; it prints the
 * crash marker and parks there until the parent kills it with SIGKILL. If the point is never
 * reached it prints {@code ALL-CONFIRMED} and exits 0.
 *
 * <p>Arguments: jdbcUrl user password root bucket broadcast count point axis (user and password
 * empty when the URL carries them).
 */
public final class CrashingRecorder {
  static final String DONE = "ALL-CONFIRMED";

  private CrashingRecorder() {}

  public static void main(String[] args) throws Exception {
    Jdbi jdbi = args[1].isEmpty() ? Jdbi.create(args[0]) : Jdbi.create(args[0], args[1], args[2]);
    Path root = Path.of(args[3]);
    DirectoryObjectSink bucket = new DirectoryObjectSink(Path.of(args[4]));
    String broadcast = args[5];
    int count = Integer.parseInt(args[6]);
    CrashHooks hooks = new CrashHooks(CrashPoint.valueOf(args[7]), Axis.valueOf(args[8]), 1,
        CrashMode.SIGKILL_FROM_PARENT);
    JdbiStateStore store = JdbiStateStore.create(jdbi);
    LedgerEvents events = new LedgerEvents();
    try (Ledger ledger = Wiring.ledger(hooks.wrap(store), hooks.wrap(bucket), root, hooks.wrap(new FakeRepackager()),
        events).listener(hooks.listener()).build()) {
      ledger.start();
      for (int i = 0; i < count; i++) {
        ItemId id = ItemId.original(broadcast, "720p", i);
        ledger.register(id, Wiring.record(root, id));
      }
      events.awaitUntil("all confirmed", () -> store.findByBroadcast(broadcast).stream()
          .allMatch(row -> row.state().isTerminal()), Duration.ofSeconds(60));
    }
    System.out.println(DONE);
  }
}
