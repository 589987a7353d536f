package dev.segmentledger.cli;

import dev.segmentledger.core.ReconciliationReport;
import dev.segmentledger.core.ReconciliationReport.Difference;
import dev.segmentledger.core.Reconciler;
import dev.segmentledger.jdbi.JdbiStateStore;
import java.util.LinkedHashMap;
import java.util.Map;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;
import software.amazon.awssdk.services.s3.S3Client;

/**
 * {@code reconcile <broadcast>}: compares the broadcast's rows with the objects under its prefix
 * ({@link Reconciler#reconcile}); with {@code --repair}, re-opens the rows whose object is missing
 * or different and aborts old unfinished uploads ({@link Reconciler#reconcileAndRepair}). Exit 1 if
 * any difference is found.
 */
@Command(name = "reconcile", description = "Compare a broadcast's rows with the objects in the bucket: missing "
    + "or different objects, orphans. Changes nothing unless --repair. Exit 1 if they differ.")
final class ReconcileCommand extends LedgerCommand {
  @Parameters(index = "0", paramLabel = "BROADCAST", description = "The broadcast id.")
  String broadcastId;

  @Mixin S3Options s3;

  @Option(names = "--repair", description = "Re-open the rows whose object is missing or different (a running "
      + "ledger uploads them again) and abort unfinished uploads older than a day. Orphans are never deleted.")
  boolean repair;

  @Override
  public Integer call() {
    JdbiStateStore store = database.open();
    rowsOfKnownBroadcast(store, broadcastId);
    try (S3Client client = s3.client()) {
      Reconciler reconciler = Reconciler.create(store, s3.sink(client), root.clock);
      ReconciliationReport report = repair ? reconciler.reconcileAndRepair(broadcastId)
          : reconciler.reconcile(broadcastId);
      if (json) {
        Map<String, Object> doc = new LinkedHashMap<>();
        doc.put("broadcast", broadcastId);
        doc.put("checkedAt", report.checkedAt());
        doc.put("consistent", report.isConsistent());
        doc.put("repair", report.repair());
        doc.put("reopened", report.reopened());
        doc.put("differences", report.differences().stream().map(ReconcileCommand::json).toList());
        doc.put("unfinishedUploads", report.unfinishedUploads().stream().map(u -> {
          Map<String, Object> upload = new LinkedHashMap<>();
          upload.put("key", u.key());
          upload.put("ageSeconds", u.age().toSeconds());
          upload.put("aborted", u.aborted());
          return upload;
        }).toList());
        out().println(Json.write(doc));
      } else {
        out().println(report.describe());
      }
      return report.isConsistent() ? SegmentLedgerCli.EXIT_OK : SegmentLedgerCli.EXIT_DIFFERENCES;
    }
  }

  private static Map<String, Object> json(Difference d) {
    Map<String, Object> doc = new LinkedHashMap<>();
    doc.put("kind", d.kind());
    doc.put("axis", d.axis().orElse(null));
    doc.put("key", d.key());
    doc.put("rowId", d.row() == null ? null : d.row().rowId());
    doc.put("rowState", d.row() == null ? null : d.row().state());
    doc.put("rowSizeBytes", d.row() == null ? null : d.row().sizeBytes());
    doc.put("objectSizeBytes", d.object() == null ? null : d.object().sizeBytes());
    doc.put("reopened", d.reopened());
    return doc;
  }
}
