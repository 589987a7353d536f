package dev.segmentledger.core.internal;

import dev.segmentledger.core.Reason;

/** A file failed a boundary check; carries the named reason. Internal: never escapes the ledger. */
final class FileRejectedException extends Exception {
  private final Reason reason;

  FileRejectedException(Reason reason, String detail) {
    super(detail, null, false, false);
    this.reason = reason;
  }

  Reason reason() {
    return reason;
  }
}
