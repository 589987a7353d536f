package dev.segmentledger.benchmarks;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The ledger against a reference (raw PostgreSQL, the set-based ceiling, rclone), measured in
 * alternation in the same run: each pair is one run of each, back to back, and its ratio is
 * {@code ledger / reference}; what a measure reports is the median of the pair ratios, with every
 * pair's absolute figures kept for the result's conditions. On a shared 2-core machine whose disk
 * tail moves 100-fold within minutes, one run of each says little; the ratio within a pair, taken
 * under the same conditions, says more, and the spread of the pairs says how much. Not thread-safe.
 */
final class Pairs {
  private final String reference;
  private final List<Double> ledger = new ArrayList<>();
  private final List<Double> references = new ArrayList<>();
  private final List<Map<String, Object>> figures = new ArrayList<>();

  /** @param reference the reference's name in the figures, e.g. {@code ceiling}, {@code raw}, {@code rclone} */
  Pairs(String reference) {
    this.reference = reference;
  }

  /**
   * Adds one pair.
   *
   * @param order the order the two ran in, e.g. {@code "raw, ledger"}
   * @param details more figures of this pair (CPU, load average, per-run conditions), in the order given
   */
  Pairs add(double ledgerValue, double referenceValue, String order, Map<String, Object> details) {
    ledger.add(ledgerValue);
    references.add(referenceValue);
    Map<String, Object> pair = new LinkedHashMap<>();
    pair.put("pair", figures.size() + 1);
    pair.put("order", order);
    pair.put("ledger", ledgerValue);
    pair.put(reference, referenceValue);
    pair.put("ratio", ledgerValue / referenceValue);
    pair.putAll(details);
    figures.add(pair);
    return this;
  }

  int size() {
    return ledger.size();
  }

  /** The median of the pairs' {@code ledger / reference}. */
  double medianRatio() {
    List<Double> ratios = new ArrayList<>();
    for (int i = 0; i < ledger.size(); i++) {
      ratios.add(ledger.get(i) / references.get(i));
    }
    return median(ratios);
  }

  double medianLedger() {
    return median(ledger);
  }

  double medianReference() {
    return median(references);
  }

  /** Every pair's ratio, in the order measured, for a note. */
  List<Double> ratios() {
    List<Double> ratios = new ArrayList<>();
    for (int i = 0; i < ledger.size(); i++) {
      ratios.add(Math.round(ledger.get(i) / references.get(i) * 1000) / 1000.0);
    }
    return ratios;
  }

  /** One map per pair: its number, order, both values, the ratio and its details. */
  List<Map<String, Object>> figures() {
    return List.copyOf(figures);
  }

  /** The median (the mean of the two middle values for an even count); NaN for none. */
  static double median(List<Double> values) {
    if (values.isEmpty()) {
      return Double.NaN;
    }
    List<Double> sorted = new ArrayList<>(values);
    sorted.sort(null);
    int n = sorted.size();
    return n % 2 == 1 ? sorted.get(n / 2) : (sorted.get(n / 2 - 1) + sorted.get(n / 2)) / 2;
  }
}
