package dev.segmentledger.benchmarks;

import java.util.LinkedHashMap;
import java.util.Map;

/**
 * One measured number with its goal.
 *
 * @param name a stable identifier, e.g. {@code throughput.items_per_s}
 * @param value the measured value ({@code NaN} if it could not be measured)
 * @param unit the unit of {@code value}
 * @param goal the goal as text, e.g. {@code >= 10000}
 * @param met whether the goal was met ({@code false} when not measured)
 * @param note what the number means or why it is missing
 * @param conditions the conditions of the measurement
 */
record BenchResult(String name, double value, String unit, String goal, boolean met, String note,
    Map<String, Object> conditions) {

  BenchResult {
    conditions = new LinkedHashMap<>(conditions);
  }

  static BenchResult atLeast(String name, double value, String unit, double goal, String note,
      Map<String, Object> conditions) {
    return new BenchResult(name, value, unit, ">= " + fmt(goal), value >= goal, note, conditions);
  }

  static BenchResult atMost(String name, double value, String unit, double goal, String note,
      Map<String, Object> conditions) {
    return new BenchResult(name, value, unit, "<= " + fmt(goal), value <= goal, note, conditions);
  }

  /** A number reported for information, with no goal of its own. */
  static BenchResult info(String name, double value, String unit, String note, Map<String, Object> conditions) {
    return new BenchResult(name, value, unit, "-", true, note, conditions);
  }

  /** A measure that could not be completed. */
  static BenchResult notMeasured(String name, String unit, String goal, String note, Map<String, Object> conditions) {
    return new BenchResult(name, Double.NaN, unit, goal, false, note, conditions);
  }

  static String fmt(double v) {
    if (Double.isNaN(v)) {
      return "n/a";
    }
    if (v == Math.rint(v) && Math.abs(v) < 1e15) {
      return String.valueOf((long) v);
    }
    return String.format(java.util.Locale.ROOT, Math.abs(v) >= 100 ? "%.1f" : "%.3f", v);
  }
}
