package dev.segmentledger.core.internal;

/**
 * The one escaping rule for outside input (file names, identifiers that were refused, object keys
 * listed from a bucket, replies of a server or of an external program) in exception messages, log
 * lines and a row's {@code last_error}.
 *
 * <p>Every code point that could break a line, reorder or hide text on a terminal or in a log
 * viewer is written as {@code \}{@code uXXXX} (lower-case hex; a code point above U+FFFF as its two
 * UTF-16 units): ISO controls (U+0000–U+001F, U+007F–U+009F, so also NEL U+0085), the line and
 * paragraph separators U+2028 and U+2029, format characters (Unicode category Cf: the bidi
 * controls U+200E, U+200F, U+202A–U+202E and U+2066–U+2069, zero-width characters, U+FEFF and the
 * like), unpaired surrogates, and unassigned code points. Everything else, the backslash included,
 * is kept as it is, so escaping twice gives the same text as escaping once, and a message that
 * embeds an already escaped part stays readable.
 *
 * <p>The engine's and the API's implementation of the rule; adapters reach it as
 * {@link dev.segmentledger.core.Printable}.
 */
public final class PrintableText {
  private static final char[] HEX = "0123456789abcdef".toCharArray();

  private PrintableText() {}

  /** {@code String.valueOf(value)} with every unsafe code point escaped; {@code "null"} for null. */
  public static String escape(Object value) {
    String text = String.valueOf(value);
    int first = firstUnsafe(text);
    if (first < 0) {
      return text;
    }
    StringBuilder out = new StringBuilder(text.length() + 16).append(text, 0, first);
    for (int i = first; i < text.length(); ) {
      int cp = text.codePointAt(i);
      int length = Character.charCount(cp);
      if (isSafe(cp)) {
        out.append(text, i, i + length);
      } else {
        for (int j = i; j < i + length; j++) {
          appendEscaped(out, text.charAt(j));
        }
      }
      i += length;
    }
    return out.toString();
  }

  /**
   * {@code text} cut to its first {@code maxCodePoints} code points for a list, with a marker that
   * says so and how much was left out: {@code "...[+1234 characters]"}. Text no longer than that
   * is returned as it is; {@code null} stays {@code null}. Escape first, then cut: the cut never
   * splits a surrogate pair.
   *
   * @throws IllegalArgumentException if {@code maxCodePoints} is negative
   */
  public static String truncate(String text, int maxCodePoints) {
    if (maxCodePoints < 0) {
      throw new IllegalArgumentException("maxCodePoints must be >= 0, got " + maxCodePoints);
    }
    if (text == null) {
      return null;
    }
    int length = text.codePointCount(0, text.length());
    if (length <= maxCodePoints) {
      return text;
    }
    return text.substring(0, text.offsetByCodePoints(0, maxCodePoints)) + "...[+" + (length - maxCodePoints)
        + " characters]";
  }

  /** Whether {@code codePoint} may appear unescaped in a message or log line. */
  public static boolean isSafe(int codePoint) {
    if (Character.isISOControl(codePoint)) {
      return false;
    }
    return switch (Character.getType(codePoint)) {
      case Character.LINE_SEPARATOR, Character.PARAGRAPH_SEPARATOR, Character.FORMAT, Character.SURROGATE,
          Character.UNASSIGNED -> false;
      default -> true;
    };
  }

  private static int firstUnsafe(String text) {
    for (int i = 0; i < text.length(); ) {
      int cp = text.codePointAt(i);
      if (!isSafe(cp)) {
        return i;
      }
      i += Character.charCount(cp);
    }
    return -1;
  }

  private static void appendEscaped(StringBuilder out, char c) {
    out.append("\\u").append(HEX[(c >> 12) & 0xf]).append(HEX[(c >> 8) & 0xf]).append(HEX[(c >> 4) & 0xf])
        .append(HEX[c & 0xf]);
  }
}
