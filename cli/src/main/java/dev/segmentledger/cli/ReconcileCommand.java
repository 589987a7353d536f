package dev.segmentledger.cli;

import dev.segmentledger.core.ReconcileRequest;
import dev.segmentledger.core.ReconcileStep;
import dev.segmentledger.core.ReconciliationReport;
import dev.segmentledger.core.ReconciliationReport.Difference;
import dev.segmentledger.core.Reconciler;
import dev.segmentledger.jdbi.JdbiStateStore;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;
import software.amazon.awssdk.services.s3.S3Client;

/**
 * {@code reconcile <broadcast>}: compares the broadcast's rows with the objects under its prefix in
 * bounded steps ({@link Reconciler#reconcile(ReconcileRequest)}): one step by default, at most
 * {@code --max-checks} rows and objects and {@code --max-seconds}, continued with {@code --cursor};
 * {@code --all} runs steps until the pass is complete, printing each. With {@code --repair}, re-opens
 * the rows whose object is missing or different and aborts old unfinished uploads. Exit 1 if any
 * difference is found.
 */
@Command(name = "reconcile", description = "Compare a broadcast's rows with the objects in the bucket in bounded "
    + "steps: missing or different objects, orphans. One step unless --all; continue with --cursor the NEXT "
    + "printed. Changes nothing unless --repair. Exit 1 if they differ.")
final class ReconcileCommand extends LedgerCommand {
  @Parameters(index = "0", paramLabel = "BROADCAST", description = "The broadcast id.")
  String broadcastId;

  @Mixin S3Options s3;

  @Option(names = "--repair", description = "Re-open the rows whose object is missing or different (a running "
      + "ledger uploads them again) and abort unfinished uploads older than a day. Orphans are never deleted.")
  boolean repair;

  @Option(names = "--max-checks", paramLabel = "N", defaultValue = "" + ReconcileRequest.DEFAULT_CHECKS,
      description = "At most N rows and objects checked in a step, one bucket request each (1 to "
          + ReconcileRequest.MAX_CHECKS + ", default ${DEFAULT-VALUE}).")
  int maxChecks;

  @Option(names = "--max-seconds", paramLabel = "S", defaultValue = "20",
      description = "A step stops after S seconds (1 to 600, default ${DEFAULT-VALUE}).")
  int maxSeconds;

  @Option(names = "--cursor", paramLabel = "NEXT", description = "Continue a pass: the NEXT of the previous step.")
  String cursor;

  @Option(names = "--all", description = "Run steps until the pass is complete (each bounded as above).")
  boolean all;

  @Override
  public Integer call() {
    ReconcileRequest request = ReconcileRequest.builder(broadcastId).repair(repair).maxChecks(maxChecks)
        .maxDuration(Duration.ofSeconds(maxSeconds)).cursor(cursor).build();
    JdbiStateStore store = database.open();
    requireKnownBroadcast(store, broadcastId);
    try (S3Client client = s3.client()) {
      Reconciler reconciler = Reconciler.create(store, s3.sink(client), root.clock);
      List<ReconcileStep> steps = new ArrayList<>();
      boolean consistent = true;
      while (true) {
        ReconcileStep step = reconciler.reconcile(request);
        steps.add(step);
        consistent &= step.report().isConsistent();
        if (!json) {
          print(step);
        }
        if (!all || step.complete()) {
          break;
        }
        request = request.continueAt(step.next().orElseThrow());
      }
      if (json) {
        Map<String, Object> doc = new LinkedHashMap<>();
        doc.put("broadcast", broadcastId);
        doc.put("consistent", consistent);
        doc.put("repair", repair);
        doc.put("steps", steps.stream().map(ReconcileCommand::json).toList());
        ReconcileStep last = steps.get(steps.size() - 1);
        doc.put("complete", last.complete());
        doc.put("next", last.next().orElse(null));
        out().println(Json.write(doc));
      }
      return consistent ? SegmentLedgerCli.EXIT_OK : SegmentLedgerCli.EXIT_DIFFERENCES;
    }
  }

  private void print(ReconcileStep step) {
    ReconciliationReport report = step.report();
    out().println(step.summary());
    for (Difference d : report.differences()) {
      out().println("  " + d);
    }
    report.unfinishedUploads().forEach(u -> out().println("  " + u));
    step.next().ifPresent(next -> out().println("NEXT " + next + " (continue: add --cursor " + next + ")"));
  }

  private static Map<String, Object> json(ReconcileStep step) {
    ReconciliationReport report = step.report();
    Map<String, Object> doc = new LinkedHashMap<>();
    doc.put("checkedAt", report.checkedAt());
    doc.put("rowsChecked", step.rowsChecked());
    doc.put("objectsChecked", step.objectsChecked());
    doc.put("stoppedBy", step.stoppedBy());
    doc.put("next", step.next().orElse(null));
    doc.put("reopened", report.reopened());
    doc.put("differences", report.differences().stream().map(ReconcileCommand::json).toList());
    doc.put("unfinishedUploads", report.unfinishedUploads().stream().map(u -> {
      Map<String, Object> upload = new LinkedHashMap<>();
      upload.put("key", u.key());
      upload.put("ageSeconds", u.age() == null ? null : u.age().toSeconds());
      upload.put("aborted", u.aborted());
      return upload;
    }).toList());
    return doc;
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
