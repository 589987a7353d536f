package dev.segmentledger.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.Test;

/**
 * The console command's access token: printed in the start line only when the command made it up;
 * one given in the environment is a secret someone else holds, and never reaches the output (a
 * terminal's scrollback, a service's journal).
 */
class ConsoleTokenTest {
  @Test
  void aTokenFromTheEnvironmentIsNeverPrinted() {
    ConsoleToken token = ConsoleToken.from("operator-chosen-secret-0123");
    assertFalse(token.generated());
    String line = token.startLine("http://127.0.0.1:8090/", false);
    assertFalse(line.contains("operator-chosen-secret-0123"), line);
    assertTrue(line.contains("http://127.0.0.1:8090/"), line);
    assertTrue(line.contains("SEGMENT_LEDGER_CONSOLE_TOKEN"), "says where the token is: " + line);
  }

  @Test
  void aGeneratedTokenIsPrintedInTheUrlItsHolderOpens() {
    ConsoleToken token = ConsoleToken.from(null);
    assertTrue(token.generated());
    assertTrue(token.value().length() >= 32, token.value());
    assertEquals("segment-ledger console on http://127.0.0.1:8090/?token=" + token.value() + " (re-open enabled);"
        + " stop it with Ctrl-C", token.startLine("http://127.0.0.1:8090/", true));
    assertTrue(ConsoleToken.from("  ").generated(), "a blank variable is no token");
  }

  @Test
  void aShortTokenFromTheEnvironmentIsRefused() {
    assertThrows(CliFailure.class, () -> ConsoleToken.from("short"));
  }
}
