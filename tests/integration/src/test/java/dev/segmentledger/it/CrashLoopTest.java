package dev.segmentledger.it;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.segmentledger.core.Axis;
import dev.segmentledger.core.ItemId;
import dev.segmentledger.core.ItemState;
import dev.segmentledger.core.Ledger;
import dev.segmentledger.core.LedgerBuilder;
import dev.segmentledger.core.LedgerItem;
import dev.segmentledger.core.Reason;
import dev.segmentledger.jdbi.JdbiStateStore;
import dev.segmentledger.testkit.DirectoryObjectSink;
import dev.segmentledger.testkit.FakeRepackager;
import dev.segmentledger.testkit.LedgerEvents;
import dev.segmentledger.testkit.PostgresExtension;
import dev.segmentledger.testkit.crash.ChildJvm;
import dev.segmentledger.testkit.crash.CrashHooks;
import dev.segmentledger.testkit.crash.CrashPoint;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import org.jdbi.v3.core.Jdbi;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

/**
 * An item whose upload kills the process every time: a recorder (child JVM, {@link
 * CrashingRecorder}, always under the same node id, as a supervisor restarts it) is SIGKILLed in
 * the middle of the PUT of the same original, again and again. Each death is an attempt that ended
 * without an outcome, counted when the next life takes the row over (except the first death,
 * under the lease taken at registration, which may only have covered a wait in the queue). The
 * first two counted deaths happen beside other work (the rendition's INIT) and make the row a
 * suspect without blaming it; from then on it is uploaded alone in its process, each death there
 * is blamed on it and backs off, and after {@link LedgerBuilder#DEFAULT_MAX_ABANDONED_ATTEMPTS}
 * blamed deaths the row is rejected with {@link Reason#REPEATEDLY_ABANDONED} (no identical object is
 * stored: every death came during its PUT), so that the next life finishes instead of dying
 * again. The INIT, in flight beside it in the first lives, is never charged with those deaths.
 * Re-opened, the row is uploaded by a process without the fault.
 */
@Tag("long") // an end-to-end scenario of 20 s or more: the long profile runs it (tests/README.md)
class CrashLoopTest {
  @RegisterExtension static final PostgresExtension PG = PostgresExtension.create();

  @TempDir Path temp;

  @Test
  void anItemThatKillsItsProcessEveryTimeEndsRejectedAfterTheLimit() throws Exception {
    JdbiStateStore store = JdbiStateStore.create(Jdbi.create(PG.dataSource())).migrate();
    Path root = Files.createDirectories(temp.resolve("root")).toRealPath();
    Path bucketDir = Files.createDirectories(temp.resolve("bucket"));
    String broadcast = "loop-" + Long.toString(System.nanoTime(), 36);
    ItemId poison = ItemId.original(broadcast, "720p", 0);

    int kills = 0;
    boolean finished = false;
    int max = LedgerBuilder.DEFAULT_MAX_ABANDONED_ATTEMPTS;
    int suspectAfter = 2; // deaths without progress beside other work before the row runs alone
    for (int life = 0; life < max + suspectAfter + 3 && !finished; life++) {
      int register = life == 0 ? 1 : 0; // the first life registers the item; the others only recover it
      try (ChildJvm recorder = ChildJvm.start(CrashingRecorder.class, ChildDatabase.args(PG, root.toString(),
          bucketDir.toString(), broadcast, String.valueOf(register), CrashPoint.DURING_PUT_BODY.name(),
          Axis.ORIGINAL.name(), "0", "1"))) {
        String line = recorder.awaitLine(l -> l.startsWith(CrashHooks.MARKER) || l.equals(CrashingRecorder.DONE),
            Duration.ofSeconds(90));
        if (line.startsWith(CrashHooks.MARKER)) {
          recorder.killHard();
          kills++;
          LedgerItem row = store.find(poison).orElseThrow();
          assertEquals(ItemState.PENDING, row.state(), "killed during its PUT");
        } else {
          assertEquals(0, recorder.awaitExit(Duration.ofSeconds(30)));
          finished = true;
        }
      }
    }

    LedgerItem rejected = store.find(poison).orElseThrow();
    assertTrue(finished, "a life finished instead of dying on the same item again");
    // Every death after a claim is counted; the first life's only if its worker's heartbeat turned
    // the lease taken at registration into an attempt's before the kill, which depends on timing.
    assertTrue(kills == max + suspectAfter || kills == max + suspectAfter + 1,
        kills + " deaths, expected " + (max + suspectAfter) + " or " + (max + suspectAfter + 1));
    assertEquals(ItemState.REJECTED, rejected.state());
    assertEquals(Reason.REPEATEDLY_ABANDONED, rejected.reason(), rejected.lastError());
    assertTrue(rejected.attempts() == kills || rejected.attempts() == kills - 1, "every counted death is an attempt");
    // The rendition's INIT was produced and uploaded beside the poisonous original in every life:
    // isolating suspects keeps it from being charged with the same deaths.
    for (LedgerItem row : store.findByBroadcast(broadcast)) {
      if (!row.id().equals(poison)) {
        assertEquals(ItemState.CONFIRMED, row.state(), () -> row.id() + " was charged with the poison's deaths: "
            + row.reason() + " " + row.lastError());
      }
    }

    // The cause is fixed (no crash hooks): an operator re-opens the row and it is uploaded.
    DirectoryObjectSink bucket = new DirectoryObjectSink(bucketDir);
    LedgerEvents events = new LedgerEvents();
    try (Ledger fixed = Wiring.ledger(store, bucket, root, new FakeRepackager(), events)
        .nodeId(CrashingRecorder.nodeIdFor(broadcast)).build()) {
      fixed.start();
      assertTrue(fixed.reopen(poison));
      events.awaitUntil("the re-opened row is confirmed",
          () -> store.find(poison).orElseThrow().state() == ItemState.CONFIRMED, Duration.ofSeconds(30));
    }
  }
}
