package dev.segmentledger.console;

import dev.segmentledger.console.internal.DurationSyntax;
import dev.segmentledger.core.Identifiers;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

/** Reading a request's parameters; a bad value is a {@link BadInput} that says what is allowed. */
final class Params {
  private final ConsoleRequest request;

  Params(ConsoleRequest request) {
    this.request = request;
  }

  String text(String name) {
    return request.parameter(name);
  }

  /** A broadcast id (required or not). */
  String broadcast(String name, boolean required) {
    String value = request.parameter(name);
    if (value == null) {
      if (required) {
        throw new BadInput(name + " is required: a broadcast id");
      }
      return null;
    }
    try {
      return Identifiers.requireValid(name, value);
    } catch (IllegalArgumentException e) {
      throw new BadInput(e.getMessage());
    }
  }

  long number(String name, long min, long max, long otherwise) {
    String value = request.parameter(name);
    if (value == null) {
      return otherwise;
    }
    try {
      long n = Long.parseLong(value.trim());
      if (n >= min && n <= max) {
        return n;
      }
    } catch (NumberFormatException e) {
      // refused below
    }
    throw new BadInput(name + " must be a whole number from " + min + " to " + max + ", got \""
        + clip(value) + "\"");
  }

  <E extends Enum<E>> E choice(String name, Class<E> type) {
    String value = request.parameter(name);
    if (value == null) {
      return null;
    }
    try {
      return Enum.valueOf(type, value.trim().toUpperCase(Locale.ROOT));
    } catch (IllegalArgumentException e) {
      List<String> allowed = new ArrayList<>();
      for (E constant : type.getEnumConstants()) {
        allowed.add(constant.name());
      }
      throw new BadInput(name + " must be one of " + allowed + ", got \"" + clip(value) + "\"");
    }
  }

  /** A duration as 90s, 15m, 2h, 3d or ISO-8601 (PT1H): {@link DurationSyntax}. */
  Duration duration(String name) {
    String value = request.parameter(name);
    if (value == null) {
      return null;
    }
    return DurationSyntax.parse(value).orElseThrow(() -> new BadInput(name
        + " must be a duration such as 90s, 15m, 2h, 3d or PT1H, got \"" + clip(value) + "\""));
  }

  private static String clip(String value) {
    return value.length() > 80 ? value.substring(0, 80) + "..." : value;
  }
}
