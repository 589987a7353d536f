package dev.segmentledger.core;

import java.util.Objects;
import java.util.Optional;

/**
 * What one bounded reconcile step ({@link ReconcileRequest}) found, and where the pass stands.
 * Immutable.
 *
 * @param report the differences this step found, with its own counts: {@link
 *     ReconciliationReport.AxisReport#confirmedRows()} and {@link
 *     ReconciliationReport.AxisReport#objects()} are the rows and objects this step checked; the
 *     unfinished uploads are listed by the step that ends the pass only
 * @param rowsChecked the CONFIRMED rows this step compared with their object (one HEAD each)
 * @param objectsChecked the objects this step compared with their row
 * @param next the cursor of the next step ({@link ReconcileRequest#continueAt}); empty once the pass is complete
 * @param stoppedBy why this step ended
 */
public record ReconcileStep(ReconciliationReport report, long rowsChecked, long objectsChecked,
    Optional<String> next, Stop stoppedBy) {

  /** Why a step ended. */
  public enum Stop {
    /** The pass is complete: every row, object, playlist and unfinished upload was checked. */
    COMPLETE,
    /** The step made {@link ReconcileRequest#maxChecks()} checks. */
    CHECK_LIMIT,
    /** The step ran for {@link ReconcileRequest#maxDuration()}. */
    TIME_LIMIT
  }

  public ReconcileStep {
    Objects.requireNonNull(report, "report");
    Objects.requireNonNull(next, "next");
    Objects.requireNonNull(stoppedBy, "stoppedBy");
    if (rowsChecked < 0 || objectsChecked < 0) {
      throw new IllegalArgumentException("counts must be >= 0");
    }
    if ((stoppedBy == Stop.COMPLETE) != next.isEmpty()) {
      throw new IllegalArgumentException("a complete pass has no next step, and only a complete pass");
    }
  }

  /** Whether the pass is complete (no next step). */
  public boolean complete() {
    return next.isEmpty();
  }

  /** One line: what was checked, what differs, and how to go on. */
  public String summary() {
    int differences = report.differences().size();
    return "broadcast " + report.broadcastId() + ": checked " + rowsChecked + " confirmed rows and " + objectsChecked
        + " objects, " + differences + (differences == 1 ? " difference" : " differences")
        + (report.repair() ? ", " + report.reopened() + " rows re-opened" : "")
        + switch (stoppedBy) {
          case COMPLETE -> "; the pass is complete";
          case CHECK_LIMIT -> "; check limit reached, continue at " + next.orElseThrow();
          case TIME_LIMIT -> "; time limit reached, continue at " + next.orElseThrow();
        };
  }
}
