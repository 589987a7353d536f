package dev.segmentledger.core.internal;

import dev.segmentledger.core.LedgerItem;
import dev.segmentledger.core.Reason;
import dev.segmentledger.core.SinkException;
import dev.segmentledger.core.StoredObjectInfo;
import dev.segmentledger.core.internal.PrintableText;
import dev.segmentledger.core.spi.ObjectSink;
import dev.segmentledger.core.spi.Tracing.Span;
import dev.segmentledger.core.spi.UploadContent;
import java.io.IOException;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The PUT of one item: opens its file through the {@link PathGuard} (the same rules as at
 * registration, plus the file's identity), asks the {@link SinkBreaker} for a permit, PUTs to the
 * item's contract key, and reads the size again from the open file afterwards. Every failure is
 * recorded on the row with a named reason; a sink failure is counted by the breaker only if it is
 * transient or a configuration every item fails on. Thread-safe.
 */
final class Uploader {
  private static final Logger log = LoggerFactory.getLogger(Uploader.class);

  private final PathGuard guard;
  private final ObjectSink sink;
  private final SinkBreaker breaker;
  private final Duration breakerDelay;
  private final Leases leases;
  private final Failures failures;
  private final Events events;
  private final Clock clock;
  private final Throttle throttle;

  /** @param breakerDelay the longest a row the breaker refused waits (the breaker's open delay) */
  Uploader(PathGuard guard, ObjectSink sink, SinkBreaker breaker, Duration breakerDelay, Leases leases,
      Failures failures, Events events, Clock clock, Throttle throttle) {
    this.guard = guard;
    this.sink = sink;
    this.breaker = breaker;
    this.breakerDelay = breakerDelay;
    this.leases = leases;
    this.failures = failures;
    this.events = events;
    this.clock = clock;
    this.throttle = throttle;
  }

  /**
   * Uploads {@code item} ({@code mayExist}: a retry, its object may be stored already).
   *
   * @return what the sink stored, of the registered size; {@code null} if the attempt ended here
   *     (recorded on the row, or not attempted while the breaker is open)
   */
  StoredObjectInfo upload(LedgerItem item, boolean mayExist, Attempt attempt) {
    return upload(item, mayExist, attempt, true);
  }

  /** {@link #upload(LedgerItem, boolean, Attempt)}; {@code live}: the lower lanes' streams make way for its streams. */
  StoredObjectInfo upload(LedgerItem item, boolean mayExist, Attempt attempt, boolean live) {
    Span put = attempt.span().child("segment-ledger.put");
    if (put != Span.NONE) {
      put.tag("key", item.objectKey()).tag("bytes", String.valueOf(item.sizeBytes()));
    }
    try {
      StoredObjectInfo stored = upload(item, mayExist, attempt, put, live);
      put.tag("outcome", stored == null ? "not stored" : "stored").end();
      return stored;
    } catch (RuntimeException | Error e) {
      put.end(e);
      throw e;
    }
  }

  /** {@link #upload(LedgerItem, boolean, Attempt)}, traced by {@code put}. */
  private StoredObjectInfo upload(LedgerItem item, boolean mayExist, Attempt attempt, Span put, boolean live) {
    StoredObjectInfo stored;
    Instant putStarted = clock.instant(); // taken again just before the PUT
    try (VerifiedFile file = guard.open(Path.of(item.sourcePath()), item.sizeBytes(), item.fileIdentity())) {
      attempt.closeOnCancel(file); // a cancelled attempt's reads fail, so that a sink blocked on them ends
      if (!breaker.tryAcquire()) {
        // Circuit open or its one probe already running: not attempted. The row is due again when
        // the breaker may let it through (the rest of the open delay; a moment while the probe runs),
        // so that the sweeper does not hand it straight back meanwhile, nor a whole delay too late.
        log.debug("circuit open: {} not attempted, stays PENDING for the sweeper", item.id());
        Duration wait = breaker.refusedRowWait();
        leases.release(item, wait.compareTo(breakerDelay) < 0 ? wait : breakerDelay);
        return null;
      }
      putStarted = clock.instant();
      AttemptContent content = new AttemptContent(file, attempt, put, throttle, live);
      try {
        stored = putAndVerify(item, file, content, mayExist, attempt);
      } finally {
        content.finished();
      }
    } catch (FileRejectedException e) {
      put.tag("failure", e.reason().name());
      failures.record(item, e.reason(), e.getMessage(), attempt);
      return null;
    } catch (SinkException e) {
      put.tag("failure", SinkBreaker.reasonOf(e).name());
      failures.record(item, SinkBreaker.reasonOf(e), SinkBreaker.describe(e), attempt);
      return null;
    } catch (IOException e) {
      // Only closing the file can throw this; the sink call itself completed.
      log.debug("closing {} failed after upload", PrintableText.escape(item.sourcePath()), e);
      stored = null;
    }
    if (stored == null) {
      failures.record(item, Reason.UNREADABLE, "closing the file failed", attempt);
      return null;
    }
    if (stored.sizeBytes() != item.sizeBytes()) {
      failures.record(item, Reason.SINK_TRANSIENT, "sink reports " + stored.sizeBytes() + " bytes at "
          + item.objectKey() + ", registered " + item.sizeBytes(), attempt);
      return null;
    }
    events.onStored(item, stored, Duration.between(putStarted, clock.instant()));
    return stored;
  }

  /**
   * PUTs the file, then re-reads its size from the open channel. A file that grew or shrank under
   * the PUT is reported with that reason (which also explains a sink failure it caused, such as a
   * read ending early) and is not confirmed: its object, if the PUT stored one, is not a stable copy
   * of the registered file. Such an object stays unconfirmed at the item's key, like one left by a
   * crash between PUT and confirm.
   */
  private StoredObjectInfo putAndVerify(LedgerItem item, VerifiedFile file, UploadContent content, boolean mayExist,
      Attempt attempt) throws FileRejectedException {
    StoredObjectInfo stored;
    try {
      stored = putThroughBreaker(item, content, mayExist, attempt);
    } catch (RuntimeException e) { // SinkException, or anything else the sink threw
      file.verifyUnchanged();
      throw e;
    }
    file.verifyUnchanged();
    return stored;
  }

  /**
   * The PUT, its outcome counted by the breaker unless the ledger's close ended the attempt (then
   * the failure, a read of the closed file or an interrupted wait, says nothing of the sink).
   */
  private StoredObjectInfo putThroughBreaker(LedgerItem item, UploadContent content, boolean mayExist,
      Attempt attempt) {
    return breaker.call(() -> sink.put(item.objectKey(), content, mayExist), attempt::endedByClose);
  }

  /**
   * The object stored at {@code item}'s key if it is identical to the item's file
   * ({@link ObjectSink#findIdentical}), read through the file boundary like an upload; {@code null}
   * if there is none, the sink cannot tell, or the file or the sink fails (then nothing is known).
   * The bytes read for the comparison are progress of {@code attempt}, so a large file is not
   * judged stalled while it is hashed, and its heartbeat keeps the lease.
   */
  StoredObjectInfo findIdentical(LedgerItem item, Attempt attempt) {
    if (!item.sizeKnown()) {
      return null;
    }
    try (VerifiedFile file = guard.open(Path.of(item.sourcePath()), item.sizeBytes(), item.fileIdentity())) {
      StoredObjectInfo found = sink.findIdentical(item.objectKey(), new AttemptContent(file, attempt, Span.NONE))
          .orElse(null);
      return found != null && found.sizeBytes() == item.sizeBytes() ? found : null;
    } catch (FileRejectedException | IOException | RuntimeException e) {
      log.debug("could not compare {} with the object at {}: {}", item.id(), item.objectKey(), e.toString());
      return null;
    }
  }
}
