package dev.segmentledger.cli;

import dev.segmentledger.core.Printable;
import java.io.PrintWriter;
import java.util.ArrayList;
import java.util.List;

/**
 * A plain-text table for the human-readable output: left-aligned columns two spaces apart. Every
 * cell goes through {@link Printable#escape}, so a file name or error detail cannot move the
 * terminal's cursor or forge a line; cells longer than {@value #MAX_CELL} characters are cut.
 * Not thread-safe.
 */
final class Table {
  static final int MAX_CELL = 80;

  private final List<String> header;
  private final List<List<String>> rows = new ArrayList<>();

  Table(String... header) {
    this.header = List.of(header);
  }

  Table row(Object... cells) {
    if (cells.length != header.size()) {
      throw new IllegalArgumentException("expected " + header.size() + " cells, got " + cells.length);
    }
    List<String> row = new ArrayList<>(cells.length);
    for (Object cell : cells) {
      String text = cell == null ? "-" : Printable.escape(cell);
      row.add(text.length() > MAX_CELL ? text.substring(0, MAX_CELL - 3) + "..." : text);
    }
    rows.add(row);
    return this;
  }

  boolean isEmpty() {
    return rows.isEmpty();
  }

  void print(PrintWriter out) {
    int[] widths = new int[header.size()];
    for (int i = 0; i < widths.length; i++) {
      widths[i] = header.get(i).length();
      for (List<String> row : rows) {
        widths[i] = Math.max(widths[i], row.get(i).length());
      }
    }
    printRow(out, header, widths);
    for (List<String> row : rows) {
      printRow(out, row, widths);
    }
  }

  private static void printRow(PrintWriter out, List<String> cells, int[] widths) {
    StringBuilder line = new StringBuilder();
    for (int i = 0; i < cells.size(); i++) {
      line.append(cells.get(i));
      if (i < cells.size() - 1) {
        line.append(" ".repeat(widths[i] - cells.get(i).length() + 2));
      }
    }
    out.println(line);
  }
}
