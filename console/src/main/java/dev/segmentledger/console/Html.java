package dev.segmentledger.console;

import dev.segmentledger.core.Printable;
import java.net.URLEncoder;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.util.Map;
import java.util.TreeMap;

/**
 * Writing HTML with one escaping rule: every value goes through {@link Printable#escape} (controls,
 * bidi and other format characters become visible {@code \}{@code uXXXX} text) and then through HTML
 * escaping of {@code & < > " '}, so outside input (a row's last error, a key, a file name) can
 * neither add markup nor reorder what is shown. Markup is only ever written by the console's own
 * code. Not thread-safe (a builder per page).
 */
final class Html {
  private final StringBuilder out = new StringBuilder(8_192);
  private final String base;

  Html(String base) {
    this.base = base;
  }

  /** {@code value} as text for an element or a quoted attribute. */
  static String text(Object value) {
    String printable = Printable.escape(value == null ? "" : value);
    StringBuilder s = new StringBuilder(printable.length() + 16);
    for (int i = 0; i < printable.length(); i++) {
      char c = printable.charAt(i);
      switch (c) {
        case '&' -> s.append("&amp;");
        case '<' -> s.append("&lt;");
        case '>' -> s.append("&gt;");
        case '"' -> s.append("&quot;");
        case '\'' -> s.append("&#39;");
        default -> s.append(c);
      }
    }
    return s.toString();
  }

  /**
   * A link's address: the console's base, {@code path}, and the parameters in name order (so a
   * page's links are the same text every time), URL-encoded; empty values left out.
   */
  String href(String path, Map<String, ?> parameters) {
    StringBuilder url = new StringBuilder(base).append(path);
    char separator = '?';
    for (Map.Entry<String, ?> p : new TreeMap<>(parameters).entrySet()) {
      if (p.getValue() == null || p.getValue().toString().isEmpty()) {
        continue;
      }
      url.append(separator).append(URLEncoder.encode(p.getKey(), StandardCharsets.UTF_8)).append('=')
          .append(URLEncoder.encode(p.getValue().toString(), StandardCharsets.UTF_8));
      separator = '&';
    }
    return text(url);
  }

  String base() {
    return base;
  }

  /** Appends markup written by the console itself (never outside input). */
  Html raw(String markup) {
    out.append(markup);
    return this;
  }

  /** Appends escaped text. */
  Html t(Object value) {
    out.append(text(value));
    return this;
  }

  /** A table cell holding escaped text. */
  Html td(Object value) {
    out.append("<td>").append(value == null ? "&ndash;" : text(value)).append("</td>");
    return this;
  }

  /** How long ago, or how far ahead, {@code instant} is at {@code now}, in a short form ("3m 12s"). */
  static String age(Instant instant, Instant now) {
    if (instant == null) {
      return "";
    }
    Duration d = Duration.between(instant, now);
    return d.isNegative() ? "in " + span(d.negated()) : span(d) + " ago";
  }

  static String span(Duration d) {
    long s = d.toSeconds();
    if (s < 60) {
      return s + "s";
    }
    if (s < 3_600) {
      return s / 60 + "m " + s % 60 + "s";
    }
    if (s < 86_400) {
      return s / 3_600 + "h " + s % 3_600 / 60 + "m";
    }
    return s / 86_400 + "d " + s % 86_400 / 3_600 + "h";
  }

  @Override
  public String toString() {
    return out.toString();
  }
}
