package dev.segmentledger.core.internal;

import dev.segmentledger.core.Axis;
import dev.segmentledger.core.ItemState;
import dev.segmentledger.core.LedgerItem;
import dev.segmentledger.core.Reason;
import dev.segmentledger.core.StoreException;
import dev.segmentledger.core.StoredObjectInfo;
import dev.segmentledger.core.spi.Confirmation;
import dev.segmentledger.core.spi.StateStore;
import dev.segmentledger.core.spi.Tracing.Span;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Objects;
import java.util.Queue;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Confirms stored items in batches: a {@link GroupCommit} of the compare-and-set confirms.
 *
 * <p>A worker whose PUT succeeded hands the item over with {@link #submit}. Whichever worker finds
 * no confirm running leads: it confirms everything handed over so far (up to {@value #MAX_BATCH}
 * per statement) in one {@link StateStore#confirmAll} call, and goes on while more is waiting; the
 * others return at once to their next upload. At a low rate every worker confirms its own item, as
 * soon as its PUT returns. There is no thread of its own: a manual ledger confirms in the caller.
 *
 * <p>Until its confirm has committed, an item is still in flight (its {@link InFlight} handle
 * holds the row's slot in the queue) and its row is still PENDING: a crash in between is the
 * "after PUT, before confirm" row of the crash table, and the retry sends the same bytes to the
 * same key. The hand-over queue is bounded; a worker that finds it full helps confirm, so the
 * confirms bound the uploads.
 *
 * <p>Design note: a confirm that failed. If a batch fails, the worker that led it gives up the lead
 * (other workers' confirms go on) and settles each of its items alone. When the failure may have
 * written (the store did not say {@link StoreException.Outcome#NOT_WRITTEN}: a connection lost
 * after the statement was sent, a failover while it committed), the batch may have confirmed any of
 * its rows, so each row is first read again ({@link #judge}; durably: {@link
 * StateStore#findByRowIdDurably}, since a primary restarted after a crash shows what it committed
 * and never replicated), retrying the read while the store cannot answer, for at most {@link
 * #REJUDGE_WITHIN} (once at close): a row CONFIRMED with this confirm's time and checksum was
 * confirmed by it and is reported confirmed (once: the row is still in flight here, so no other
 * attempt of this process confirms it meanwhile, and another node's would carry its own time); a
 * row confirmed otherwise or made terminal is a lost confirm; a row still unconfirmed is confirmed
 * alone. An item whose confirm fails in the store, or whose row cannot be read within that time, is
 * not a failure of the row: its lease is given back with a short delay and no cap counts it
 * ({@link Failures#storeFailed}; another failure is recorded as {@link Reason#INTERNAL_ERROR}); it
 * is not reported confirmed: an item is reported confirmed at most once, and
 * exactly once when the store answers within {@link #REJUDGE_WITHIN} (in the README's failover runs
 * a writable primary was back after 1.5 to 66 s, the longest for a frozen primary with
 * pg_auto_failover's default timeouts). Thread-safe.
 */
final class Confirmer {
  static final int MAX_BATCH = 512;
  /** How long the read that settles a confirm of unknown outcome is retried while the store fails. */
  static final Duration REJUDGE_WITHIN = Duration.ofMinutes(2);
  private static final long FIRST_PAUSE_MS = 100;
  private static final long MAX_PAUSE_MS = 2_000;
  private static final Logger log = LoggerFactory.getLogger(Confirmer.class);

  private final StateStore store;
  private final Clock clock;
  private final Events events;
  private final Failures failures;
  private final LocalOutputs outputs;
  private final Intake intake;
  private final GroupCommit<Stored> commits = new GroupCommit<>(4 * MAX_BATCH, MAX_BATCH, stored -> 1, this::confirm);
  /** Batches whose confirm failed, settled by the worker that led them once it gave up the lead. */
  private final Queue<FailedBatch> failed = new ConcurrentLinkedQueue<>();
  /** Set at close: a confirm of unknown outcome is then read once, not waited for. */
  private volatile boolean closing;

  /**
   * @param outputs told of each row confirmed here, after its listeners: its produced file goes
   * @param intake told of the INITs a batch confirmed here (their playback rows were released)
   */
  Confirmer(StateStore store, Clock clock, Events events, Failures failures, LocalOutputs outputs, Intake intake) {
    this.intake = intake;
    this.store = store;
    this.clock = clock;
    this.events = events;
    this.failures = failures;
    this.outputs = outputs;
  }

  /** An item whose object is stored, waiting for its confirm; {@code work} is released once it is over. */
  private record Stored(LedgerItem item, StoredObjectInfo object, InFlight work, Span span) {}

  /** How the confirm of one item ended: what is reported for it. */
  private enum Verdict {
    /** This confirm confirmed the row: {@code onConfirmed}. */
    CONFIRMED,
    /** Another attempt confirmed the row, or made it terminal: {@code onConfirmLost}. */
    LOST,
    /** The confirm failed and was recorded as a failure: nothing more is reported. */
    FAILED
  }

  /** What a read of the row says of a confirm whose outcome is unknown. */
  private enum Judged { OURS, NOT_OURS, STILL_OPEN, UNREADABLE }

  /**
   * Hands over a stored item, and confirms what is waiting if no other worker is doing so. Returns
   * once the item is confirmed, or handed to the worker confirming now; a worker whose batch failed
   * settles it here, after giving up the lead (see the class comment). {@code work} is released
   * when its confirm is over, whatever its outcome.
   */
  void submit(LedgerItem item, StoredObjectInfo object, InFlight work) {
    commits.submit(new Stored(item, object, work, work.span().child("segment-ledger.confirm")));
    settleFailedBatches();
  }

  /**
   * Confirms whatever is waiting, unless another worker does so already: at close, so that a worker
   * stopped while handing over leaves nothing behind. From then on a confirm of unknown outcome is
   * judged by one read, without waiting for a store that does not answer.
   */
  void confirmWaiting() {
    closing = true;
    commits.commitWaiting();
    settleFailedBatches();
  }

  /** A batch whose confirm failed, with the confirms it sent, to be settled item by item. */
  private record FailedBatch(List<Stored> batch, List<Confirmation> confirmations, boolean mayHaveWritten) {}

  /**
   * Confirms a batch, as the group commit's leader, and reports each item; never throws for a store
   * failure. A batch that fails is queued for {@link #settleFailedBatches}, outside the lead, so
   * that the confirms of other items go on while it is judged. Every item's in-flight period ends
   * once it is reported, so that no row is held back from the sweeper.
   */
  private void confirm(List<Stored> batch) {
    boolean handedOff = false;
    try {
      Instant now = clock.instant();
      List<Confirmation> confirmations = batch.stream()
          .map(s -> new Confirmation(s.item().rowId(), s.item().id(), ItemState.PENDING,
              s.item().sizeBytes(), s.object().checksum(), now))
          .toList();
      Verdict[] verdicts = new Verdict[batch.size()];
      try {
        boolean[] confirmed = store.confirmAll(confirmations);
        if (confirmed.length != batch.size()) {
          throw new IllegalStateException(store.getClass().getName() + ".confirmAll returned " + confirmed.length
              + " results for " + batch.size() + " confirmations");
        }
        for (int i = 0; i < batch.size(); i++) {
          verdicts[i] = confirmed[i] ? Verdict.CONFIRMED : Verdict.LOST;
        }
      } catch (RuntimeException e) {
        boolean mayHaveWritten = mayHaveWritten(e);
        log.warn("confirming a batch of {} failed ({}); settling them one by one", batch.size(),
            mayHaveWritten ? "outcome unknown: each row is read again first" : "nothing written", e);
        failed.add(new FailedBatch(batch, confirmations, mayHaveWritten));
        handedOff = true;
        return;
      }
      report(batch, verdicts);
    } finally {
      if (!handedOff) {
        batch.forEach(stored -> stored.work().release());
      }
    }
  }

  /** Settles, in the calling thread, the failed batches queued by {@link #confirm}. */
  private void settleFailedBatches() {
    for (FailedBatch f = failed.poll(); f != null; f = failed.poll()) {
      try {
        Verdict[] verdicts = new Verdict[f.batch().size()];
        for (int i = 0; i < verdicts.length; i++) {
          verdicts[i] = settle(f.batch().get(i).item(), f.confirmations().get(i), f.mayHaveWritten());
        }
        report(f.batch(), verdicts);
      } finally {
        f.batch().forEach(stored -> stored.work().release());
      }
    }
  }

  /** Reports each item's verdict, and tells the intake of the INITs confirmed. */
  private void report(List<Stored> batch, Verdict[] verdicts) {
    boolean initReleased = false;
    for (int i = 0; i < batch.size(); i++) {
      LedgerItem item = batch.get(i).item();
      Span span = batch.get(i).span();
      if (span != Span.NONE) {
        span.tag("verdict", verdicts[i].name()).tag("batch", String.valueOf(batch.size())).end();
      }
      if (verdicts[i] == Verdict.CONFIRMED) {
        events.onConfirmed(item);
        outputs.confirmed(item);
        initReleased |= item.id().axis() == Axis.INIT && intake.initConfirmed(item.id()); // offers its rows
      } else if (verdicts[i] == Verdict.LOST) {
        events.onConfirmLost(item);
      }
    }
    if (initReleased) {
      intake.sweepSoon(); // for the rows registered on other nodes
    }
  }

  /**
   * Settles one item of a failed batch: reads its row first if the batch may have confirmed it,
   * then, if the row is still unconfirmed, confirms it alone (see the class comment).
   */
  private Verdict settle(LedgerItem item, Confirmation c, boolean batchMayHaveWritten) {
    if (batchMayHaveWritten) {
      Judged judged = judge(c);
      if (judged != Judged.STILL_OPEN) {
        return verdictOf(item, judged, "the batch's outcome is unknown");
      }
    }
    try {
      if (store.confirm(c)) {
        return Verdict.CONFIRMED;
      }
      // Lost its race; if an earlier confirm of ours may have committed, it may be what won it.
      return batchMayHaveWritten && judge(c) == Judged.OURS ? Verdict.CONFIRMED : Verdict.LOST;
    } catch (RuntimeException e) {
      if (mayHaveWritten(e)) {
        Judged judged = judge(c);
        if (judged != Judged.STILL_OPEN) {
          return verdictOf(item, judged, "its outcome is unknown: " + e);
        }
      }
      if (e instanceof StoreException storeFailure) {
        failures.storeFailed(item, "the confirm", storeFailure); // not the row's failure: never counted
        return Verdict.FAILED;
      }
      log.warn("confirming {} failed; the row stays unconfirmed", item.id(), e);
      failures.record(item, Reason.INTERNAL_ERROR, "confirm failed: " + e);
      return Verdict.FAILED;
    }
  }

  private Verdict verdictOf(LedgerItem item, Judged judged, String why) {
    if (judged == Judged.OURS) {
      return Verdict.CONFIRMED;
    }
    if (judged == Judged.NOT_OURS) {
      return Verdict.LOST;
    }
    log.warn("the confirm of {} could not be settled: {}, and its row could not be read within {}; it is not"
        + " reported confirmed", item.id(), why, closing ? "one attempt (closing)" : REJUDGE_WITHIN);
    // The store did not answer: its failure, not the row's, so no cap counts it.
    failures.storeFailed(item, "the confirm", new StoreException("confirm outcome unknown: " + why, null));
    return Verdict.FAILED;
  }

  /**
   * Reads the row of {@code c} and says whether {@code c} confirmed it; retries the read while the
   * store fails, for at most {@link #REJUDGE_WITHIN} (one attempt when closing or interrupted).
   */
  private Judged judge(Confirmation c) {
    long deadline = System.nanoTime() + (closing ? 0 : REJUDGE_WITHIN.toNanos());
    long pauseMs = FIRST_PAUSE_MS;
    while (true) {
      try {
        // Durably: a primary restarted after a crash shows a confirm it never replicated, until its demotion.
        LedgerItem row = store.findByRowIdDurably(c.rowId()).orElse(null);
        if (row == null || row.state() == ItemState.CONFIRMED) {
          return row != null && confirmedBy(row, c) ? Judged.OURS : Judged.NOT_OURS;
        }
        return row.state() == c.expectedState() && row.sizeBytes() == c.expectedSize()
            ? Judged.STILL_OPEN : Judged.NOT_OURS;
      } catch (RuntimeException e) {
        if (System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(pauseMs) > deadline) {
          return Judged.UNREADABLE;
        }
        try {
          Thread.sleep(pauseMs);
        } catch (InterruptedException interrupted) {
          Thread.currentThread().interrupt(); // the ledger is closing: stop waiting for the store
          return Judged.UNREADABLE;
        }
        pauseMs = Math.min(2 * pauseMs, MAX_PAUSE_MS);
      }
    }
  }

  /**
   * Whether the confirmed {@code row} carries what {@code c} wrote: its checksum and its time (to
   * the millisecond: a store may keep less than the clock gives).
   */
  private static boolean confirmedBy(LedgerItem row, Confirmation c) {
    return row.confirmedAt() != null && Objects.equals(row.checksum(), c.checksum())
        && Math.abs(Duration.between(row.confirmedAt(), c.confirmedAt()).toMillis()) < 1;
  }

  /** Whether a failed store call may have written: unless the store says it did not. */
  private static boolean mayHaveWritten(RuntimeException e) {
    return !(e instanceof StoreException store) || store.mayHaveWritten();
  }
}
