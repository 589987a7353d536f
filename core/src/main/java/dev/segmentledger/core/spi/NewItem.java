package dev.segmentledger.core.spi;

import dev.segmentledger.core.ItemId;
import dev.segmentledger.core.ItemState;
import dev.segmentledger.core.Reason;
import java.time.Instant;
import java.util.Objects;

/**
 * A row to insert. Normally {@link ItemState#PENDING}; a registration refused at the file
 * boundary is inserted directly as {@link ItemState#REJECTED} with its reason, so that nothing
 * a recorder registered is ever silently dropped.
 *
 * @param id the natural identity (unique in the store)
 * @param sourcePath the file to upload
 * @param sizeBytes the size to upload and confirm, {@code >= 0}
 * @param state the initial state
 * @param reason why the row starts terminal or waiting; {@code null} for a plain PENDING row
 * @param detail a human-readable detail for {@code reason}; may be {@code null}
 * @param registeredAt the registration time, also the first {@code nextAttemptAt}
 */
public record NewItem(
    ItemId id, String sourcePath, long sizeBytes, ItemState state, Reason reason,
    String detail, Instant registeredAt) {

  public NewItem {
    Objects.requireNonNull(id, "id");
    Objects.requireNonNull(sourcePath, "sourcePath");
    Objects.requireNonNull(state, "state");
    Objects.requireNonNull(registeredAt, "registeredAt");
    if (sizeBytes < 0) {
      throw new IllegalArgumentException("sizeBytes must be >= 0, got " + sizeBytes);
    }
  }

  /** A plain PENDING row. */
  public static NewItem pending(ItemId id, String sourcePath, long sizeBytes, Instant registeredAt) {
    return new NewItem(id, sourcePath, sizeBytes, ItemState.PENDING, null, null, registeredAt);
  }

  /** A row refused at registration, terminal from the start. */
  public static NewItem rejected(ItemId id, String sourcePath, long sizeBytes, Reason reason, String detail,
      Instant registeredAt) {
    return new NewItem(id, sourcePath, sizeBytes, ItemState.REJECTED, reason, detail, registeredAt);
  }
}
