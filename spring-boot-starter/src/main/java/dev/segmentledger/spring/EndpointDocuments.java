package dev.segmentledger.spring;

import dev.segmentledger.core.ReconcileStep;
import dev.segmentledger.core.ReconciliationReport;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/** The JSON documents of the endpoint's reconcile step: plain maps, written by the actuator. */
final class EndpointDocuments {
  private EndpointDocuments() {}

  static Map<String, Object> step(ReconcileStep step) {
    ReconciliationReport report = step.report();
    Map<String, Object> doc = new LinkedHashMap<>();
    doc.put("broadcast", report.broadcastId());
    doc.put("checkedAt", report.checkedAt().toString());
    doc.put("repair", report.repair());
    doc.put("rowsChecked", step.rowsChecked());
    doc.put("objectsChecked", step.objectsChecked());
    doc.put("stoppedBy", SegmentLedgerEndpoint.lower(step.stoppedBy()));
    doc.put("complete", step.complete());
    doc.put("next", step.next().orElse(null));
    doc.put("consistentSoFar", report.isConsistent());
    doc.put("reopened", report.reopened());
    List<Map<String, Object>> differences = new ArrayList<>();
    for (ReconciliationReport.Difference d : report.differences()) {
      Map<String, Object> one = new LinkedHashMap<>();
      one.put("kind", SegmentLedgerEndpoint.lower(d.kind()));
      one.put("axis", d.axis().map(SegmentLedgerEndpoint::lower).orElse(null));
      one.put("key", d.key());
      one.put("rowId", d.row() == null ? null : d.row().rowId());
      one.put("rowSizeBytes", d.row() == null ? null : d.row().sizeBytes());
      one.put("objectSizeBytes", d.object() == null ? null : d.object().sizeBytes());
      one.put("reopened", d.reopened());
      differences.add(one);
    }
    doc.put("differences", differences);
    doc.put("unfinishedUploads", report.unfinishedUploads().stream().map(u -> {
      Map<String, Object> upload = new LinkedHashMap<>();
      upload.put("key", u.key());
      upload.put("ageSeconds", u.age() == null ? null : u.age().toSeconds());
      upload.put("aborted", u.aborted());
      return upload;
    }).toList());
    return doc;
  }
}
