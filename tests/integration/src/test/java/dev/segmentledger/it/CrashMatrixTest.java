package dev.segmentledger.it;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.segmentledger.core.Axis;
import dev.segmentledger.core.ItemId;
import dev.segmentledger.core.ItemState;
import dev.segmentledger.core.Ledger;
import dev.segmentledger.core.LedgerBuilder;
import dev.segmentledger.core.LedgerItem;
import dev.segmentledger.jdbi.JdbiStateStore;
import dev.segmentledger.testkit.ConsistencyAssertions;
import dev.segmentledger.testkit.DirectoryObjectSink;
import dev.segmentledger.testkit.FakeRepackager;
import dev.segmentledger.testkit.LedgerEvents;
import dev.segmentledger.testkit.PostgresExtension;
import dev.segmentledger.testkit.crash.ChildJvm;
import dev.segmentledger.testkit.crash.CrashPoint;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Stream;
import org.jdbi.v3.core.Jdbi;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * The crash matrix: a recorder in a child JVM is killed with SIGKILL at every crash point of
 * every axis it applies to; a new process (this one) restarts on the same database and bucket,
 * re-registers what the recorder had (as a restarted recorder does), and must converge: every
 * row confirmed, none lost or doubled, every confirmed row with its object and every object with
 * its confirmed row, per axis.
 *
 * <p>The recovery alternates, run after run, between restarting the same node and recovering on
 * another one, and neighbouring points and axes start on opposite paths. {@code ./mvnw verify} runs
 * one run per point and axis, so both paths are killed across the matrix while it stays within its
 * time budget; the long profile ({@code -Plong}, tests/README.md) runs the matrix the acceptance
 * protocol describes, {@code -Dsegmentledger.crash.runs=5}, both paths at every point (about 6
 * minutes on 2 cores).
 */
@Tag("soak")
class CrashMatrixTest {
  @RegisterExtension static final PostgresExtension PG = PostgresExtension.create();
  private static final int SEGMENTS = 4;
  private static final int RUNS = Integer.getInteger("segmentledger.crash.runs", 1);
  private static JdbiStateStore store;

  @TempDir Path temp;

  @BeforeAll
  static void migrate() {
    store = JdbiStateStore.create(Jdbi.create(PG.dataSource())).migrate();
  }

  static Stream<Arguments> pointsAndAxes() {
    List<Arguments> cases = new ArrayList<>();
    for (CrashPoint point : CrashPoint.values()) {
      for (Axis axis : Axis.values()) {
        if (point.appliesTo(axis)) {
          for (int run = 1; run <= RUNS; run++) {
            cases.add(Arguments.of(point, axis, run));
          }
        }
      }
    }
    return cases.stream();
  }

  @ParameterizedTest(name = "SIGKILL at {0} on {1}, run {2}")
  @MethodSource("pointsAndAxes")
  void aProcessKilledAtAnyPointLosesNothing(CrashPoint point, Axis axis, int run) throws Exception {
    Path root = Files.createDirectories(temp.resolve("root")).toRealPath();
    Path bucketDir = Files.createDirectories(temp.resolve("bucket"));
    String broadcast = ("k" + point.ordinal() + axis.ordinal() + run + "-" + Long.toString(System.nanoTime(), 36));

    try (ChildJvm recorder = ChildJvm.start(CrashingRecorder.class, ChildDatabase.args(PG, root.toString(),
        bucketDir.toString(), broadcast, String.valueOf(SEGMENTS), point.name(), axis.name()), ChildJvm.SHORT_LIVED)) {
      String marker = recorder.awaitCrashPoint(Duration.ofSeconds(60));
      assertTrue(marker.contains(point.name()), marker);
      recorder.killHard();
    }

    DirectoryObjectSink bucket = new DirectoryObjectSink(bucketDir);
    LedgerEvents events = new LedgerEvents();
    // One parity restarts the same node (it takes its leases back at once), the other recovers on
    // another node, which waits for the dead node's leases to expire.
    LedgerBuilder recovery = Wiring.ledger(store, bucket, root, new FakeRepackager(), events);
    if ((run + point.ordinal() + axis.ordinal()) % 2 == 1) {
      recovery.nodeId(CrashingRecorder.nodeIdFor(broadcast));
    }
    try (Ledger restarted = recovery.build()) {
      restarted.start();
      for (int i = 0; i < SEGMENTS; i++) {
        ItemId id = ItemId.original(broadcast, "720p", i);
        restarted.register(id, Wiring.record(root, id));
      }
      // Converged: every row confirmed, and no produced file left on the disk (AFTER_CONFIRM on a
      // PLAYBACK or INIT row is the kill between its confirm and the deletion of its file).
      events.awaitUntil(broadcast + " converged", () -> store.findByBroadcast(broadcast).stream()
          .allMatch(row -> row.state() == ItemState.CONFIRMED && (row.originPath() == null
              || !Files.exists(Path.of(row.sourcePath()), LinkOption.NOFOLLOW_LINKS))), Duration.ofSeconds(60));
    }
    List<LedgerItem> rows = store.findByBroadcast(broadcast);
    assertEquals(SEGMENTS, rows.stream().filter(r -> r.id().axis() == Axis.ORIGINAL).count(), "originals");
    assertEquals(SEGMENTS, rows.stream().filter(r -> r.id().axis() == Axis.PLAYBACK).count(), "playback");
    assertEquals(1, rows.stream().filter(r -> r.id().axis() == Axis.INIT).count(), "init");
    ConsistencyAssertions.assertConsistent(store, bucket, broadcast);
  }
}
