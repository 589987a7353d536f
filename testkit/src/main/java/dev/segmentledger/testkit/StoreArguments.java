package dev.segmentledger.testkit;

import dev.segmentledger.core.ItemState;
import java.util.Objects;

/** Argument checks shared by the stores of this module. */
final class StoreArguments {
  private StoreArguments() {}

  static void requirePositiveLimit(int limit) {
    if (limit <= 0) {
      throw new IllegalArgumentException("limit must be > 0, got " + limit);
    }
  }

  static void requireUnconfirmed(String name, ItemState state) {
    Objects.requireNonNull(state, name);
    if (state.isTerminal()) {
      throw new IllegalArgumentException(name + " must be an unconfirmed state (PENDING or WAITING), got " + state);
    }
  }

  static void requireTerminal(String name, ItemState state) {
    Objects.requireNonNull(state, name);
    if (!state.isTerminal()) {
      throw new IllegalArgumentException(name + " must be terminal (CONFIRMED, REJECTED or EXCLUDED), got " + state);
    }
  }

  static void requireRejectedOrExcluded(ItemState terminalState) {
    if (terminalState != ItemState.REJECTED && terminalState != ItemState.EXCLUDED) {
      throw new IllegalArgumentException("terminalState must be REJECTED or EXCLUDED, got " + terminalState);
    }
  }
}
