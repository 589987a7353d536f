package dev.segmentledger.it;

import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;

/** The command line's runnable jar as the build leaves it, for tests that run it as a process. */
public final class RunnableCli {
  private RunnableCli() {}

  /** The jar ({@code segmentledger.cli.jar}, set by this module's POM); fails if it was not built. */
  public static Path jar() {
    Path jar = Path.of(System.getProperty("segmentledger.cli.jar", "../../cli/target/segment-ledger-cli-all.jar"));
    assertTrue(Files.isRegularFile(jar), "the command line's runnable jar " + jar + " is missing: build the cli module"
        + " first (./mvnw -pl tests/integration -am verify packages it)");
    return jar;
  }
}
