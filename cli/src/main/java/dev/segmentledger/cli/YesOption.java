package dev.segmentledger.cli;

import picocli.CommandLine.Option;

/**
 * {@code --yes}, which every command that changes rows needs before it acts; without it the command
 * shows what it would change, and changes nothing.
 */
final class YesOption {
  @Option(names = "--yes", description = "Do it. Without --yes the command only shows what it would change.")
  boolean yes;

  /** The line that ends a dry run. */
  static String nothingChanged() {
    return "nothing changed: run again with --yes to do it";
  }
}
