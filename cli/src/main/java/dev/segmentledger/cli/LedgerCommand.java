package dev.segmentledger.cli;

import dev.segmentledger.core.Identifiers;
import dev.segmentledger.core.Printable;
import dev.segmentledger.core.query.RowQuery;
import dev.segmentledger.core.spi.StateStore;
import java.io.PrintWriter;
import java.time.Instant;
import java.util.concurrent.Callable;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParentCommand;
import picocli.CommandLine.Spec;

/** What every subcommand shares: the database options, {@code --json}, and the output writer. */
abstract class LedgerCommand implements Callable<Integer> {
  @Mixin DatabaseOptions database;

  @Option(names = "--json", description = "One JSON document on stdout instead of a table.")
  boolean json;

  @Spec CommandSpec spec;

  @ParentCommand SegmentLedgerCli root;

  /** Now, by the command line's clock. */
  Instant now() {
    return root.clock.instant();
  }

  PrintWriter out() {
    return spec.commandLine().getOut();
  }

  /**
   * Checks that {@code broadcastId} is known to the ledger (a lifecycle record or a row), reading at
   * most one row.
   *
   * @throws CliFailure if the broadcast is unknown
   * @throws IllegalArgumentException if {@code broadcastId} is not a valid identifier
   */
  static void requireKnownBroadcast(StateStore store, String broadcastId) {
    Identifiers.requireValid("broadcast", broadcastId);
    if (store.findBroadcast(broadcastId).isEmpty()
        && store.findRows(RowQuery.builder().broadcastId(broadcastId).limit(1).build()).items().isEmpty()) {
      throw new CliFailure("unknown broadcast: " + Printable.escape(broadcastId)
          + " (the ledger has no row and no record of it)");
    }
  }
}
