package dev.segmentledger.cli;

import dev.segmentledger.core.Identifiers;
import dev.segmentledger.jdbi.JdbiStateStore;
import java.util.LinkedHashMap;
import java.util.Map;
import org.jdbi.v3.core.Jdbi;
import picocli.CommandLine.ArgGroup;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

/**
 * {@code storage-group <group> (--hand-over-to G | --lost)}: the explicit operations on a storage
 * group (a recorder host with a local disk) that is gone, as {@link
 * dev.segmentledger.core.Ledger#handOver} and {@link dev.segmentledger.core.Ledger#markStorageLost}
 * do: hand its open rows over to another group, or reject them as {@code STORAGE_LOST}. Without
 * {@code --yes} it only counts the rows it would change. With it, it works in batches of 1,000 rows,
 * each one short transaction, until none is left. {@code --lost} leaves a row under a live lease
 * alone (a node is still uploading it), says how many, and then exits {@value
 * SegmentLedgerCli#EXIT_DIFFERENCES}. A dry run exits {@value SegmentLedgerCli#EXIT_OK}.
 */
@Command(name = "storage-group", description = "A recorder host with a local disk is gone: hand its storage "
    + "group's open rows over to another group (its disk is mounted there now), or mark them REJECTED "
    + "(STORAGE_LOST), re-openable with `reopen --reason STORAGE_LOST`. Shows what it would do unless --yes is "
    + "given. --lost leaves rows under a live lease alone (exit 1 then).")
final class StorageGroupCommand extends LedgerCommand {
  private static final int BATCH = 1_000;

  @Parameters(index = "0", paramLabel = "GROUP", description = "The storage group of the host that is gone.")
  String group;

  @ArgGroup(exclusive = true, multiplicity = "1")
  Action action;

  /** What to do with the group's open rows: exactly one. */
  static final class Action {
    @Option(names = "--hand-over-to", paramLabel = "GROUP", required = true,
        description = "Re-assign the open rows (PENDING, WAITING) to this storage group.")
    String toGroup;

    @Option(names = "--lost", required = true,
        description = "Reject the open rows with STORAGE_LOST: the disk is gone for good.")
    boolean lost;
  }

  @Mixin YesOption confirmation;

  @Override
  public Integer call() {
    Identifiers.requireValid("group", group);
    if (action.toGroup != null) {
      Identifiers.requireValid("hand-over-to", action.toGroup);
      if (action.toGroup.equals(group)) {
        throw new IllegalArgumentException("--hand-over-to names the group itself: " + group);
      }
    }
    Jdbi jdbi = database.connect();
    JdbiStateStore store = JdbiStateStore.create(jdbi);
    boolean lost = action.toGroup == null;
    long rows;
    long leftAlone;
    if (!confirmation.yes) {
      GroupRows before = GroupRows.of(jdbi, group);
      leftAlone = lost ? before.leased() : 0;
      rows = before.open() - leftAlone;
    } else {
      rows = 0;
      int batch;
      do {
        batch = lost ? store.markStorageLost(group, "storage group " + group + " declared lost by segment-ledger-cli",
            now(), BATCH) : store.handOver(group, action.toGroup, BATCH);
        rows += batch;
      } while (batch > 0);
      leftAlone = lost ? GroupRows.of(jdbi, group).leased() : 0;
    }
    report(lost, rows, leftAlone);
    return confirmation.yes && leftAlone > 0 ? SegmentLedgerCli.EXIT_DIFFERENCES : SegmentLedgerCli.EXIT_OK;
  }

  private void report(boolean lost, long rows, long leftAlone) {
    boolean dryRun = !confirmation.yes;
    if (json) {
      Map<String, Object> doc = new LinkedHashMap<>();
      doc.put("group", group);
      doc.put(lost ? "lost" : "handedOverTo", lost ? true : action.toGroup);
      doc.put("dryRun", dryRun);
      doc.put("rows", rows);
      if (lost) {
        doc.put("leftAloneUnderLease", leftAlone);
      }
      out().println(Json.write(doc));
      return;
    }
    String open = Rows.count(rows, "open row") + " of storage group " + group;
    String what = lost ? "as STORAGE_LOST" : "over to " + action.toGroup;
    String line = dryRun ? "would " + (lost ? "reject " : "hand ") + open + " " + what
        : open + " " + (lost ? "rejected " : "handed ") + what;
    if (leftAlone > 0) {
      line += "; " + Rows.count(leftAlone, "row") + " under a live lease " + (dryRun ? "would be " : "") + "left alone"
          + " (a node is still uploading " + (leftAlone == 1 ? "it" : "them") + ": run again once "
          + (leftAlone == 1 ? "its lease has" : "their leases have") + " run out, if the host is really gone)";
    }
    out().println(line);
    if (dryRun) {
      out().println(YesOption.nothingChanged());
    }
  }
}
