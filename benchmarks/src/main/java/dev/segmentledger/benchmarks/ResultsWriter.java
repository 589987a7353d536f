package dev.segmentledger.benchmarks;

import com.fasterxml.jackson.core.io.JsonStringEncoder;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Collection;
import java.util.Iterator;
import java.util.List;
import java.util.Map;

/** Writes the results as a JSON array and as a Markdown table. */
final class ResultsWriter {
  private ResultsWriter() {}

  static void write(List<BenchResult> results, Path json, Path markdown, String header) throws IOException {
    Files.createDirectories(json.toAbsolutePath().getParent());
    Files.writeString(json, json(results));
    Files.writeString(markdown, markdown(results, header));
  }

  static String json(List<BenchResult> results) {
    StringBuilder out = new StringBuilder("[\n");
    for (int i = 0; i < results.size(); i++) {
      BenchResult r = results.get(i);
      out.append("  {\"name\": ").append(quote(r.name()))
          .append(", \"value\": ").append(Double.isNaN(r.value()) ? "null" : BenchResult.fmt(r.value()))
          .append(", \"unit\": ").append(quote(r.unit()))
          .append(", \"goal\": ").append(quote(r.goal()))
          .append(", \"met\": ").append(r.met())
          .append(", \"note\": ").append(quote(r.note()))
          .append(", \"conditions\": ").append(value(r.conditions()))
          .append(i == results.size() - 1 ? "}\n" : "},\n");
    }
    return out.append("]\n").toString();
  }

  static String markdown(List<BenchResult> results, String header) {
    StringBuilder out = new StringBuilder(header).append("\n\n| measure | value | unit | goal | met | note |\n")
        .append("|---|---:|---|---|---|---|\n");
    for (BenchResult r : results) {
      out.append("| ").append(r.name()).append(" | ").append(BenchResult.fmt(r.value())).append(" | ")
          .append(r.unit()).append(" | ").append(r.goal().replace("|", "\\|")).append(" | ")
          .append(r.met() ? "yes" : "**no**").append(" | ").append(r.note().replace("|", "\\|")).append(" |\n");
    }
    return out.toString();
  }

  private static String value(Object v) {
    if (v == null) {
      return "null";
    }
    if (v instanceof Number n) {
      double d = n.doubleValue();
      return Double.isNaN(d) || Double.isInfinite(d) ? "null" : BenchResult.fmt(d);
    }
    if (v instanceof Boolean) {
      return v.toString();
    }
    if (v instanceof Map<?, ?> map) {
      StringBuilder out = new StringBuilder("{");
      Iterator<? extends Map.Entry<?, ?>> it = map.entrySet().iterator();
      while (it.hasNext()) {
        Map.Entry<?, ?> e = it.next();
        out.append(quote(String.valueOf(e.getKey()))).append(": ").append(value(e.getValue()));
        if (it.hasNext()) {
          out.append(", ");
        }
      }
      return out.append('}').toString();
    }
    if (v instanceof Collection<?> list) {
      StringBuilder out = new StringBuilder("[");
      Iterator<?> it = list.iterator();
      while (it.hasNext()) {
        out.append(value(it.next()));
        if (it.hasNext()) {
          out.append(", ");
        }
      }
      return out.append(']').toString();
    }
    return quote(v.toString());
  }

  /** {@code s} as a JSON string, quoted and escaped by Jackson. */
  static String quote(String s) {
    return "\"" + new String(JsonStringEncoder.getInstance().quoteAsString(s)) + "\"";
  }
}
