package dev.segmentledger.core.internal;

import dev.segmentledger.core.Backoff;
import dev.segmentledger.core.ItemState;
import dev.segmentledger.core.LedgerItem;
import dev.segmentledger.core.Reason;
import dev.segmentledger.core.internal.PrintableText;
import dev.segmentledger.core.spi.StateStore;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.EnumMap;
import java.util.Map;
import java.util.concurrent.ThreadLocalRandom;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Records failed attempts on rows: terminal reasons make the row REJECTED, the others schedule
 * the next attempt after the configured backoff. A failure is recorded only while the row carries
 * no lease or this instance's: a worker whose lease was taken over records nothing. Store errors
 * here are logged, never thrown: the row then stays as it was, for the sweeper. The failure event
 * is emitted only if the row was updated (not when another attempt had already confirmed or failed it).
 * A row made terminal here has its own unfinished uploads aborted ({@link UnfinishedUploads}).
 *
 * <p>Log lines: a terminal failure is one {@code INFO} line for its row. A retried failure is
 * logged at {@code INFO} once per reason per {@link #LOG_WINDOW}, the next such line saying how
 * many were logged at {@code DEBUG} only meanwhile: when S3 fails every upload at once, the log
 * gets a line per reason and state change of the breaker, not one per row (1.03 lines per
 * second while S3 flapped, most of them the failures of the uploads in flight at each drop). Every
 * failure is still on its row, in the listener's events and in the metrics. Thread-safe.
 */
final class Failures {
  private static final Logger log = LoggerFactory.getLogger(Failures.class);
  /** How long retried failures of one reason share one {@code INFO} line. */
  static final Duration LOG_WINDOW = Duration.ofSeconds(10);
  /** The line of a failure: row, reason, attempt, detail, and what {@link #infoSuffix} adds. */
  private static final String LINE = "{} failed on {} (attempt {}): {}{}";

  private final StateStore store;
  private final Clock clock;
  private final String nodeId;
  private final Backoff backoff;
  private final int maxErrorAttempts;
  private final Events events;
  private final UnfinishedUploads unfinishedUploads;
  private final LogWindows logWindows = new LogWindows();
  private final LogWindows storeLogWindows = new LogWindows();

  /**
   * @param nodeId this instance as a lease owner: a row leased to another owner is left alone
   * @param maxErrorAttempts the failures with a reason the ledger cannot tell from a lasting one
   *     ({@link Reason#INTERNAL_ERROR}, {@link Reason#REPACKAGE_FAILED}), counted per reason, after
   *     which the row ends REJECTED
   */
  Failures(StateStore store, Clock clock, String nodeId, Backoff backoff, int maxErrorAttempts, Events events,
      UnfinishedUploads unfinishedUploads) {
    this.unfinishedUploads = unfinishedUploads;
    this.store = store;
    this.clock = clock;
    this.nodeId = nodeId;
    this.backoff = backoff;
    this.maxErrorAttempts = maxErrorAttempts;
    this.events = events;
  }

  /**
   * {@link #record(LedgerItem, Reason, String)}, for a failure of {@code attempt}: nothing is
   * recorded if the attempt was cancelled (its canceller recorded why, or another node holds the
   * row now; what the cancelled work failed on is a consequence of the cancellation).
   *
   * @param attempt the attempt that failed, or {@code null}
   */
  void record(LedgerItem item, Reason reason, String rawDetail, Attempt attempt) {
    if (attempt != null && attempt.cancelled()) {
      log.debug("{} of {} after its attempt was cancelled: not recorded", reason, item.id());
      return;
    }
    record(item, reason, rawDetail);
  }

  /**
   * Records a failed attempt. {@code detail} becomes the row's last error and part of the log
   * line, escaped by {@link dev.segmentledger.core.Printable}: it carries outside input (file names, a server's reply,
   * an external program's stderr).
   */
  void record(LedgerItem item, Reason reason, String rawDetail) {
    String detail = PrintableText.escape(rawDetail);
    int failuresOfReason = cappedFailures(item, reason);
    boolean terminal = reason.isTerminal() || failuresOfReason >= maxErrorAttempts;
    if (terminal && !reason.isTerminal()) {
      detail = detail + " (" + reason + " " + failuresOfReason + " of at most " + maxErrorAttempts
          + "; re-open the row once the cause is fixed)";
    }
    boolean recorded = false;
    try {
      recorded = terminal
          ? store.markTerminal(item.rowId(), ItemState.PENDING, nodeId, ItemState.REJECTED, reason, detail,
              clock.instant())
          : store.recordFailure(item.rowId(), ItemState.PENDING, nodeId, reason, detail,
              clock.instant().plus(backoff.delayAfter(item.attempts() + 1, ThreadLocalRandom.current())));
    } catch (RuntimeException e) {
      log.warn("could not record failure {} of {}; the row stays unconfirmed for the sweeper", reason, item.id(), e);
    }
    String infoSuffix = infoSuffix(reason, terminal);
    if (infoSuffix == null) {
      log.debug(LINE, item.id(), reason, item.attempts() + 1, detail, "");
    } else {
      log.info(LINE, item.id(), reason, item.attempts() + 1, detail, infoSuffix);
    }
    if (recorded) {
      if (terminal) {
        unfinishedUploads.abortOf(item); // nothing will continue them
      }
      events.onFailed(item, reason, detail, terminal);
    }
  }

  /**
   * For a reason with a cap, the row's failures with it counting this one; 0 for the others. An
   * internal error or a repackager failure that keeps coming back is a lasting fault of this row (a
   * file the repackager cannot read, a bug it triggers), and retrying it for ever only hides it; the
   * cap counts that reason's failures only ({@link StateStore#failuresWith}), never the row's other
   * attempts (S3 throttling, kills), nor a failure of the store ({@link #storeFailed}). A store that
   * does not count per reason is capped by the row's attempts; one that cannot answer now, not at all.
   */
  private int cappedFailures(LedgerItem item, Reason reason) {
    if (reason != Reason.INTERNAL_ERROR && reason != Reason.REPACKAGE_FAILED) {
      return 0;
    }
    try {
      int counted = store.failuresWith(item.rowId(), reason);
      return (counted < 0 ? item.attempts() : counted) + 1;
    } catch (RuntimeException e) {
      log.debug("could not count the {} failures of {}; not capped this time", reason, item.id(), e);
      return 0;
    }
  }

  /**
   * A failure of the store during an attempt on {@code item} (its claim, its confirm, a write of
   * its progress): not a failure of the row, so nothing is recorded on it and no cap counts it. The
   * lease, if this instance holds it, is given back with the first backoff delay, so that the row is
   * retried soon and a lease left to expire is not later counted as an abandoned attempt; if the
   * store cannot take that either, the row stays as it is, for the sweeper.
   */
  void storeFailed(LedgerItem item, String what, RuntimeException e) {
    Instant retryAt = clock.instant().plus(backoff.delayAfter(1, ThreadLocalRandom.current()));
    try {
      store.release(item.rowId(), nodeId, retryAt);
    } catch (RuntimeException again) {
      e.addSuppressed(again);
    }
    int notShown = storeLogWindows.open(Reason.INTERNAL_ERROR, clock.instant());
    if (notShown < 0) {
      log.debug("{} of {} failed in the store; not a failure of the row, retried", what, item.id(), e);
    } else {
      log.warn("{} of {} failed in the store; not a failure of the row, retried{}", what, item.id(),
          notShown == 0 ? "" : " (and " + notShown + " more store failures logged at DEBUG since the last such line)",
          e);
    }
  }

  /**
   * What ends the {@code INFO} line of this failure, or {@code null} if it is logged at
   * {@code DEBUG} only (see the class comment).
   */
  private String infoSuffix(Reason reason, boolean terminal) {
    if (terminal) {
      return " (terminal)";
    }
    if (reason == Reason.SINK_CONFIGURATION) {
      return null; // every row fails the same way: the circuit breaker logs the cause once per opening
    }
    int notShown = logWindows.open(reason, clock.instant());
    if (notShown < 0) {
      return null;
    }
    return notShown == 0 ? ""
        : " (and " + notShown + " more " + reason + " failures logged at DEBUG since the last such line)";
  }

  /** Per reason, the window of the last {@code INFO} line and the failures not shown since. */
  private static final class LogWindows {
    private final Map<Reason, Instant> opened = new EnumMap<>(Reason.class);
    private final Map<Reason, Integer> notShown = new EnumMap<>(Reason.class);

    /**
     * {@code -1} if a failure of {@code reason} at {@code now} falls in an open window (log it at
     * DEBUG); otherwise opens a window and returns how many were not shown in the one before.
     */
    synchronized int open(Reason reason, Instant now) {
      Instant since = opened.get(reason);
      if (since != null && now.isBefore(since.plus(LOG_WINDOW))) {
        notShown.merge(reason, 1, Integer::sum);
        return -1;
      }
      opened.put(reason, now);
      Integer before = notShown.remove(reason);
      return before == null ? 0 : before;
    }
  }
}
