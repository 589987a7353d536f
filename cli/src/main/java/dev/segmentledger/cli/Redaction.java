package dev.segmentledger.cli;

import dev.segmentledger.core.Printable;
import java.util.regex.Pattern;

/** Keeps secrets and control characters out of what the command line prints. */
final class Redaction {
  private static final Pattern PASSWORD_PARAMETER = Pattern.compile("(?i)(password=)[^&;]*");
  private static final Pattern USER_INFO = Pattern.compile("//[^/@]*@");

  private Redaction() {}

  /** A JDBC URL without its password (as a parameter or user info), printable. */
  static String url(String url) {
    String redacted = PASSWORD_PARAMETER.matcher(url).replaceAll("$1***");
    return Printable.escape(USER_INFO.matcher(redacted).replaceAll("//***@"));
  }

  /** The message of {@code e}, or of its first cause that has one, printable, on one line. */
  static String message(Throwable e) {
    for (Throwable t = e; t != null; t = t.getCause() == t ? null : t.getCause()) {
      if (t.getMessage() != null && !t.getMessage().isBlank()) {
        return Printable.escape(t.getMessage().strip());
      }
    }
    return e.getClass().getSimpleName();
  }
}
