package dev.segmentledger.core;

import static org.junit.jupiter.api.Assertions.assertEquals;

import dev.segmentledger.core.Printable;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;

/**
 * {@link Identifiers#isValid} (a hand-written loop, not a regular expression) accepts exactly the language of the regular
 * expression it replaced, {@code [A-Za-z0-9][A-Za-z0-9._-]{0,63}}: checked on edge cases and on
 * random strings over an alphabet of valid, invalid and non-ASCII characters.
 */
class IdentifiersTest {
  private static final Pattern REFERENCE = Pattern.compile("[A-Za-z0-9][A-Za-z0-9._-]{0,63}");

  @Test
  void acceptsExactlyTheReferenceLanguage() {
    List<String> cases = new ArrayList<>(List.of("", "a", "Z", "0", "9", ".", "_", "-", "..", "a.", "a..b", "-a",
        ".a", "_a", "a/b", "a b", "a\u0000", "é", "aé", "a\uD83D\uDE00", "A-Z_a.z-09", "a".repeat(64),
        "a".repeat(65), "1080p", "bc-2026.01_x", "a\n", "[", "`", "{", "@", "/", ":"));
    Random random = new Random(19);
    String valid = "azAZ09._-";
    String mixed = valid + "/ :@[`{\u00e9\u0000\n\u212a";
    for (int n = 0; n < 20_000; n++) {
      String alphabet = n % 2 == 0 ? valid : mixed;
      int length = random.nextInt(70);
      StringBuilder s = new StringBuilder(length);
      for (int i = 0; i < length; i++) {
        s.append(alphabet.charAt(random.nextInt(alphabet.length())));
      }
      cases.add(s.toString());
    }
    for (String value : cases) {
      assertEquals(REFERENCE.matcher(value).matches(), Identifiers.isValid(value), () -> "for " + Printable.escape(value));
    }
    assertEquals(false, Identifiers.isValid(null));
  }
}
