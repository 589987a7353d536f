package dev.segmentledger.testkit;

import static java.nio.charset.StandardCharsets.UTF_8;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.segmentledger.core.SinkException;
import dev.segmentledger.core.UnfinishedUpload;
import dev.segmentledger.core.spi.UploadContent;
import dev.segmentledger.testkit.PutAttempt.Outcome;
import dev.segmentledger.testkit.contract.ObjectSinkContract;
import java.io.ByteArrayInputStream;
import java.io.InputStream;
import java.time.Instant;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;

class FakeObjectSinkTest {
  private static final String KEY = "b1/720p/original/0000000001.ts";
  private final FakeObjectSink sink = new FakeObjectSink();

  @Test
  void recordsEveryAttemptWithItsOutcome() {
    sink.put(KEY, content("abc"), false);
    sink.put(KEY, content("abc"), true);
    sink.put(KEY, content("abd"), true);

    assertEquals(List.of(
        new PutAttempt(KEY, 3, false, Outcome.STORED),
        new PutAttempt(KEY, 3, true, Outcome.SKIPPED_IDENTICAL),
        new PutAttempt(KEY, 3, true, Outcome.STORED)), sink.attempts(KEY));
    assertEquals(2, sink.writeCount());
    assertEquals(List.of(), sink.attempts("b1/720p/init.mp4"));
  }

  @Test
  void checksumIsSha256OfTheBytes() {
    // echo -n abc | sha256sum | xxd -r -p | base64
    assertEquals("sha256:ungWv48Bz+pBQUDeXa4iI7ADYaOWF3qctBD/YfIAFa0=", sink.put(KEY, content("abc"), false).checksum());
  }

  @Test
  void failTimesThenSucceeds() {
    sink.failTimes(KEY, 2, SinkFault.failRetryable());

    assertTrue(assertThrows(SinkException.class, () -> sink.put(KEY, content("x"), false)).isRetryable());
    assertTrue(assertThrows(SinkException.class, () -> sink.put(KEY, content("x"), true)).isRetryable());
    assertEquals(Optional.empty(), sink.head(KEY));
    sink.put(KEY, content("x"), true);

    assertEquals(List.of(Outcome.FAILED_BEFORE_STORE, Outcome.FAILED_BEFORE_STORE, Outcome.STORED),
        sink.attempts(KEY).stream().map(PutAttempt::outcome).toList());
  }

  @Test
  void permanentFaultIsNotRetryable() {
    sink.failNext(SinkFault.failPermanent());

    assertFalse(assertThrows(SinkException.class, () -> sink.put(KEY, content("x"), false)).isRetryable());
    sink.put("b1/720p/init.mp4", content("next call succeeds"), false);
  }

  @Test
  void keyFaultsApplyOnlyToTheirKey() {
    sink.failNext(KEY, SinkFault.failRetryable());

    sink.put("b1/720p/init.mp4", content("other key"), false);
    assertThrows(SinkException.class, () -> sink.put(KEY, content("x"), false));
  }

  @Test
  void lostAcknowledgementStoresThenFailsAndTheRetrySkips() {
    sink.failNext(KEY, SinkFault.lostAcknowledgement());

    SinkException lost = assertThrows(SinkException.class, () -> sink.put(KEY, content("payload"), false));
    assertTrue(lost.isRetryable());
    assertArrayEquals("payload".getBytes(UTF_8), sink.bytes(KEY).orElseThrow());

    sink.put(KEY, content("payload"), true);
    assertEquals(List.of(Outcome.STORED_THEN_FAILED, Outcome.SKIPPED_IDENTICAL),
        sink.attempts(KEY).stream().map(PutAttempt::outcome).toList());
  }

  @Test
  void blockHoldsTheCallUntilReleased() throws Exception {
    CountDownLatch gate = new CountDownLatch(1);
    sink.failNext(KEY, SinkFault.blockUntil(gate));

    CompletableFuture<?> put = CompletableFuture.runAsync(() -> sink.put(KEY, content("x"), false));
    assertThrows(java.util.concurrent.TimeoutException.class, () -> put.get(50, TimeUnit.MILLISECONDS));
    assertEquals(0, sink.putCount());
    gate.countDown();
    put.get(10, TimeUnit.SECONDS);
    assertEquals(1, sink.writeCount());
  }

  @Test
  void readsExactlyTheDeclaredSize() {
    AtomicLong read = new AtomicLong();
    UploadContent longer = new UploadContent() {
      @Override
      public long size() {
        return 4;
      }

      @Override
      public InputStream openStream() {
        return new ByteArrayInputStream("0123456789".getBytes(UTF_8)) {
          @Override
          public synchronized int read(byte[] b, int off, int len) {
            int n = super.read(b, off, len);
            read.addAndGet(Math.max(n, 0));
            return n;
          }
        };
      }
    };

    assertEquals(4, sink.put(KEY, longer, false).sizeBytes());
    assertEquals(4, read.get());
    assertArrayEquals("0123".getBytes(UTF_8), sink.bytes(KEY).orElseThrow());
  }

  @Test
  void aRetryAbortsTheUnfinishedUploadsOfItsKeyOnly() {
    Instant t = Instant.parse("2026-01-01T00:00:00Z");
    UnfinishedUpload killed = sink.leaveUnfinishedUpload(KEY, t);
    UnfinishedUpload longer = sink.leaveUnfinishedUpload(KEY + ".bak", t);

    sink.put(KEY, content("first"), false);
    assertEquals(List.of(killed, longer), sink.listUnfinishedUploads("b1/"), "a first attempt aborts nothing");
    sink.put(KEY, content("again"), true);

    assertEquals(List.of(longer), sink.listUnfinishedUploads("b1/"));
    assertEquals(List.of(killed), sink.abortedUploads());
  }

  private static UploadContent content(String text) {
    return ObjectSinkContract.bytes(text);
  }
}
