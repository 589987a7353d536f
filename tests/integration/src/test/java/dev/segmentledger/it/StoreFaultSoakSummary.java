package dev.segmentledger.it;

import dev.segmentledger.core.ItemState;
import dev.segmentledger.core.LedgerItem;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.stream.Collectors;

/**
 * The result of one {@link StoreFaultSoakTest} run, as a Markdown page in the form of the other
 * results in {@code benchmarks/results} (a line saying what ran, the conditions, a table of
 * measures with their goals, then every row that did not end {@code CONFIRMED} with its reason and
 * last error), so that a run can be committed as it is. Filled by the test, then {@link #write}ten.
 */
final class StoreFaultSoakSummary {
  private record Measure(String name, long value, String unit, Long goalAtMost, String note) {}

  private final List<Measure> measures = new ArrayList<>();
  private final List<LedgerItem> wrongRows = new ArrayList<>();
  private final List<String> lostFiles = new ArrayList<>();
  private final String conditions;

  StoreFaultSoakSummary(String conditions) {
    this.conditions = conditions;
  }

  /** A measure without a goal. */
  StoreFaultSoakSummary add(String name, long value, String unit, String note) {
    measures.add(new Measure(name, value, unit, null, note));
    return this;
  }

  /** A measure whose goal is at most {@code goal}. */
  StoreFaultSoakSummary addAtMost(String name, long value, long goal, String unit, String note) {
    measures.add(new Measure(name, value, unit, goal, note));
    return this;
  }

  /** The rows at the end: each one not {@code CONFIRMED} is listed. */
  StoreFaultSoakSummary rows(List<LedgerItem> rows) {
    rows.stream().filter(row -> row.state() != ItemState.CONFIRMED).forEach(wrongRows::add);
    return this;
  }

  /** A file the recorder registered that has no confirmed row with its object in the bucket. */
  StoreFaultSoakSummary lost(String what) {
    lostFiles.add(what);
    return this;
  }

  /** Whether every measure with a goal met it. */
  boolean met() {
    return measures.stream().allMatch(m -> m.goalAtMost() == null || m.value() <= m.goalAtMost());
  }

  /** The rows not confirmed, by state and reason: "REJECTED INTERNAL_ERROR=3, PENDING null=1". */
  String wrongRowsByReason() {
    Map<String, Long> counts = new TreeMap<>(wrongRows.stream()
        .collect(Collectors.groupingBy(row -> row.state() + " " + row.reason(), Collectors.counting())));
    return counts.toString();
  }

  String markdown(Instant at, long tookSeconds) {
    StringBuilder page = new StringBuilder();
    page.append("Segment Ledger store-fault soak (").append(met() ? "met" : "NOT met").append(", ").append(at)
        .append(", took ").append(tookSeconds).append(" s)\n\n").append(conditions).append("\n\n");
    page.append("| measure | value | unit | goal | met | note |\n|---|---:|---|---|---|---|\n");
    for (Measure m : measures) {
      boolean met = m.goalAtMost() == null || m.value() <= m.goalAtMost();
      page.append("| ").append(m.name()).append(" | ").append(m.value()).append(" | ").append(m.unit()).append(" | ")
          .append(m.goalAtMost() == null ? "-" : "<= " + m.goalAtMost()).append(" | ").append(met ? "yes" : "NO")
          .append(" | ").append(cell(m.note())).append(" |\n");
    }
    page.append("\nRows not CONFIRMED at the end: ").append(wrongRows.size()).append(' ').append(wrongRowsByReason())
        .append("\n");
    if (!wrongRows.isEmpty()) {
      page.append("\n| row | item | state | reason | attempts | last error |\n|---:|---|---|---|---:|---|\n");
      for (LedgerItem row : wrongRows) {
        page.append("| ").append(row.rowId()).append(" | ").append(row.id()).append(" | ").append(row.state())
            .append(" | ").append(row.reason()).append(" | ").append(row.attempts()).append(" | ")
            .append(cell(row.lastError())).append(" |\n");
      }
    }
    if (!lostFiles.isEmpty()) {
      page.append("\nFiles lost:\n\n");
      lostFiles.forEach(file -> page.append("- ").append(cell(file)).append('\n'));
    }
    return page.toString();
  }

  /** Writes {@link #markdown} to {@code file} and returns it. */
  String write(Path file, Instant at, long tookSeconds) throws IOException {
    String page = markdown(at, tookSeconds);
    Files.createDirectories(file.toAbsolutePath().getParent());
    Files.writeString(file, page, StandardCharsets.UTF_8);
    return page;
  }

  private static String cell(String text) {
    if (text == null) {
      return "";
    }
    String flat = text.replace('\n', ' ').replace("|", "\\|");
    return flat.length() > 400 ? flat.substring(0, 400) + "..." : flat;
  }
}
