package dev.segmentledger.console;

import dev.segmentledger.core.ItemState;
import dev.segmentledger.core.LedgerItem;
import dev.segmentledger.core.Reason;
import dev.segmentledger.core.ReconcileRequest;
import dev.segmentledger.core.ReconcileStep;
import dev.segmentledger.core.ReconciliationReport.Difference;
import dev.segmentledger.core.Reconciler;
import java.util.Map;
import java.util.Optional;

/**
 * The pages that act: a bounded reconcile step (a form, then its report with a button for the next
 * step), and the re-open of one terminal row (a confirmation page, then the compare-and-set). Both
 * act only on POST; a GET shows what would be done.
 */
final class ActionPages {
  private final Pages pages;

  ActionPages(Pages pages) {
    this.pages = pages;
  }

  ConsoleResponse reconcileForm(ConsoleRequest request) {
    String id = new Params(request).broadcast("id", true);
    if (pages.sink == null) {
      return pages.problem(request, 404, "No bucket", "the host has no bucket configured: reconcile is not available");
    }
    Html h = new Html(request.basePath());
    h.raw("<h1>Reconcile ").t(id).raw("</h1><p>Compares the broadcast's confirmed rows with the objects in the bucket,"
        + " in bounded steps: each checks at most the given number of rows and objects (one request to the bucket"
        + " each) and stops after 20 seconds, then offers the next step.</p>");
    form(h, request, id, null, false);
    return pages.render(request, 200, "Reconcile " + id, h);
  }

  ConsoleResponse reconcileStep(ConsoleRequest request) {
    Params p = new Params(request);
    String id = p.broadcast("id", true);
    if (pages.sink == null) {
      return pages.problem(request, 404, "No bucket", "the host has no bucket configured: reconcile is not available");
    }
    boolean repair = "true".equals(p.text("repair"));
    if (repair && !pages.reopenEnabled) {
      return pages.problem(request, 403, "Repair is disabled", "a repair re-opens rows, and re-open is not enabled"
          + " on this console");
    }
    int maxChecks = (int) p.number("maxChecks", 1, Pages.MAX_RECONCILE_CHECKS, ReconcileRequest.DEFAULT_CHECKS);
    ReconcileRequest reconcile;
    try {
      reconcile = ReconcileRequest.builder(id).repair(repair).maxChecks(maxChecks).cursor(p.text("cursor")).build();
    } catch (IllegalArgumentException e) {
      throw new BadInput(e.getMessage());
    }
    ReconcileStep step = Reconciler.create(pages.store, pages.sink, pages.clock).reconcile(reconcile);
    Html h = new Html(request.basePath());
    h.raw("<h1>Reconcile ").t(id).raw("</h1><p id=\"summary\">").t(step.summary()).raw("</p>");
    if (step.report().differences().isEmpty()) {
      h.raw("<p>No difference in this step.</p>");
    } else {
      h.raw("<table id=\"differences\"><thead><tr><th>kind</th><th>what</th></tr></thead><tbody>");
      for (Difference d : step.report().differences()) {
        h.raw("<tr>").td(d.kind()).td(d.describe()).raw("</tr>");
      }
      h.raw("</tbody></table>");
    }
    step.report().unfinishedUploads().forEach(u -> h.raw("<p>").t("unfinished upload: " + u.describe()).raw("</p>"));
    if (!step.complete()) {
      form(h, request, id, step.next().orElseThrow(), repair);
    }
    h.raw("<p><a href=\"").raw(h.href("/broadcast", Map.of("id", id))).raw("\">Back to the broadcast</a></p>");
    return pages.render(request, 200, "Reconcile " + id, h);
  }

  private void form(Html h, ConsoleRequest request, String id, String cursor, boolean repair) {
    h.raw("<form method=\"post\" action=\"").raw(h.href("/reconcile", Map.of())).raw("\">")
        .raw(Pages.hiddenFields(request))
        .raw("<input type=\"hidden\" name=\"id\" value=\"").t(id).raw("\">");
    if (cursor != null) {
      h.raw("<input type=\"hidden\" name=\"cursor\" value=\"").t(cursor).raw("\">");
    }
    h.raw("<label>checks per step <input name=\"maxChecks\" value=\"").t(ReconcileRequest.DEFAULT_CHECKS)
        .raw("\" size=\"6\"></label>");
    if (pages.reopenEnabled) {
      h.raw("<label><input type=\"checkbox\" name=\"repair\" value=\"true\"").raw(repair ? " checked" : "")
          .raw("> repair (re-open rows whose object is missing or different)</label>");
    }
    h.raw("<button type=\"submit\" id=\"reconcile\">").t(cursor == null ? "Run the first step" : "Run the next step")
        .raw("</button></form>");
  }

  ConsoleResponse confirmReopen(ConsoleRequest request) {
    if (!pages.reopenEnabled) {
      return disabled(request);
    }
    Optional<LedgerItem> found = row(request);
    if (found.isEmpty()) {
      return pages.problem(request, 404, "No such row", "the ledger has no row " + request.parameter("row"));
    }
    LedgerItem row = found.get();
    if (!reopenable(row)) {
      return notReopenable(request, row);
    }
    Html h = new Html(request.basePath());
    h.raw("<h1>Re-open row ").t(row.rowId()).raw("?</h1><p>").t(row.objectKey()).raw(" is ").t(row.state())
        .raw(" (").t(row.reason()).raw(") after ").t(row.attempts()).raw(" attempts. Re-opening puts it back to"
            + " PENDING, due at once, with its attempts starting over at 0 (the count before is kept in its last"
            + " error); a running ledger then uploads it again. Do it once the cause is fixed.</p>")
        .raw("<p class=\"error\">").t(row.lastError()).raw("</p>")
        .raw("<form method=\"post\" action=\"").raw(h.href("/reopen", Map.of())).raw("\">")
        .raw(Pages.hiddenFields(request))
        .raw("<input type=\"hidden\" name=\"row\" value=\"").t(row.rowId()).raw("\">")
        .raw("<input type=\"hidden\" name=\"state\" value=\"").t(row.state()).raw("\">")
        .raw("<button type=\"submit\" id=\"confirm\">Re-open row ").t(row.rowId()).raw("</button> <a href=\"")
        .raw(h.href("/broadcast", Map.of("id", row.id().broadcastId()))).raw("\">Cancel</a></form>");
    return pages.render(request, 200, "Re-open row " + row.rowId(), h);
  }

  ConsoleResponse reopen(ConsoleRequest request) {
    if (!pages.reopenEnabled) {
      return disabled(request);
    }
    Params p = new Params(request);
    ItemState expected = p.choice("state", ItemState.class);
    Optional<LedgerItem> found = row(request);
    if (found.isEmpty()) {
      return pages.problem(request, 404, "No such row", "the ledger has no row " + request.parameter("row"));
    }
    LedgerItem row = found.get();
    if (expected == null || row.state() != expected || !reopenable(row)) {
      return notReopenable(request, row);
    }
    boolean reopened = pages.store.reopen(row.rowId(), row.state(), Reason.REOPENED, "re-opened from the console by "
        + request.user() + " after " + row.state() + " (" + row.reason() + "); attempts before: " + row.attempts(),
        pages.clock.instant());
    if (!reopened) {
      return pages.problem(request, 409, "Not re-opened", "row " + row.rowId() + " changed meanwhile; left alone");
    }
    Html h = new Html(request.basePath());
    h.raw("<h1>Re-opened</h1><p id=\"reopened\">Row ").t(row.rowId()).raw(" (").t(row.objectKey())
        .raw(") is PENDING again.</p><p><a href=\"").raw(h.href("/broadcast", Map.of("id", row.id().broadcastId())))
        .raw("\">Back to the broadcast</a></p>");
    return pages.render(request, 200, "Re-opened", h);
  }

  private Optional<LedgerItem> row(ConsoleRequest request) {
    long rowId = new Params(request).number("row", 1, Long.MAX_VALUE, -1);
    if (rowId < 0) {
      throw new BadInput("row is required: a row id (a whole number from 1)");
    }
    return pages.store.findByRowId(rowId);
  }

  private static boolean reopenable(LedgerItem row) {
    return row.state() == ItemState.REJECTED || row.state() == ItemState.EXCLUDED;
  }

  private ConsoleResponse notReopenable(ConsoleRequest request, LedgerItem row) {
    return pages.problem(request, 409, "Not re-openable", "row " + row.rowId() + " is " + row.state()
        + ": only REJECTED or EXCLUDED rows are re-opened, and only in the state the confirmation showed");
  }

  private ConsoleResponse disabled(ConsoleRequest request) {
    return pages.problem(request, 403, "Re-open is disabled", "this console does not re-open rows: its host enables"
        + " it (segment-ledger.console.reopen-enabled=true, or the console command's --reopen-enabled)");
  }
}
