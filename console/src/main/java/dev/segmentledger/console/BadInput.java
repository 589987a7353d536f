package dev.segmentledger.console;

/** A request the console refuses (400), with a message that says what is allowed. */
final class BadInput extends RuntimeException {
  private static final long serialVersionUID = 1L;

  BadInput(String message) {
    super(message);
  }
}
