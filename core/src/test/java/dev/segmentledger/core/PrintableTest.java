package dev.segmentledger.core;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.segmentledger.core.ItemId;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

class PrintableTest {

  /** Code points that must never reach a message or log line raw. */
  private static final String UNSAFE = "\u0000\u0009\n\r\u001b\u007f\u0085\u009b\u00ad\u061c\u200b\u200e\u200f"
      + "\u2028\u2029\u202a\u202b\u202c\u202d\u202e\u2060\u2066\u2067\u2068\u2069\ufeff\ufff9\uffff\ud800\udfff"
      + new String(Character.toChars(0xE0001));

  @ParameterizedTest
  @ValueSource(strings = {"\u2028", "\u0085", "\u202e", "\u0000", "\u2029", "\u2066", "\u200f", "\n"})
  void itemIdRefusalsShowOnlyEscapedForms(String hostile) {
    String cp = String.format("\\u%04x", (int) hostile.charAt(0));
    for (String value : new String[] {"b" + hostile + "x", hostile}) {
      IllegalArgumentException broadcast =
          assertThrows(IllegalArgumentException.class, () -> ItemId.original(value, "720p", 0));
      IllegalArgumentException rendition =
          assertThrows(IllegalArgumentException.class, () -> ItemId.init("b42", value));
      for (IllegalArgumentException e : new IllegalArgumentException[] {broadcast, rendition}) {
        assertFalse(e.getMessage().contains(hostile), e.getMessage());
        assertTrue(e.getMessage().contains(cp), e.getMessage());
        assertPrintable(e.getMessage());
      }
    }
  }

  @Test
  void truncateCutsAtCodePointsAndSaysHowMuchWasLeftOut() {
    assertEquals("abc", Printable.truncate("abc", 3));
    assertEquals("ab...[+1 characters]", Printable.truncate("abc", 2));
    assertEquals("\uD83C\uDFAC...[+2 characters]", Printable.truncate("\uD83C\uDFACxy", 1), "a pair is never split");
    assertEquals(null, Printable.truncate(null, 5));
    assertThrows(IllegalArgumentException.class, () -> Printable.truncate("x", -1));
  }

  @Test
  void aLongRefusedIdentifierIsCutAfterEightyCodePointsAndStillEscaped() {
    String value = "\u202e".repeat(100);
    IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> ItemId.original(value, "r", 0));
    assertTrue(e.getMessage().endsWith("\"" + "\\u202e".repeat(80) + "...\""), e.getMessage());
  }

  @Test
  void everyUnsafeCodePointIsEscapedAndNothingElse() {
    String escaped = Printable.escape("a" + UNSAFE + "z");
    assertPrintable(escaped);
    assertEquals("a\\u0000\\u0009\\u000a\\u000d\\u001b\\u007f\\u0085\\u009b\\u00ad\\u061c\\u200b\\u200e\\u200f"
        + "\\u2028\\u2029\\u202a\\u202b\\u202c\\u202d\\u202e\\u2060\\u2066\\u2067\\u2068\\u2069\\ufeff\\ufff9\\uffff"
        + "\\ud800\\udfff\\udb40\\udc01z", escaped);
    String kept = "caf\u00e9 \u00a0x/y\\z \u4e2d\u6587 \ud83c\udfa5 \u05d0\u0628 \ufffd \"q\"";
    assertEquals(kept, Printable.escape(kept));
  }

  @Test
  void escapingIsIdempotentAndNullSafe() {
    String once = Printable.escape("evil\n\u202eINFO");
    assertEquals(once, Printable.escape(once));
    assertEquals("null", Printable.escape(null));
  }

  private static void assertPrintable(String text) {
    text.codePoints().forEach(cp -> assertTrue(Printable.isSafe(cp),
        () -> String.format("U+%04X left raw in %s", cp, Printable.escape(text))));
  }
}
