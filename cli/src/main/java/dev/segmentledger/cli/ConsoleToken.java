package dev.segmentledger.cli;

import java.security.SecureRandom;
import java.util.Base64;

/**
 * The console command's access token: {@code $SEGMENT_LEDGER_CONSOLE_TOKEN}, or one made up at start.
 * Only a made-up token is printed (in the URL that hands it over): a token from the environment is
 * a secret its holder already has, and printing it would copy it into a terminal's scrollback or a
 * service's journal. Immutable.
 *
 * @param value the token
 * @param generated whether the command made it up (and so must print it)
 */
record ConsoleToken(String value, boolean generated) {
  static final String VARIABLE = "SEGMENT_LEDGER_CONSOLE_TOKEN";
  private static final int MIN_LENGTH = 16;

  /**
   * The token of {@code environmentValue} ({@code $SEGMENT_LEDGER_CONSOLE_TOKEN}), or 24 random
   * bytes (URL-safe Base64) if it is absent or blank.
   *
   * @throws CliFailure if the variable holds fewer than 16 characters
   */
  static ConsoleToken from(String environmentValue) {
    if (environmentValue == null || environmentValue.isBlank()) {
      byte[] random = new byte[24];
      new SecureRandom().nextBytes(random);
      return new ConsoleToken(Base64.getUrlEncoder().withoutPadding().encodeToString(random), true);
    }
    if (environmentValue.length() < MIN_LENGTH) {
      throw new CliFailure(VARIABLE + " must be at least " + MIN_LENGTH + " characters");
    }
    return new ConsoleToken(environmentValue, false);
  }

  /** The line printed once the console serves at {@code url}: with the token only if it was made up. */
  String startLine(String url, boolean reopenEnabled) {
    String where = generated ? url + "?token=" + value : url + " (the token is $" + VARIABLE + ": open " + url
        + "?token=<it>)";
    return "segment-ledger console on " + where + (reopenEnabled ? " (re-open enabled)" : "") + "; stop it with Ctrl-C";
  }

  @Override
  public String toString() {
    return "ConsoleToken[" + (generated ? "generated" : "from $" + VARIABLE) + "]";
  }
}
