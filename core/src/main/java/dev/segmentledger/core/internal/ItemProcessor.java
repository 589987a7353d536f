package dev.segmentledger.core.internal;

import dev.segmentledger.core.Axis;
import dev.segmentledger.core.ItemState;
import dev.segmentledger.core.Lane;
import dev.segmentledger.core.LedgerItem;
import dev.segmentledger.core.Reason;
import dev.segmentledger.core.StoreException;
import dev.segmentledger.core.StoredObjectInfo;
import dev.segmentledger.core.internal.AbandonedAttempts.Verdict;
import dev.segmentledger.core.internal.IsolationGate.Permit;
import dev.segmentledger.core.internal.Leases.Held;
import dev.segmentledger.core.spi.RepackageException;
import dev.segmentledger.core.spi.Tracing;
import dev.segmentledger.core.spi.Tracing.Span;
import java.time.Clock;
import java.time.Duration;
import java.util.Optional;
import java.util.function.Supplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One attempt on one item taken from the queue, and the end of its in-flight period.
 *
 * <p>Design note. The attempt takes the row's lease first (a claim, so that other ledger
 * instances on the same store leave it alone; an item another instance holds is skipped; a row
 * this instance leased at its registration is not claimed again, its lease is extended if need
 * be), so that an attempt is counted even if producing or uploading the item kills this process.
 * A claim that takes over abandoned attempts goes through {@link AbandonedAttempts}, which may send
 * the row to run alone, hold it back, or find it a poison. From the lease on, the attempt is
 * registered with the {@link Heartbeat}, which keeps its lease while it lives and cancels it if it
 * stalls or loses its lease. The attempt then produces the file if it is a PLAYBACK or INIT item
 * whose file is missing ({@link PlaybackProducer}), uploads it ({@link Uploader}), and hands the
 * item to the {@link Confirmer}, which confirms the row by compare-and-set on (PENDING, registered
 * size), ending the lease, and releases the item's {@link InFlight} handle (which ends the
 * attempt). An attempt that ends before that releases the handle itself. Every failure becomes a
 * named reason on the row, terminal or with backoff; a cancelled attempt records nothing more (its
 * canceller did); nothing thrown by the file, the sink or the store escapes, so a worker thread
 * never dies on bad input. Thread-safe.
 */
final class ItemProcessor {
  private static final Logger log = LoggerFactory.getLogger(ItemProcessor.class);

  private final Leases leases;
  private final AbandonedAttempts abandoned;
  private final Heartbeat heartbeat;
  private final IsolationGate gate;
  private final Duration suspectPatience;
  private final PlaybackProducer producer;
  private final Uploader uploader;
  private final Confirmer confirmer;
  private final Failures failures;
  private final Events events;
  private final Clock clock;
  private final Tracing tracing;

  /** @param suspectPatience how long a suspect waits for the other work in flight to end */
  ItemProcessor(Leases leases, AbandonedAttempts abandoned, Heartbeat heartbeat, IsolationGate gate,
      Duration suspectPatience, PlaybackProducer producer, Uploader uploader, Confirmer confirmer,
      Failures failures, Events events, Clock clock, Tracing tracing) {
    this.leases = leases;
    this.abandoned = abandoned;
    this.heartbeat = heartbeat;
    this.gate = gate;
    this.suspectPatience = suspectPatience;
    this.producer = producer;
    this.uploader = uploader;
    this.confirmer = confirmer;
    this.failures = failures;
    this.events = events;
    this.clock = clock;
    this.tracing = tracing;
  }

  /** An item whose object is stored, ready for its confirm. */
  private record Uploaded(LedgerItem item, StoredObjectInfo object) {}

  /**
   * Makes one attempt on {@code work} and finishes it: hands it to the {@link Confirmer}, which
   * releases it once the confirm is over, or releases it here if the attempt ended before a PUT
   * to confirm. Throws only a {@link VirtualMachineError}, after releasing the work.
   */
  void process(InFlight work) {
    Uploaded uploaded;
    try {
      uploaded = attempt(work);
    } catch (VirtualMachineError e) {
      work.release();
      throw e;
    }
    if (uploaded == null) {
      work.release();
      return;
    }
    try {
      confirmer.submit(uploaded.item(), uploaded.object(), work);
    } catch (RuntimeException | Error e) {
      recordUnexpected(uploaded.item(), e, null);
      work.release(); // a no-op if the confirmer finished it already
      rethrowIfFatal(e);
    }
  }

  /** The attempt up to the hand-over; {@code null} if it ended here (recorded on the row, or skipped). */
  private Uploaded attempt(InFlight work) {
    LedgerItem item = work.item();
    Attempt attempt = null;
    try {
      // The lease comes first, so that an attempt is counted even if producing or uploading the
      // item kills this process: the next claim finds the lease expired and counts it abandoned.
      // (A death under the lease taken at registration is not counted: the row may only have
      // waited in the queue. The attempt's first heartbeat turns it into the lease of an attempt.)
      Held held;
      if (work.fromSweep()) {
        // A sweep page may be stale by now: the claim takes the row only if it is still PENDING and
        // due, and the attempt works on the row as the claim left it.
        held = leases.claimRow(item);
        if (held.held() && (held.row() == null || held.row().state() != ItemState.PENDING)) {
          return null; // gone or finished since the claim (a store that reads the row separately)
        }
      } else {
        held = leases.acquire(item, work);
      }
      if (!held.held()) {
        events.onClaimLost(item);
        return null;
      }
      item = held.row();
      Verdict verdict = abandoned.verdict(item, held.claim());
      if (verdict == Verdict.WAIT) {
        return null;
      }
      if (verdict == Verdict.REJECT_WITHOUT_LOOKUP) {
        failures.record(item, Reason.REPEATEDLY_ABANDONED, abandoned.rejection(held.claim()), null);
        return null;
      }
      Span span = tracing.upload(item.traceContext(), "segment-ledger.upload");
      if (span != Span.NONE) { // the tags' text is not built when nothing records them
        span.tag("item", item.id().toString()).tag("attempt", String.valueOf(item.attempts() + 1));
      }
      work.traced(span);
      Attempt running = heartbeat.begin(item, held.until(), span);
      attempt = running;
      work.onRelease(ended(running, span));
      LedgerItem claimed = item;
      if (verdict == Verdict.REJECT) {
        return alone(item, running, () -> confirmIdenticalOrReject(claimed, held, running));
      }
      return verdict == Verdict.GO_ON_ALONE ? alone(item, running, () -> work(claimed, running, work))
          : shared(item, running, work);
    } catch (RuntimeException | Error e) {
      // Nothing may end a worker: an unexpected failure is recorded on the row and retried.
      recordUnexpected(item, e, attempt);
      rethrowIfFatal(e);
      return null;
    }
  }

  /**
   * What ends an attempt when its work is released: the heartbeat forgets it, its span ends, and
   * the lease of one the ledger's close cancelled is given back, due at once (nothing was recorded
   * on its row: the next node or run claims it as it was, without counting an abandoned attempt).
   */
  private Runnable ended(Attempt attempt, Span span) {
    return () -> {
      heartbeat.end(attempt); // also clears the close's interrupt before the store is asked
      if (attempt.endedByClose()) {
        leases.release(attempt.item(), Duration.ZERO);
      }
      span.end();
    };
  }

  private Uploaded shared(LedgerItem item, Attempt attempt, InFlight work) {
    try (Permit permit = gate.shared()) {
      return permit == null ? null : work(item, attempt, work);
    }
  }

  /**
   * A suspect's attempt, or a poison's lookup for an identical object: alone in this process, marked
   * so in the store before it starts, so that a death during it is blamed on the row.
   */
  private Uploaded alone(LedgerItem item, Attempt attempt, Supplier<Uploaded> lone) {
    try (Permit permit = gate.alone(suspectPatience)) {
      if (permit == null) {
        // Other work kept running: were this one run beside it and the process died, its death
        // would say nothing. It waits, without its lease (nothing is counted), for a quieter moment.
        leases.release(item, suspectPatience);
        return null;
      }
      if (!heartbeat.isolate(attempt)) {
        leases.release(item, Duration.ZERO); // a no-op if the lease was lost meanwhile
        return null;
      }
      log.info("{}: a suspect (attempts ended without an outcome), processed alone in this process", item.id());
      return lone.get();
    }
  }

  /** Produces the file of a PLAYBACK or INIT item if need be, then uploads it (live work first in the cap). */
  private Uploaded work(LedgerItem claimed, Attempt attempt, InFlight work) {
    attempt.working(clock.instant());
    LedgerItem item = claimed;
    if (item.id().axis() != Axis.ORIGINAL) {
      Optional<LedgerItem> produced = produce(item, attempt);
      if (produced.isEmpty()) {
        return null;
      }
      item = produced.get();
    }
    StoredObjectInfo stored = uploader.upload(item, work.fromSweep() || item.attempts() > 0, attempt,
        work.lane() == Lane.LIVE);
    if (stored == null) {
      return null;
    }
    attempt.handOver();
    return new Uploaded(item, stored);
  }

  private Optional<LedgerItem> produce(LedgerItem item, Attempt attempt) {
    try {
      return producer.ensureProduced(item, attempt);
    } catch (FileRejectedException e) {
      failures.record(item, e.reason(), "original of " + item.id() + ": " + e.getMessage(), attempt);
    } catch (RepackageException e) {
      failures.record(item, Reason.REPACKAGE_FAILED, e.getMessage(), attempt);
    }
    return Optional.empty();
  }

  /**
   * A poison row: before it is rejected, the bucket is asked for an identical object (an attempt may
   * have stored it and died before its confirm); one confirms the row instead.
   */
  private Uploaded confirmIdenticalOrReject(LedgerItem item, Held held, Attempt attempt) {
    attempt.working(clock.instant());
    StoredObjectInfo identical = uploader.findIdentical(item, attempt);
    if (identical != null) {
      log.info("{}: {} attempts were blamed on it, but an identical object is stored: confirmed, not rejected",
          item.id(), held.claim().blamedAttempts());
      attempt.handOver();
      return new Uploaded(item, identical);
    }
    failures.record(item, Reason.REPEATEDLY_ABANDONED, abandoned.rejection(held.claim()), attempt);
    return null;
  }

  private void recordUnexpected(LedgerItem item, Throwable e, Attempt attempt) {
    if (attempt != null && attempt.cancelled()) {
      log.debug("cancelled attempt on {} ended with {}", item.id(), e.toString());
      return;
    }
    if (e instanceof StoreException storeFailure) {
      failures.storeFailed(item, "an attempt", storeFailure); // the store's fault, not the row's
      return;
    }
    log.warn("unexpected error processing {}; the row stays unconfirmed", item.id(), e);
    failures.record(item, Reason.INTERNAL_ERROR, String.valueOf(e), attempt);
  }

  private static void rethrowIfFatal(Throwable e) {
    if (e instanceof VirtualMachineError fatal) {
      throw fatal;
    }
  }
}
