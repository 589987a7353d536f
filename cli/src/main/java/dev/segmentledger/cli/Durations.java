package dev.segmentledger.cli;

import dev.segmentledger.console.internal.DurationSyntax;
import java.time.Duration;
import picocli.CommandLine.ITypeConverter;
import picocli.CommandLine.TypeConversionException;

/**
 * Parses a duration option as the console reads its filters ({@link DurationSyntax}): {@code 90s},
 * {@code 15m}, {@code 2h}, {@code 3d}, or ISO-8601 ({@code PT1H30M}); never negative.
 */
final class Durations implements ITypeConverter<Duration> {
  @Override
  public Duration convert(String value) {
    return DurationSyntax.parse(value).orElseThrow(() -> new TypeConversionException(
        "not a duration (use 90s, 15m, 2h, 3d or ISO-8601 such as PT1H30M; never negative): " + value));
  }
}
