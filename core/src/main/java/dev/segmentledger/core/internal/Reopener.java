package dev.segmentledger.core.internal;

import dev.segmentledger.core.ItemId;
import dev.segmentledger.core.ItemState;
import dev.segmentledger.core.LedgerItem;
import dev.segmentledger.core.Reason;
import dev.segmentledger.core.spi.StateStore;
import java.time.Clock;
import java.util.List;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Re-opens terminal rows (REJECTED, EXCLUDED) for upload, on an operator's request: the store
 * makes such a row PENDING again by compare-and-set on its state, and a sweep soon is signalled
 * (a sweep soon) when any row was re-opened. Thread-safe.
 */
final class Reopener {
  private static final Logger log = LoggerFactory.getLogger(Reopener.class);

  private final StateStore store;
  private final Clock clock;
  private final Signals signals;

  Reopener(StateStore store, Clock clock, Signals signals) {
    this.store = store;
    this.clock = clock;
    this.signals = signals;
  }

  /** Re-opens the row of {@code id} if it is terminal; see {@code Ledger.reopen(ItemId)}. */
  boolean reopen(ItemId id) {
    boolean done = store.find(id).map(this::reopenTerminal).orElse(false);
    if (done) {
      signals.sweepSoon();
    }
    return done;
  }

  /** Re-opens the terminal rows among {@code rows} whose reason is {@code reason}; returns how many. */
  int reopen(List<LedgerItem> rows, Reason reason) {
    int count = 0;
    for (LedgerItem row : rows) {
      if (reason == row.reason() && reopenTerminal(row)) {
        count++;
      }
    }
    if (count > 0) {
      signals.sweepSoon();
    }
    return count;
  }

  private boolean reopenTerminal(LedgerItem row) {
    if (row.state() != ItemState.REJECTED && row.state() != ItemState.EXCLUDED) {
      return false;
    }
    boolean done = store.reopen(row.rowId(), row.state(), Reason.REOPENED,
        "re-opened after " + row.state() + " (" + row.reason() + "); attempts before: " + row.attempts(), clock.instant());
    if (done) {
      log.info("{} re-opened after {} ({})", row.id(), row.state(), row.reason());
    }
    return done;
  }
}
