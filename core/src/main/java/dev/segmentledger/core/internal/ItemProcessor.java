package dev.segmentledger.core.internal;

import dev.segmentledger.core.Axis;
import dev.segmentledger.core.ItemState;
import dev.segmentledger.core.LedgerItem;
import dev.segmentledger.core.Reason;
import dev.segmentledger.core.StoredObjectInfo;
import dev.segmentledger.core.spi.Claim;
import dev.segmentledger.core.spi.ObjectSink;
import dev.segmentledger.core.spi.RepackageException;
import dev.segmentledger.core.spi.SinkException;
import dev.segmentledger.core.spi.StateStore;
import java.io.IOException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Optional;
import java.util.concurrent.Semaphore;
import java.util.concurrent.ThreadLocalRandom;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Uploads one item: takes the row's lease first (a claim, so that other ledger instances on the
 * same store leave it alone; an item another instance holds is skipped; a row this instance
 * leased at its registration is not claimed again, its lease is extended if need be). A claim
 * that takes over a repeatedly abandoned attempt (its process died) backs off instead of
 * uploading, or rejects the row past {@code maxAbandonedAttempts}; such a suspect is then uploaded
 * only while no other suspect is in flight in this process. It then produces the file if it is a PLAYBACK
 * or INIT item whose file is missing, re-checks the file boundary, PUTs to the contract key, then hands the item to the {@link Confirmer}, which confirms the row by
 * compare-and-set on (PENDING, registered size), ending the lease. Every failure becomes a named
 * reason on the row, terminal or with backoff; nothing thrown by the file, the sink or the store
 * escapes, so a worker thread never dies on bad input. Thread-safe.
 */
final class ItemProcessor {
  private static final Logger log = LoggerFactory.getLogger(ItemProcessor.class);

  private final LedgerConfig config;
  private final StateStore store;
  private final ObjectSink sink;
  private final PathGuard guard;
  private final PlaybackProducer producer;
  private final Events events;
  private final SinkBreaker breaker;
  private final Leases leases;
  private final Failures failures;
  private final Confirmer confirmer;
  /**
   * The one slot for a suspect in this process: a row with {@value #SUSPECT_AFTER} or more
   * abandoned attempts is uploaded only while no other suspect is, so that when the process dies
   * again the death is charged to one suspect, not to every item that happened to be in flight
   * with it (items in flight beside a poisonous one would otherwise reach the limit with it).
   */
  private final Semaphore suspects = new Semaphore(1);

  /** From this many abandoned attempts on, a row is a suspect: backed off, and uploaded alone. */
  private static final int SUSPECT_AFTER = 2;

  ItemProcessor(LedgerConfig config, PathGuard guard, PlaybackProducer producer, SinkBreaker breaker,
      Events events, Leases leases, Failures failures, Confirmer confirmer) {
    this.breaker = breaker;
    this.config = config;
    this.store = config.stateStore();
    this.sink = config.objectSink();
    this.guard = guard;
    this.producer = producer;
    this.events = events;
    this.leases = leases;
    this.failures = failures;
    this.confirmer = confirmer;
  }

  /**
   * Processes one item from the queue.
   *
   * @return {@code true} if the item was handed to the {@link Confirmer}, which ends its in-flight
   *     period; {@code false} if the caller must end it now
   */
  boolean process(WorkQueue.Work work) {
    LedgerItem item = work.item();
    try {
      if (work.fromSweep()) {
        // A sweep page may be stale by now: upload only rows that are still unconfirmed.
        Optional<LedgerItem> fresh = store.findByRowId(item.rowId());
        if (fresh.isEmpty() || fresh.get().state() != ItemState.PENDING) {
          return false;
        }
        item = fresh.get();
      }
      // The lease comes first, so that an attempt is counted even if producing or uploading the
      // item kills this process: the next claim finds the lease expired and counts it abandoned.
      // (A death under the lease taken at registration is not counted: the row may only have
      // waited in the queue. The next attempt claims it, and from then on deaths count.)
      Claim claim = leases.acquire(item, work.leasedUntil());
      if (!claim.held()) {
        events.onClaimLost(item);
        return false;
      }
      if (claim.tookOverAbandoned() && !mayRetryAbandoned(item, claim.abandonedAttempts())) {
        return false;
      }
      boolean suspect = claim.abandonedAttempts() >= SUSPECT_AFTER;
      if (suspect && !suspects.tryAcquire()) {
        // Another suspect is in flight here: were this one uploaded beside it and the process died,
        // both would be charged. It waits, without its lease (so that nothing is counted), until
        // the suspect slot is free.
        leases.release(item, config.sweepInterval());
        return false;
      }
      try {
        return produceAndUpload(item, work);
      } finally {
        if (suspect) {
          suspects.release();
        }
      }
    } catch (RuntimeException | Error e) {
      // Nothing may end a worker: an unexpected failure is recorded on the row and retried.
      log.warn("unexpected error processing {}; the row stays unconfirmed", item.id(), e);
      fail(item, Reason.INTERNAL_ERROR, String.valueOf(e));
      if (e instanceof VirtualMachineError) {
        throw (Error) e;
      }
      return false;
    }
  }

  /** Produces the file of a PLAYBACK or INIT item if need be, then uploads it. */
  private boolean produceAndUpload(LedgerItem claimed, WorkQueue.Work work) {
    LedgerItem item = claimed;
    if (item.id().axis() != Axis.ORIGINAL) {
      Optional<LedgerItem> produced = produce(item);
      if (produced.isEmpty()) {
        return false;
      }
      item = produced.get();
    }
    return upload(item, work.fromSweep() || item.attempts() > 0);
  }

  /**
   * The previous attempt on {@code item} ended without an outcome (its process died or hung past
   * its lease; the claim recorded it): rejects the row once there were too many such attempts, and
   * otherwise, from the second one on, gives the lease back with a backoff that grows with their
   * number, instead of running into the same death at once. A single abandoned attempt (a restart,
   * an unrelated crash) is retried at once, so that recovery after a kill is not delayed.
   *
   * @return whether the caller may go on with the upload
   */
  private boolean mayRetryAbandoned(LedgerItem item, int abandoned) {
    events.onFailed(item, Reason.ATTEMPT_ABANDONED, "attempt ended without an outcome", false);
    if (abandoned >= config.maxAbandonedAttempts()) {
      fail(item, Reason.REPEATEDLY_ABANDONED, abandoned + " attempts ended without an outcome (the process died or"
          + " hung past its lease while it held the row); fix the cause, then re-open the row");
      return false;
    }
    if (abandoned < SUSPECT_AFTER) {
      return true;
    }
    Duration delay = config.backoff().delayAfter(abandoned - 1, ThreadLocalRandom.current());
    log.warn("{}: {} attempts ended without an outcome (the process died or hung); next attempt in {}", item.id(),
        abandoned, delay);
    leases.release(item, delay);
    return false;
  }

  private Optional<LedgerItem> produce(LedgerItem item) {
    try {
      return producer.ensureProduced(item);
    } catch (FileRejectedException e) {
      fail(item, e.reason(), "original of " + item.id() + ": " + e.getMessage());
    } catch (RepackageException e) {
      fail(item, Reason.REPACKAGE_FAILED, e.getMessage());
    }
    return Optional.empty();
  }

  /** Uploads and hands over to the confirmer; {@code false} if the item ended here. */
  private boolean upload(LedgerItem item, boolean mayExist) {
    StoredObjectInfo stored;
    try (VerifiedFile file = guard.open(Path.of(item.sourcePath()), item.sizeBytes(), item.fileIdentity())) {
      if (!breaker.tryAcquire()) {
        // Circuit open or its one probe already running: not attempted. The row is due again after
        // the breaker's delay, so that the sweeper does not hand it straight back meanwhile.
        log.debug("circuit open: {} not attempted, stays PENDING for the sweeper", item.id());
        leases.release(item, config.breakerDelay());
        return false;
      }
      stored = putAndVerify(item, file, mayExist);
    } catch (FileRejectedException e) {
      fail(item, e.reason(), e.getMessage());
      return false;
    } catch (SinkException e) {
      fail(item, reasonOf(e), describe(e));
      return false;
    } catch (IOException e) {
      // Only closing the file can throw this; the sink call itself completed.
      log.debug("closing {} failed after upload", PathGuard.show(item.sourcePath()), e);
      stored = null;
    }
    if (stored == null) {
      fail(item, Reason.UNREADABLE, "closing the file failed");
      return false;
    }
    if (stored.sizeBytes() != item.sizeBytes()) {
      fail(item, Reason.SINK_TRANSIENT, "sink reports " + stored.sizeBytes() + " bytes at " + item.objectKey()
          + ", registered " + item.sizeBytes());
      return false;
    }
    events.onStored(item, stored);
    confirmer.submit(item, stored);
    return true;
  }

  /**
   * PUTs the file, then re-reads its size from the open channel. A file that grew or shrank under
   * the PUT is reported with that reason (which also explains a sink failure it caused, such as a
   * read ending early) and is not confirmed: its object, if the PUT stored one, is not a stable copy
   * of the registered file. Such an object stays unconfirmed at the item's key, like one left by a
   * crash between PUT and confirm.
   */
  private StoredObjectInfo putAndVerify(LedgerItem item, VerifiedFile file, boolean mayExist)
      throws FileRejectedException {
    StoredObjectInfo stored;
    try {
      stored = putThroughBreaker(item, file, mayExist);
    } catch (RuntimeException e) { // SinkException, or anything else the sink threw
      file.verifyUnchanged();
      throw e;
    }
    file.verifyUnchanged();
    return stored;
  }

  private StoredObjectInfo putThroughBreaker(LedgerItem item, VerifiedFile file, boolean mayExist) {
    try {
      StoredObjectInfo stored = sink.put(item.objectKey(), file, mayExist);
      breaker.recordSuccess();
      return stored;
    } catch (SinkException e) {
      if (e.isRetryable()) { // transient, or a configuration every item fails on
        breaker.recordFailure(reasonOf(e), describe(e));
      } else {
        breaker.recordSuccess(); // the sink answered: it is reachable, the refusal is this item's
      }
      throw e;
    } catch (RuntimeException | Error e) {
      breaker.recordFailure(Reason.INTERNAL_ERROR, String.valueOf(e)); // a half-open probe must always record an outcome
      throw e;
    }
  }

  private static Reason reasonOf(SinkException e) {
    return switch (e.kind()) {
      case TRANSIENT -> Reason.SINK_TRANSIENT;
      case PERMANENT -> Reason.SINK_PERMANENT;
      case CONFIGURATION -> Reason.SINK_CONFIGURATION;
    };
  }

  private void fail(LedgerItem item, Reason reason, String detail) {
    failures.record(item, reason, detail);
  }

  private static String describe(SinkException e) {
    return e.getCause() == null ? e.getMessage() : e.getMessage() + ": " + e.getCause();
  }
}
