package dev.segmentledger.core;

import dev.segmentledger.core.internal.PrintableText;

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
 * <p>Adapters (sinks, stores, repackagers) use it for whatever outside input they put into their
 * own messages and log lines; applications (the console, the command line) for what they show.
 * Thread-safe, stateless.
 */
public final class Printable {
  private Printable() {}

  /** {@code String.valueOf(value)} with every unsafe code point escaped; {@code "null"} for null. */
  public static String escape(Object value) {
    return PrintableText.escape(value);
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
    return PrintableText.truncate(text, maxCodePoints);
  }

  /** Whether {@code codePoint} may appear unescaped in a message or log line. */
  public static boolean isSafe(int codePoint) {
    return PrintableText.isSafe(codePoint);
  }
}
