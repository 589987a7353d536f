package dev.segmentledger.cli;

import dev.segmentledger.core.Identifiers;
import dev.segmentledger.jdbi.JdbiStateStore;
import java.util.LinkedHashMap;
import java.util.Map;
import picocli.CommandLine.ArgGroup;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

/**
 * {@code storage-group <group> (--hand-over-to G | --lost)}: the explicit operations on a storage
 * group (a recorder host with a local disk) that is gone, as {@link
 * dev.segmentledger.core.Ledger#handOver} and {@link dev.segmentledger.core.Ledger#markStorageLost}
 * do: hand its open rows over to another group, or reject them as {@code STORAGE_LOST}. In batches of
 * 1,000 rows, each one short transaction, until none is left.
 */
@Command(name = "storage-group", description = "A recorder host with a local disk is gone: hand its storage "
    + "group's open rows over to another group (its disk is mounted there now), or mark them REJECTED "
    + "(STORAGE_LOST), re-openable with `reopen --reason STORAGE_LOST`.")
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

  @Override
  public Integer call() {
    Identifiers.requireValid("group", group);
    if (action.toGroup != null) {
      Identifiers.requireValid("hand-over-to", action.toGroup);
      if (action.toGroup.equals(group)) {
        throw new IllegalArgumentException("--hand-over-to names the group itself: " + group);
      }
    }
    JdbiStateStore store = database.open();
    long total = 0;
    int batch;
    do {
      batch = action.toGroup != null ? store.handOver(group, action.toGroup, BATCH)
          : store.markStorageLost(group, "storage group " + group + " declared lost by segment-ledger-cli", now(),
              BATCH);
      total += batch;
    } while (batch > 0);
    String what = action.toGroup != null ? "handed over to " + action.toGroup : "rejected as STORAGE_LOST";
    if (json) {
      Map<String, Object> doc = new LinkedHashMap<>();
      doc.put("group", group);
      doc.put(action.toGroup != null ? "handedOverTo" : "lost", action.toGroup != null ? action.toGroup : true);
      doc.put("rows", total);
      out().println(Json.write(doc));
    } else {
      out().println(total + " open row" + (total == 1 ? "" : "s") + " of storage group " + group + " " + what);
    }
    return SegmentLedgerCli.EXIT_OK;
  }
}
