package dev.segmentledger.core;

/**
 * Thrown by {@link Ledger#register} and {@link Ledger#registerAll} when the allowed root is not the
 * directory the ledger opened and may not be taken in its place ({@link Reason#ROOT_REPLACED}: a
 * symlink or nothing at its path, or a bare mount point left by an unmount). The refusal is the
 * root's, not the file's, so nothing is written (for the whole batch): register the same files
 * again, as after a {@link dev.segmentledger.core.StoreException}, until a call returns. Once
 * the root is back, or a directory the ledger may re-open is at its path, the same registration
 * succeeds. Immutable once thrown.
 */
public class RootReplacedException extends IllegalStateException {
  private static final long serialVersionUID = 1L;

  private final String file;

  /**
   * @param file the refused file, as shown in messages (control characters escaped)
   * @param detail what is at the root's path now
   */
  public RootReplacedException(String file, String detail) {
    super(file + " is not registered: " + detail + "; register it again once the root is back");
    this.file = file;
  }

  /** The refused file, as shown in messages. */
  public String file() {
    return file;
  }

  /** Why: always {@link Reason#ROOT_REPLACED}, the reason an upload of a registered row is retried for. */
  public Reason reason() {
    return Reason.ROOT_REPLACED;
  }
}
