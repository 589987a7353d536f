package dev.segmentledger.cli;

import java.time.Duration;
import java.time.format.DateTimeParseException;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import picocli.CommandLine.ITypeConverter;
import picocli.CommandLine.TypeConversionException;

/** Parses a duration option: {@code 90s}, {@code 15m}, {@code 2h}, {@code 3d}, or ISO-8601 ({@code PT1H30M}). */
final class Durations implements ITypeConverter<Duration> {
  private static final Pattern SHORT = Pattern.compile("(\\d{1,9})([smhd])");

  @Override
  public Duration convert(String value) {
    Matcher m = SHORT.matcher(value.trim());
    if (m.matches()) {
      long n = Long.parseLong(m.group(1));
      return switch (m.group(2)) {
        case "s" -> Duration.ofSeconds(n);
        case "m" -> Duration.ofMinutes(n);
        case "h" -> Duration.ofHours(n);
        default -> Duration.ofDays(n);
      };
    }
    try {
      Duration d = Duration.parse(value.trim());
      if (d.isNegative()) {
        throw new TypeConversionException("a duration must not be negative: " + value);
      }
      return d;
    } catch (DateTimeParseException e) {
      throw new TypeConversionException("not a duration (use 90s, 15m, 2h, 3d or ISO-8601 such as PT1H30M): "
          + value);
    }
  }
}
