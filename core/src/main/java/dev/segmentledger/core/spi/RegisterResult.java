package dev.segmentledger.core.spi;

import dev.segmentledger.core.LedgerItem;
import java.util.Objects;

/**
 * The result of {@link StateStore#register}: the row now in the store and whether this call
 * created it.
 *
 * @param item the row (the existing one for a repeated registration)
 * @param created {@code true} if inserted by this call
 */
public record RegisterResult(LedgerItem item, boolean created) {
  public RegisterResult {
    Objects.requireNonNull(item, "item");
  }
}
