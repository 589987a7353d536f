package dev.segmentledger.core;

import java.nio.file.Path;
import java.time.Instant;
import java.util.Objects;

/**
 * A file the recorder has closed, with the identity it is registered under: one element of
 * {@link Ledger#registerAll}.
 *
 * @param id the item's identity, which fixes its object key
 * @param file the closed file; it must lie under the ledger's allowed root to be uploaded; a
 *     relative path is taken from that root, not from the working directory
 * @param recordedAt when the recording of the file's media began (the wall-clock time of its first
 *     frame), if the recorder knows it; {@code null} otherwise. Stored with the row
 *     ({@link LedgerItem#recordedAt()}) and inherited by its PLAYBACK and INIT rows; the published
 *     media playlist gives it as {@code #EXT-X-PROGRAM-DATE-TIME}. It is not part of the identity:
 *     a file registered again keeps the time of its first registration.
 */
public record ClosedFile(ItemId id, Path file, Instant recordedAt) {

  public ClosedFile {
    Objects.requireNonNull(id, "id");
    if (file == null || file.toString().isEmpty()) {
      throw new IllegalArgumentException("file must be a non-empty path");
    }
  }

  /** The closed file {@code file} under the identity {@code id}, its recording time unknown. */
  public ClosedFile(ItemId id, Path file) {
    this(id, file, null);
  }

  /** The closed file {@code file} under the identity {@code id}, its recording time unknown. */
  public static ClosedFile of(ItemId id, Path file) {
    return new ClosedFile(id, file);
  }

  /** The closed file {@code file} under the identity {@code id}, recorded from {@code recordedAt}. */
  public static ClosedFile of(ItemId id, Path file, Instant recordedAt) {
    return new ClosedFile(id, file, Objects.requireNonNull(recordedAt, "recordedAt"));
  }
}
