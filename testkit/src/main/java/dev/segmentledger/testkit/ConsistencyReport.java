package dev.segmentledger.testkit;

import dev.segmentledger.core.Axis;
import dev.segmentledger.core.ReconciliationReport;
import dev.segmentledger.core.ReconciliationReport.Difference;
import java.util.ArrayList;
import java.util.EnumMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;

/**
 * The comparison of a broadcast's ledger rows with the objects under its prefix, per axis: the
 * "DB/S3 difference" of the design. Produced by {@link ConsistencyAssertions#check} from the core
 * {@link ReconciliationReport}, whose differences it lists as readable lines. Immutable.
 *
 * @param broadcastId the broadcast compared
 * @param axes one entry per {@link Axis}, in axis order
 * @param unrecognizedObjects keys under the broadcast's prefix that are not keys of the contract;
 *     each counts as a difference
 */
public record ConsistencyReport(String broadcastId, Map<Axis, AxisReport> axes, List<String> unrecognizedObjects) {

  public ConsistencyReport {
    Objects.requireNonNull(broadcastId, "broadcastId");
    axes = Map.copyOf(axes);
    unrecognizedObjects = List.copyOf(unrecognizedObjects);
  }

  /**
   * One axis of the comparison.
   *
   * @param axis the axis
   * @param confirmedRows the number of CONFIRMED rows of the axis
   * @param objects the number of objects of the axis under the broadcast's prefix
   * @param confirmedWithoutObject confirmed rows whose object is missing or has another size or
   *     checksum, one readable line each
   * @param objectsWithoutConfirmedRow objects with no CONFIRMED row, one readable line each
   */
  public record AxisReport(Axis axis, int confirmedRows, int objects, List<String> confirmedWithoutObject,
      List<String> objectsWithoutConfirmedRow) {

    public AxisReport {
      Objects.requireNonNull(axis, "axis");
      confirmedWithoutObject = List.copyOf(confirmedWithoutObject);
      objectsWithoutConfirmedRow = List.copyOf(objectsWithoutConfirmedRow);
    }

    /** The number of differences on this axis. */
    public int differences() {
      return confirmedWithoutObject.size() + objectsWithoutConfirmedRow.size();
    }
  }

  /** The lines of a reconciler's report: missing and mismatched objects, orphans, stray keys. */
  public static ConsistencyReport of(ReconciliationReport reconciliation) {
    Map<Axis, AxisReport> axes = new EnumMap<>(Axis.class);
    for (Axis axis : Axis.values()) {
      ReconciliationReport.AxisReport report = reconciliation.axis(axis);
      List<String> confirmedWithoutObject = new ArrayList<>(lines(report.missing()));
      confirmedWithoutObject.addAll(lines(report.mismatched()));
      axes.put(axis, new AxisReport(axis, report.confirmedRows(), report.objects(), confirmedWithoutObject,
          lines(report.orphans())));
    }
    return new ConsistencyReport(reconciliation.broadcastId(), axes, lines(reconciliation.unrecognizedObjects()));
  }

  private static List<String> lines(List<Difference> differences) {
    return differences.stream().map(Difference::describe).toList();
  }

  /** The report of {@code axis}. */
  public AxisReport axis(Axis axis) {
    return axes.get(axis);
  }

  /** The total number of differences: 0 means the ledger and the bucket agree. */
  public int differences() {
    return axes.values().stream().mapToInt(AxisReport::differences).sum() + unrecognizedObjects.size();
  }

  /** Whether the ledger and the bucket agree for this broadcast. */
  public boolean isConsistent() {
    return differences() == 0;
  }

  /** A multi-line listing: counts per axis, then every difference. */
  public String describe() {
    StringBuilder out = new StringBuilder("broadcast ").append(broadcastId).append(": ").append(differences())
        .append(differences() == 1 ? " difference" : " differences").append(" between ledger and bucket");
    for (Axis axis : Axis.values()) {
      AxisReport report = axes.get(axis);
      if (report == null) {
        continue;
      }
      out.append("\n  ").append(axis).append(": ").append(report.confirmedRows()).append(" confirmed rows, ")
          .append(report.objects()).append(" objects, ").append(report.differences()).append(" differences");
      report.confirmedWithoutObject().forEach(line -> out.append("\n    confirmed row without its object: ").append(line));
      report.objectsWithoutConfirmedRow().forEach(line -> out.append("\n    object without a confirmed row: ").append(line));
    }
    unrecognizedObjects.forEach(key -> out.append("\n  object with a key outside the contract: ").append(key));
    return out.toString();
  }

  @Override
  public String toString() {
    return describe();
  }
}
