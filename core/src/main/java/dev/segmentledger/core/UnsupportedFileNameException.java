package dev.segmentledger.core;

/**
 * A file was refused at registration because its name cannot be stored exactly: the ledger keeps
 * paths as text, and this name's bytes are not valid in the platform's file name encoding (for
 * example byte {@code 0xFF} in a name under UTF-8). Stored, such a name would read back as another
 * name (with U+FFFD in place of the bytes) and could name another file, so it is refused before
 * any row is written: {@link Ledger#register} and {@link Ledger#registerAll} write nothing (for
 * the whole batch). Rename the file to valid UTF-8 (and run the JVM with a UTF-8
 * {@code sun.jnu.encoding}, the default under a UTF-8 locale) and register it again.
 */
public final class UnsupportedFileNameException extends IllegalArgumentException {
  private static final long serialVersionUID = 1L;

  private final String file;

  /**
   * @param file the file as shown in messages (undecodable bytes appear as U+FFFD, control
   *     characters escaped)
   * @param encoding the platform's file name encoding
   */
  public UnsupportedFileNameException(String file, String encoding) {
    super("the name of " + file + " is not valid " + encoding + ": it cannot be stored exactly and is refused;"
        + " rename the file to valid " + encoding);
    this.file = file;
  }

  /** The refused file, as shown in messages. */
  public String file() {
    return file;
  }
}
