package dev.segmentledger.cli;

/**
 * A failure the command line reports as one clear line on stderr, without a stack trace, and
 * exits with {@link SegmentLedgerCli#EXIT_ERROR}: a connection that cannot be made, an unknown
 * broadcast, a missing setting.
 */
final class CliFailure extends RuntimeException {
  private static final long serialVersionUID = 1L;

  CliFailure(String message) {
    super(message, null, false, false);
  }
}
