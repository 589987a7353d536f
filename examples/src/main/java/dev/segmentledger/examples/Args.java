package dev.segmentledger.examples;

import java.util.LinkedHashMap;
import java.util.Map;

/**
 * {@code --name=value} arguments. An argument may hold several of them separated by whitespace
 * (Maven passes {@code -Ddemo.args="--a=1 --b=2"} as one argument); values cannot contain spaces.
 */
final class Args {
  private Args() {}

  static Map<String, String> parse(String... args) {
    Map<String, String> parsed = new LinkedHashMap<>();
    for (String arg : String.join(" ", args).trim().split("\\s+")) {
      if (arg.isBlank()) {
        continue;
      }
      int eq = arg.indexOf('=');
      if (!arg.startsWith("--") || eq < 0) {
        throw new IllegalArgumentException("arguments are --name=value, got: " + arg);
      }
      parsed.put(arg.substring(2, eq), arg.substring(eq + 1));
    }
    return parsed;
  }
}
