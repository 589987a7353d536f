package dev.segmentledger.cli;

import java.util.Iterator;
import java.util.List;
import java.util.Map;

/**
 * A minimal JSON writer for the command line's {@code --json} output: maps (written in their
 * iteration order), lists, strings, numbers, booleans and {@code null}. Strings are escaped as RFC
 * 8259 requires, and beyond it every control character and the line and paragraph separators
 * U+2028 and U+2029 are written as {@code \\u} escapes, so that a file name or an error detail can
 * never break a line-oriented consumer. Stateless and thread-safe.
 */
final class Json {
  private static final char[] HEX = "0123456789abcdef".toCharArray();

  private Json() {}

  /** {@code value} as one line of JSON. */
  static String write(Object value) {
    StringBuilder out = new StringBuilder();
    append(out, value);
    return out.toString();
  }

  private static void append(StringBuilder out, Object value) {
    if (value == null) {
      out.append("null");
    } else if (value instanceof String s) {
      appendString(out, s);
    } else if (value instanceof Boolean || value instanceof Integer || value instanceof Long) {
      out.append(value);
    } else if (value instanceof Map<?, ?> map) {
      out.append('{');
      Iterator<? extends Map.Entry<?, ?>> entries = map.entrySet().iterator();
      while (entries.hasNext()) {
        Map.Entry<?, ?> entry = entries.next();
        appendString(out, String.valueOf(entry.getKey()));
        out.append(':');
        append(out, entry.getValue());
        if (entries.hasNext()) {
          out.append(',');
        }
      }
      out.append('}');
    } else if (value instanceof List<?> list) {
      out.append('[');
      for (int i = 0; i < list.size(); i++) {
        if (i > 0) {
          out.append(',');
        }
        append(out, list.get(i));
      }
      out.append(']');
    } else {
      appendString(out, value.toString()); // enums, instants, durations: their text
    }
  }

  private static void appendString(StringBuilder out, String s) {
    out.append('"');
    for (int i = 0; i < s.length(); i++) {
      char c = s.charAt(i);
      switch (c) {
        case '"' -> out.append("\\\"");
        case '\\' -> out.append("\\\\");
        case '\n' -> out.append("\\n");
        case '\r' -> out.append("\\r");
        case '\t' -> out.append("\\t");
        default -> {
          if (c < 0x20 || (c >= 0x7f && c <= 0x9f) || c == '\u2028' || c == '\u2029') {
            out.append("\\u").append(HEX[(c >> 12) & 0xf]).append(HEX[(c >> 8) & 0xf])
                .append(HEX[(c >> 4) & 0xf]).append(HEX[c & 0xf]);
          } else {
            out.append(c);
          }
        }
      }
    }
    out.append('"');
  }
}
