package dev.segmentledger.core;

import dev.segmentledger.core.internal.PrintableText;

/**
 * Validation of the identifiers that form object keys (broadcast and rendition ids).
 *
 * <p>An identifier is 1 to 64 characters of {@code [A-Za-z0-9._-]} starting with a letter or a
 * digit. It therefore can never contain a slash, a control character or whitespace, and can never
 * be {@code .} or {@code ..}: no key built from identifiers can escape its prefix.
 */
public final class Identifiers {
  /** The longest identifier accepted. */
  public static final int MAX_LENGTH = 64;

  /** How much of a refused value its message shows. */
  private static final int DESCRIBED_CODE_POINTS = 80;

  private Identifiers() {}

  /** Whether {@code value} is a valid identifier. */
  public static boolean isValid(String value) {
    // A loop rather than a regular expression: every ItemId checks two identifiers, and a row read
    // back builds one, so this runs several times per item (the Matcher was among the
    // largest allocations per item). Same language as [A-Za-z0-9][A-Za-z0-9._-]{0,63}.
    if (value == null || value.isEmpty() || value.length() > MAX_LENGTH || !isLetterOrDigit(value.charAt(0))) {
      return false;
    }
    for (int i = 1; i < value.length(); i++) {
      char c = value.charAt(i);
      if (!isLetterOrDigit(c) && c != '.' && c != '_' && c != '-') {
        return false;
      }
    }
    return true;
  }

  private static boolean isLetterOrDigit(char c) {
    return (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9');
  }

  /**
   * Returns {@code value} if valid.
   *
   * @throws IllegalArgumentException naming the field and the rule, if {@code value} is invalid
   */
  public static String requireValid(String field, String value) {
    if (!isValid(value)) {
      throw new IllegalArgumentException(field + " must be 1-" + MAX_LENGTH
          + " characters of [A-Za-z0-9._-] starting with a letter or digit, got: " + describe(value));
    }
    return value;
  }

  /** {@code value} for the refusal message: its first 80 code points, escaped by {@link dev.segmentledger.core.Printable}. */
  private static String describe(String value) {
    if (value == null) {
      return "null";
    }
    boolean cut = value.codePointCount(0, value.length()) > DESCRIBED_CODE_POINTS;
    String shown = cut ? value.substring(0, value.offsetByCodePoints(0, DESCRIBED_CODE_POINTS)) : value;
    return "\"" + PrintableText.escape(shown) + (cut ? "...\"" : "\"");
  }
}
