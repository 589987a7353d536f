package dev.segmentledger.core.internal;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.segmentledger.core.Backoff;
import dev.segmentledger.core.CircuitState;
import dev.segmentledger.core.ItemId;
import dev.segmentledger.core.ItemState;
import dev.segmentledger.core.LedgerItem;
import dev.segmentledger.core.LedgerListener;
import dev.segmentledger.core.Reason;
import dev.segmentledger.core.SinkException;
import dev.segmentledger.core.StoredObjectInfo;
import dev.segmentledger.core.spi.ObjectSink;
import dev.segmentledger.core.spi.Tracing.Span;
import dev.segmentledger.core.spi.UploadContent;
import java.io.IOException;
import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.Arrays;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * An upload that waits for the bandwidth cap when the ledger closes: the close cancels its attempt
 * (as {@code Engine.close} does once the shutdown timeout is over), and the failure the sink then
 * reports is held against neither the row nor the sink. A 64 KiB file at 1 KiB/s waits for tokens.
 */
class CloseDuringUploadTest {
  private static final Instant T0 = Instant.parse("2026-01-01T00:00:00Z");
  private static final Clock CLOCK = Clock.fixed(T0, ZoneOffset.UTC);

  @TempDir Path temp;

  private final List<String> writes = new CopyOnWriteArrayList<>();
  private final List<String> events = new CopyOnWriteArrayList<>();
  private final Throttle throttle = new Throttle(1024, 0);

  @Test
  void anUploadWaitingForTokensEndsAtCloseWithoutAFailureOnTheRowOrTheBreaker() throws Exception {
    SinkBreaker breaker = recordingBreaker();
    Upload upload = uploadWaitingForTheCap(breaker);

    assertTrue(upload.attempt().get().cancelOnClose(), "the close cancels the attempt in flight");
    assertEndedAsACloseEndsIt(upload, breaker);
  }

  @Test
  void closingTheThrottleEndsAnUploadWaitingForTokensAsACloseCancelsIt() throws Exception {
    SinkBreaker breaker = recordingBreaker();
    Upload upload = uploadWaitingForTheCap(breaker);

    throttle.close(); // what Engine.close does first, before it waits for the workers
    assertEndedAsACloseEndsIt(upload, breaker);
  }

  private SinkBreaker recordingBreaker() {
    return new SinkBreaker(1, Duration.ofSeconds(10), state -> events.add("circuit " + state),
        (reason, detail) -> events.add("opened " + reason + " " + detail));
  }

  /** At once, nothing stored, nothing written on the row, no failure event, the breaker closed. */
  private void assertEndedAsACloseEndsIt(Upload upload, SinkBreaker breaker) throws InterruptedException {
    upload.worker().join(5_000);
    assertFalse(upload.worker().isAlive(), "the upload ends at once, not when the cap would have let it through");
    assertNull(upload.outcome().get(), "nothing stored");
    assertTrue(upload.attempt().get().endedByClose(), "ended as the close's cancel ends it");
    assertEquals(List.of(), writes, "nothing written on the row: its lease is given back by the attempt's end");
    assertEquals(List.of(), events, "no failure event, the breaker counted nothing");
    assertEquals(CircuitState.CLOSED, breaker.state());
  }

  @Test
  void anUploadCancelledForAStallIsStillCountedAsBefore() throws Exception {
    SinkBreaker breaker = new SinkBreaker(1, Duration.ofSeconds(10), state -> events.add("circuit " + state),
        (reason, detail) -> events.add("opened " + reason));
    Upload upload = uploadWaitingForTheCap(breaker);
    Thread worker = upload.worker();
    AtomicReference<Attempt> attempt = upload.attempt();

    assertTrue(attempt.get().cancel());
    worker.join(5_000);
    assertFalse(attempt.get().endedByClose());
    assertEquals(List.of(), writes, "its canceller records the stall, not the upload");
    assertEquals(CircuitState.OPEN, breaker.state(), "a stalled PUT is the sink's failure: " + events);
  }

  /** An upload on a worker thread of its own, its attempt once started, and what it returned. */
  private record Upload(Thread worker, AtomicReference<Attempt> attempt, AtomicReference<Object> outcome) {}

  /** Starts {@link #upload} on a worker thread and returns once it waits for tokens of the cap. */
  private Upload uploadWaitingForTheCap(SinkBreaker breaker) throws InterruptedException {
    AtomicReference<Attempt> attempt = new AtomicReference<>();
    AtomicReference<Object> outcome = new AtomicReference<>("running");
    Thread worker = new Thread(() -> outcome.set(upload(breaker, attempt)), "segment-ledger-worker-test");
    worker.start();
    awaitWaitingForTheCap(worker);
    return new Upload(worker, attempt, outcome);
  }

  private StoredObjectInfo upload(SinkBreaker breaker, AtomicReference<Attempt> attempt) {
    try {
      Path root = Files.createDirectories(temp.resolve("root"));
      Path file = Files.write(root.resolve("0.ts"), new byte[64 * 1024]);
      LedgerItem item = new LedgerItem(7, ItemId.original("b", "r", 0), file.toString(), null, 64 * 1024,
          ItemState.PENDING, 0, null, null, T0, T0, null, null, null, null, null, null, null);
      RecordingStore store = new RecordingStore();
      ObjectSink sink = new ReadingSink();
      Events listeners = new Events(List.of(new LedgerListener() {
        @Override
        public void onFailed(LedgerItem failed, Reason reason, String detail, boolean terminal) {
          events.add("failed " + reason + " " + detail);
        }
      }), new Signals());
      Failures failures = new Failures(store, CLOCK, "node", Backoff.DEFAULT, 3, listeners,
          new UnfinishedUploads(sink));
      Leases leases = new Leases(store, CLOCK, "node", Duration.ofMinutes(2), new WorkQueue(10));
      try (PathGuard guard = new PathGuard(root, (path, change) -> { })) {
        Uploader uploader = new Uploader(guard, sink, breaker, Duration.ofSeconds(10), leases, failures, listeners,
            CLOCK, throttle);
        Attempt running = new Attempt(item, Thread.currentThread(), T0.plusSeconds(120), T0, () -> { }, Span.NONE);
        running.working(T0);
        attempt.set(running);
        return uploader.upload(item, false, running);
      }
    } catch (IOException e) {
      throw new AssertionError(e);
    }
  }

  private static void awaitWaitingForTheCap(Thread worker) throws InterruptedException {
    for (int i = 0; i < 500; i++) {
      if (Arrays.stream(worker.getStackTrace()).anyMatch(frame -> frame.getClassName().endsWith(".Throttle")
          && frame.getMethodName().equals("await"))) {
        return;
      }
      Thread.sleep(10);
    }
    throw new AssertionError("the upload never waited for the cap");
  }

  /** Reads the whole content as a sink does, and reports a read failure as a retryable refusal. */
  private static final class ReadingSink implements ObjectSink {
    @Override
    public StoredObjectInfo put(String key, UploadContent content, boolean mayExist) {
      try (InputStream in = content.openStream()) {
        byte[] bytes = in.readAllBytes();
        return new StoredObjectInfo(key, bytes.length, null);
      } catch (IOException e) {
        throw SinkException.retryable("reading the content of " + key + " failed", e);
      }
    }

    @Override
    public Optional<StoredObjectInfo> head(String key) {
      return Optional.empty();
    }

    @Override
    public List<StoredObjectInfo> list(String prefix) {
      return List.of();
    }
  }

  /** Counts what would change a row. */
  private final class RecordingStore extends StubStore {
    @Override
    public boolean recordFailure(long rowId, ItemState expected, String owner, Reason reason, String detail,
        Instant next) {
      writes.add("failure " + reason + " " + detail);
      return true;
    }

    @Override
    public boolean markTerminal(long rowId, ItemState expected, String owner, ItemState terminal, Reason reason,
        String detail, Instant at) {
      writes.add("terminal " + reason);
      return true;
    }

    @Override
    public int failuresWith(long rowId, Reason reason) {
      return 0;
    }

    @Override
    public boolean release(long rowId, String owner, Instant dueAt) {
      writes.add("release");
      return true;
    }
  }
}
