package dev.segmentledger.console.internal;

import java.time.Duration;
import java.time.format.DateTimeParseException;
import java.util.Optional;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The duration syntax of the operations tools: the console's filters and the command line's
 * options (the command line depends on this module) read an age such as "registered more than 2h
 * ago" the same way. A whole number of seconds, minutes, hours or days ({@code 90s}, {@code 15m},
 * {@code 2h}, {@code 3d}) or ISO-8601 ({@code PT1H30M}); never negative. Stateless and
 * thread-safe. Not API: this package is not exported; the command line uses it from the class path.
 */
public final class DurationSyntax {
  private static final Pattern SHORT = Pattern.compile("(\\d{1,9})([smhd])");

  private DurationSyntax() {}

  /**
   * The duration {@code text} gives (surrounding white space ignored), or empty if it is not one
   * of the forms above or is negative: the caller words the refusal for its own user.
   */
  public static Optional<Duration> parse(String text) {
    String trimmed = text.trim();
    Matcher m = SHORT.matcher(trimmed);
    if (m.matches()) {
      long n = Long.parseLong(m.group(1));
      return Optional.of(switch (m.group(2)) {
        case "s" -> Duration.ofSeconds(n);
        case "m" -> Duration.ofMinutes(n);
        case "h" -> Duration.ofHours(n);
        default -> Duration.ofDays(n);
      });
    }
    try {
      Duration d = Duration.parse(trimmed);
      return d.isNegative() ? Optional.empty() : Optional.of(d);
    } catch (DateTimeParseException e) {
      return Optional.empty();
    }
  }
}
