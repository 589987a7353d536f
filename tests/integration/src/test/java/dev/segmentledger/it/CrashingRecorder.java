package dev.segmentledger.it;

import dev.segmentledger.core.Axis;
import dev.segmentledger.core.ItemId;
import dev.segmentledger.core.Ledger;
import dev.segmentledger.core.spi.ObjectSink;
import dev.segmentledger.core.spi.PlaylistRecord;
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
 * its ledger upload them (and recover any earlier unconfirmed row of the broadcast), with crash
 * hooks armed at one point. Run in a child JVM; it prints the crash marker and parks there until
 * the parent kills it with SIGKILL. If the point is never reached it prints {@code ALL-CONFIRMED}
 * once every row of the broadcast is terminal and none of its playlists awaits publication, and
 * exits 0.
 *
 * <p>Arguments: jdbcUrl user password root bucket broadcast count point axis [first [occurrence
 * [putLog]]] (the database's three: {@link ChildDatabase}; segments {@code first ..
 * first+count-1} are registered, default 0; the hook fires on the {@code occurrence}-th pass,
 * default 1; with {@code putLog}, every PUT is logged there by a {@link PutLog}).
 */
public final class CrashingRecorder {
  static final String DONE = "ALL-CONFIRMED";

  private CrashingRecorder() {}

  public static void main(String[] args) throws Exception {
    Jdbi jdbi = ChildDatabase.unpooled(args);
    Path root = Path.of(args[3]);
    DirectoryObjectSink bucket = new DirectoryObjectSink(Path.of(args[4]));
    String broadcast = args[5];
    int count = Integer.parseInt(args[6]);
    int first = args.length > 9 ? Integer.parseInt(args[9]) : 0;
    int occurrence = args.length > 10 ? Integer.parseInt(args[10]) : 1;
    ObjectSink sink = args.length > 11 ? new PutLog(bucket, Path.of(args[11])) : bucket;
    CrashHooks hooks = new CrashHooks(CrashPoint.valueOf(args[7]), Axis.valueOf(args[8]), occurrence,
        CrashMode.SIGKILL_FROM_PARENT);
    JdbiStateStore store = JdbiStateStore.create(jdbi);
    LedgerEvents events = new LedgerEvents();
    try (Ledger ledger = Wiring.ledger(hooks.wrap(store), hooks.wrap(sink), root, hooks.wrap(new FakeRepackager()),
        events).nodeId(nodeIdFor(broadcast)).listener(hooks.listener()).build()) {
      ledger.start();
      for (int i = first; i < first + count; i++) {
        ItemId id = ItemId.original(broadcast, "720p", i);
        ledger.register(id, Wiring.record(root, id));
      }
      events.awaitUntil("all confirmed and the playlists published", () -> store.findByBroadcast(broadcast).stream()
          .allMatch(row -> row.state().isTerminal()) && store.playlists().find(broadcast).stream()
          .noneMatch(PlaylistRecord::awaitingPublication), Duration.ofSeconds(60));
    }
    System.out.println(DONE);
  }

  /** The node id of the recorder of {@code broadcast}: a restart under it takes its leases back at once. */
  static String nodeIdFor(String broadcast) {
    return "recorder-" + broadcast;
  }
}
