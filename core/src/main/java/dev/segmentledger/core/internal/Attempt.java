package dev.segmentledger.core.internal;

import dev.segmentledger.core.LedgerItem;
import dev.segmentledger.core.spi.LeaseRenewal;
import dev.segmentledger.core.spi.Tracing.Span;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicLong;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One attempt in flight in this process, from the moment it holds its row's lease until its
 * confirm is over: the lease it holds, the progress it makes, and how to cancel it. The
 * {@link Heartbeat} renews its lease, writes its evidence and cancels it when it stalls or its
 * lease was taken over; the worker running it reports progress and registers what a cancellation
 * must close.
 *
 * <p>Phases: {@code WAITING} (for the {@link IsolationGate}: no stall is counted), {@code WORKING}
 * (producing and uploading: progress is watched, and a cancellation closes the open file and
 * interrupts the worker), {@code HANDED_OVER} (stored, waiting for its confirm: the lease is still
 * renewed, nothing is cancelled), {@code ENDED}. Progress is any byte the sink read from the file,
 * any byte the sink reports stored, and any growth of the repackager's temporary output files.
 * Thread-safe: the worker, the heartbeat and the confirmer call it.
 */
final class Attempt {
  private static final Logger log = LoggerFactory.getLogger(Attempt.class);

  enum Phase { WAITING, WORKING, HANDED_OVER, ENDED }

  private final LedgerItem item;
  private final Thread worker;
  private final Runnable storedMore;
  private final Span span;
  private final AtomicLong moved = new AtomicLong();
  private final List<AutoCloseable> closeOnCancel = new ArrayList<>();
  private Phase phase = Phase.WAITING;
  private boolean cancelled;
  private boolean endedByClose;
  private Instant leaseUntil;
  private boolean renewalUnknown; // a renewal threw since leaseUntil was known: it may have moved the end
  private long stored;
  private long storedSeen;
  private long storedSent;
  private boolean isolated;
  private boolean isolationSent;
  private Instant lastProgressAt;
  private long movedSeen;
  private Path watchedTarget;
  private long watchedSize;

  /**
   * @param leaseUntil the end of the lease the attempt holds, as the store keeps it
   * @param now the attempt's start on the ledger's clock
   * @param storedMore called (outside any lock) when the sink reports more of the object stored
   * @param span the attempt's trace span ({@link Span#NONE} without tracing)
   */
  Attempt(LedgerItem item, Thread worker, Instant leaseUntil, Instant now, Runnable storedMore, Span span) {
    this.item = item;
    this.span = span;
    this.worker = worker;
    this.storedMore = storedMore;
    this.leaseUntil = leaseUntil.truncatedTo(ChronoUnit.MICROS);
    this.lastProgressAt = now;
  }

  LedgerItem item() {
    return item;
  }

  /** The attempt's trace span: the parent of its repackage, PUT and confirm spans. */
  Span span() {
    return span;
  }

  long rowId() {
    return item.rowId();
  }

  // ---- called by the worker ------------------------------------------------------------------

  /** The attempt begins its work (after the gate); the stall clock starts now. */
  synchronized void working(Instant now) {
    if (phase == Phase.WAITING) {
      phase = Phase.WORKING;
      lastProgressAt = now;
    }
  }

  /** Whether the attempt was cancelled (stalled, or its lease taken over): its work is void. */
  synchronized boolean cancelled() {
    return cancelled;
  }

  /** {@code n} bytes read from the file by the sink: liveness, not durability. */
  void moved(long n) {
    moved.addAndGet(n);
  }

  /** The sink reports {@code bytes} of the object durably stored in all (never decreasing). */
  void stored(long bytes) {
    boolean more;
    synchronized (this) {
      more = bytes > stored;
      if (more) {
        stored = bytes;
      }
    }
    if (more) {
      storedMore.run();
    }
  }

  /**
   * Closes {@code resource} if the attempt is cancelled (now, if it already was): an open file
   * whose reads then fail, so that a sink blocked on them ends.
   */
  synchronized void closeOnCancel(AutoCloseable resource) {
    if (cancelled) {
      closeQuietly(resource);
    } else {
      closeOnCancel.add(resource);
    }
  }

  /** Watches the repackager's temporary files of {@code target} as progress ({@code null}: stop). */
  synchronized void watchOutput(Path target) {
    watchedTarget = target;
    watchedSize = 0;
  }

  /** The attempt stored its object and waits for its confirm: no more cancellation. */
  void handOver() {
    synchronized (this) {
      if (phase != Phase.ENDED) {
        phase = Phase.HANDED_OVER;
      }
      closeOnCancel.clear();
    }
    Thread.interrupted(); // a cancellation's interrupt must not reach the worker's next item
  }

  /** The attempt is over (confirmed, failed, skipped): the heartbeat forgets it. */
  void end() {
    synchronized (this) {
      phase = Phase.ENDED;
      closeOnCancel.clear();
    }
    if (Thread.currentThread() == worker) {
      Thread.interrupted();
    }
  }

  // ---- called by the heartbeat ---------------------------------------------------------------

  synchronized Phase phase() {
    return phase;
  }

  /**
   * Samples progress at {@code now}: whether anything moved since the last sample.
   *
   * @return how long the attempt has made no progress, while it works; zero in any other phase
   */
  Duration idleFor(Instant now) {
    Path target;
    synchronized (this) {
      target = watchedTarget;
    }
    long output = target == null ? -1 : RepackagerTemporaries.bytesOf(target);
    synchronized (this) {
      long seen = moved.get();
      boolean progressed = seen != movedSeen || stored != storedSeen;
      movedSeen = seen;
      storedSeen = stored;
      if (output >= 0 && output != watchedSize && target == watchedTarget) {
        watchedSize = output;
        progressed = true;
      }
      if (progressed || phase != Phase.WORKING) {
        lastProgressAt = now;
        return Duration.ZERO;
      }
      return Duration.between(lastProgressAt, now);
    }
  }

  /**
   * The renewal of this attempt's lease to {@code until}, if one is due: its lease has less than
   * {@code renewBelow} left, or it has evidence not yet written (more bytes stored, isolation).
   * {@code null} if none is due or the attempt is over.
   */
  synchronized LeaseRenewal renewalIfDue(Instant now, Duration renewBelow, Instant until) {
    if (phase == Phase.ENDED || cancelled) {
      return null;
    }
    boolean due = Duration.between(now, leaseUntil).compareTo(renewBelow) < 0 || stored > storedSent
        || isolated != isolationSent;
    return due ? renewal(until) : null;
  }

  /** The renewal of this attempt's lease to {@code until}, with its evidence as it is now. */
  synchronized LeaseRenewal renewal(Instant until) {
    return LeaseRenewal.ofAttempt(item.rowId(), item.id().broadcastId(), leaseUntil,
        until.truncatedTo(ChronoUnit.MICROS), stored, isolated);
  }

  /** The renewal to {@code until} from {@code heldUntil}, the end a lost renewal moved the lease to. */
  synchronized LeaseRenewal renewalFrom(Instant heldUntil, Instant until) {
    return LeaseRenewal.ofAttempt(item.rowId(), item.id().broadcastId(), heldUntil,
        until.truncatedTo(ChronoUnit.MICROS), stored, isolated);
  }

  /** The end of the lease as this attempt last knew it from the store. */
  synchronized Instant leaseUntil() {
    return leaseUntil;
  }

  /**
   * The store extended the lease as {@code renewal} asked, to {@code end} (as the store keeps it).
   * The heartbeat makes one renewal of an attempt at a time, so this is the lease it holds now.
   */
  synchronized void renewed(LeaseRenewal renewal, Instant end) {
    leaseUntil = end;
    renewalUnknown = false;
    storedSent = Math.max(storedSent, renewal.storedBytes());
    isolationSent = renewal.isolated();
  }

  /** A renewal of this lease threw {@code e}: unless the store says it wrote nothing, its answer may be lost. */
  synchronized void renewalFailed(RuntimeException e) {
    renewalUnknown |= !(e instanceof dev.segmentledger.core.StoreException s) || s.mayHaveWritten();
  }

  /** Whether a lost renewal may have moved the lease to {@code found}: one threw, and only forward. */
  synchronized boolean mayHaveBeenRenewedTo(Instant found) {
    return renewalUnknown && found.isAfter(leaseUntil);
  }

  /** From now on the attempt runs alone in this process (its next renewal says so). */
  synchronized void isolate() {
    isolated = true;
  }

  /**
   * Cancels the attempt if it works: closes what it registered and interrupts its worker.
   *
   * @return whether this call cancelled it (it was working and not cancelled before)
   */
  boolean cancel() {
    return cancel(false);
  }

  /**
   * {@link #cancel()} because the ledger closes: the row is not at fault, nor the sink; what the
   * attempt then fails on is held against neither ({@link #endedByClose}).
   */
  boolean cancelOnClose() {
    return cancel(true);
  }

  /** Whether the ledger's close cancelled the attempt: its lease is given back, nothing recorded. */
  synchronized boolean endedByClose() {
    return endedByClose;
  }

  private boolean cancel(boolean onClose) {
    List<AutoCloseable> toClose;
    synchronized (this) {
      if (cancelled || phase == Phase.ENDED || phase == Phase.HANDED_OVER) {
        return false;
      }
      cancelled = true;
      endedByClose = onClose;
      toClose = new ArrayList<>(closeOnCancel);
      closeOnCancel.clear();
      if (phase == Phase.WORKING || phase == Phase.WAITING) {
        worker.interrupt();
      }
    }
    toClose.forEach(Attempt::closeQuietly);
    return true;
  }

  private static void closeQuietly(AutoCloseable resource) {
    try {
      resource.close();
    } catch (Exception e) {
      log.debug("closing {} on cancellation failed", resource, e);
    }
  }
}
