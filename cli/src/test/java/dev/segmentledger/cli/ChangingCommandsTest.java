package dev.segmentledger.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.segmentledger.core.ItemId;
import dev.segmentledger.core.ItemState;
import dev.segmentledger.core.LedgerItem;
import dev.segmentledger.core.Reason;
import dev.segmentledger.core.spi.NewItem;
import dev.segmentledger.jdbi.JdbiStateStore;
import dev.segmentledger.testkit.PostgresExtension;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import org.jdbi.v3.core.Jdbi;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * The commands that change rows, on PostgreSQL: without {@code --yes} each shows what it would do
 * and changes nothing; with it, each acts, and {@code storage-group --lost} leaves a row under a
 * live lease alone and says so.
 */
class ChangingCommandsTest {
  @RegisterExtension static final PostgresExtension PG = PostgresExtension.create();
  private static JdbiStateStore store;

  private final Clock clock = Clock.systemUTC();
  private final StringWriter out = new StringWriter();
  private final StringWriter err = new StringWriter();
  private String broadcast;
  private String group;
  private LedgerItem leased;
  private LedgerItem idle;

  @BeforeAll
  static void migrate() {
    store = JdbiStateStore.create(Jdbi.create(PG.dataSource())).migrate();
  }

  /** Two open rows of a group of this test only: one under a node's live lease, one idle. */
  @BeforeEach
  void rows() {
    broadcast = "cli-" + Long.toString(System.nanoTime(), 36);
    group = "host-" + broadcast;
    Instant now = clock.instant();
    leased = store.register(NewItem.pending(ItemId.original(broadcast, "720p", 0), "/rec/0.ts", 10, now)
        .inStorageGroup(group).leasedTo("node-7", now.plus(Duration.ofHours(1)))).item();
    idle = store.register(NewItem.pending(ItemId.original(broadcast, "720p", 1), "/rec/1.ts", 10, now)
        .inStorageGroup(group)).item();
  }

  private int cli(String... args) {
    return cli(clock, args);
  }

  private int cli(Clock cliClock, String... args) {
    out.getBuffer().setLength(0);
    err.getBuffer().setLength(0);
    return SegmentLedgerCli.run(cliClock, new PrintWriter(out), new PrintWriter(err), DatabaseArguments.of(PG, args));
  }

  private ItemState state(LedgerItem row) {
    return store.findByRowId(row.rowId()).orElseThrow().state();
  }

  @Test
  void storageGroupLostWithoutYesShowsWhatItWouldDoAndChangesNothing() {
    assertEquals(0, cli("storage-group", group, "--lost"), err::toString);
    String said = out.toString();
    assertTrue(said.contains("would reject 1 open row of storage group " + group + " as STORAGE_LOST"), said);
    assertTrue(said.contains("1 row under a live lease"), said);
    assertTrue(said.contains("--yes"), said);
    assertEquals(ItemState.PENDING, state(leased));
    assertEquals(ItemState.PENDING, state(idle));
  }

  @Test
  void storageGroupLostWithYesRejectsTheIdleRowsAndLeavesALiveLeaseAloneSayingSo() {
    assertEquals(SegmentLedgerCli.EXIT_DIFFERENCES, cli("storage-group", group, "--lost", "--yes"), err::toString);
    String said = out.toString();
    assertTrue(said.contains("1 open row of storage group " + group + " rejected as STORAGE_LOST"), said);
    assertTrue(said.contains("1 row under a live lease left alone"), said);
    assertEquals(ItemState.REJECTED, state(idle));
    assertEquals(ItemState.PENDING, state(leased), "a node is still uploading it: its disk is not lost");

    assertEquals(SegmentLedgerCli.EXIT_DIFFERENCES, cli("storage-group", group, "--lost", "--yes", "--json"));
    assertTrue(out.toString().contains("\"rows\":0") && out.toString().contains("\"leftAloneUnderLease\":1"),
        out.toString());
  }

  @Test
  void storageGroupLostJudgesTheLeasesByTheDatabasesClockNotByTheMachineItRunsOn() {
    Clock twoHoursAhead = Clock.offset(clock, Duration.ofHours(2)); // past the live lease's end
    assertEquals(0, cli(twoHoursAhead, "storage-group", group, "--lost"), err::toString);
    assertTrue(out.toString().contains("would reject 1 open row of storage group " + group), out.toString());
    assertTrue(out.toString().contains("1 row under a live lease"), out.toString());

    assertEquals(SegmentLedgerCli.EXIT_DIFFERENCES, cli(twoHoursAhead, "storage-group", group, "--lost", "--yes"),
        err::toString);
    assertEquals(ItemState.PENDING, state(leased), "a node is still uploading it: its disk is not lost");
    assertEquals(ItemState.REJECTED, state(idle));
  }

  @Test
  void storageGroupHandOverWithoutYesChangesNothing() {
    String other = "other-" + broadcast;
    assertEquals(0, cli("storage-group", group, "--hand-over-to", other), err::toString);
    assertTrue(out.toString().contains("would hand 2 open rows of storage group " + group + " over to " + other),
        out.toString());
    assertEquals(group, store.findByRowId(idle.rowId()).orElseThrow().storageGroup());
    assertEquals(0, cli("storage-group", group, "--hand-over-to", other, "--yes"), err::toString);
    assertEquals(other, store.findByRowId(idle.rowId()).orElseThrow().storageGroup());
  }

  @Test
  void reopenWithoutYesListsTheRowsItWouldReopenAndChangesNothing() {
    assertEquals(SegmentLedgerCli.EXIT_DIFFERENCES, cli("storage-group", group, "--lost", "--yes"));
    assertEquals(0, cli("reopen", broadcast, "--reason", "STORAGE_LOST"), err::toString);
    String said = out.toString();
    assertTrue(said.contains("would re-open 1 row of " + broadcast), said);
    assertTrue(said.contains("--yes"), said);
    assertEquals(ItemState.REJECTED, state(idle));

    assertEquals(0, cli("reopen", broadcast, "--reason", "STORAGE_LOST", "--yes"), err::toString);
    assertTrue(out.toString().contains("re-opened 1 row of " + broadcast), out.toString());
    LedgerItem reopened = store.findByRowId(idle.rowId()).orElseThrow();
    assertEquals(ItemState.PENDING, reopened.state());
    assertEquals(Reason.REOPENED, reopened.reason());
  }
}
