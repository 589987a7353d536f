package dev.segmentledger.core.spi;

import dev.segmentledger.core.internal.PrintableText;

/**
 * The former name of {@link dev.segmentledger.core.Printable}, which it delegates to; kept so that
 * code compiled against earlier versions still links.
 *
 * @deprecated use {@link dev.segmentledger.core.Printable}
 */
@Deprecated(since = "1.0.0")
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
