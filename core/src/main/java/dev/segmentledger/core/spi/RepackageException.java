package dev.segmentledger.core.spi;

/**
 * A {@link Repackager} could not produce its output. The message is recorded on the PLAYBACK or
 * INIT row as the detail of {@link dev.segmentledger.core.Reason#REPACKAGE_FAILED}; the row is
 * retried with backoff (a recording that can never be repackaged is eventually excluded by the
 * cutoff, never silently dropped).
 */
public class RepackageException extends Exception {
  public RepackageException(String message) {
    super(message);
  }

  public RepackageException(String message, Throwable cause) {
    super(message, cause);
  }
}
