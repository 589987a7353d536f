package dev.segmentledger.core;

import java.nio.file.Path;
import java.util.Objects;

/**
 * A file the recorder has closed, with the identity it is registered under: one element of
 * {@link Ledger#registerAll}.
 *
 * @param id the item's identity, which fixes its object key
 * @param file the closed file; it must lie under the ledger's allowed root to be uploaded; a
 *     relative path is taken from that root, not from the working directory
 */
public record ClosedFile(ItemId id, Path file) {

  public ClosedFile {
    Objects.requireNonNull(id, "id");
    if (file == null || file.toString().isEmpty()) {
      throw new IllegalArgumentException("file must be a non-empty path");
    }
  }

  /** The closed file {@code file} under the identity {@code id}. */
  public static ClosedFile of(ItemId id, Path file) {
    return new ClosedFile(id, file);
  }
}
