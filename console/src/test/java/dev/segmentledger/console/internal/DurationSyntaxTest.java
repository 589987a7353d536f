package dev.segmentledger.console.internal;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.time.Duration;
import java.util.Optional;
import org.junit.jupiter.api.Test;

/** The short and ISO-8601 forms the console's filters and the command line's options share. */
class DurationSyntaxTest {
  @Test
  void shortFormsAndIso8601AreRead() {
    assertEquals(Optional.of(Duration.ofSeconds(90)), DurationSyntax.parse("90s"));
    assertEquals(Optional.of(Duration.ofMinutes(15)), DurationSyntax.parse("15m"));
    assertEquals(Optional.of(Duration.ofHours(2)), DurationSyntax.parse(" 2h "));
    assertEquals(Optional.of(Duration.ofDays(3)), DurationSyntax.parse("3d"));
    assertEquals(Optional.of(Duration.ofMinutes(90)), DurationSyntax.parse("PT1H30M"));
  }

  @Test
  void anythingElseOrANegativeDurationIsNotOne() {
    for (String text : new String[] {"soon", "", "2w", "-5m", "-PT1H", "1.5h", "1234567890s"}) {
      assertEquals(Optional.empty(), DurationSyntax.parse(text), text);
    }
  }
}
