package dev.segmentledger.s3;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.segmentledger.core.ConditionalPut;
import dev.segmentledger.core.ConditionalPut.Outcome;
import dev.segmentledger.core.SinkException;
import dev.segmentledger.core.StoredObjectInfo;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import software.amazon.awssdk.core.interceptor.Context;
import software.amazon.awssdk.core.interceptor.ExecutionAttributes;
import software.amazon.awssdk.core.interceptor.ExecutionInterceptor;
import software.amazon.awssdk.services.s3.S3Client;

/**
 * Conditional writes against any S3 endpoint: a subclass starts the server, may add interceptors to
 * the client, and says what its server is known to do with {@code If-None-Match: *} ({@link
 * #refusesOverwrites()}); this class starts the server and its client once per subclass, and a fresh
 * bucket for each case. Cases that need the header honoured run only where it is; the others prove
 * the fallback.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
abstract class ConditionalWritesCases {
  static final String KEY = "b1/1080p/original/0000000001.ts";
  static final int MIB = 1024 * 1024;
  private S3TestServer server;
  private S3Client client;
  /** Every request the client sent, as method, path (without the bucket) and conditional headers. */
  private final List<String> requests = new CopyOnWriteArrayList<>();
  protected String bucket;

  /** Starts the server under test; it is closed after the subclass's cases. */
  protected abstract S3TestServer startServer() throws Exception;

  /** What the client under test intercepts (nothing by default); called once, after {@link #startServer()}. */
  protected ExecutionInterceptor[] interceptors() {
    return new ExecutionInterceptor[0];
  }

  /** Whether the server refuses a PUT with {@code If-None-Match: *} of an existing key with 412. */
  protected abstract boolean refusesOverwrites();

  /** Whether it refuses a {@code CompleteMultipartUpload} with {@code If-None-Match: *} likewise. */
  protected abstract boolean refusesOverwritingCompletions();

  /**
   * Whether the sink writes rewritten objects (playlists) conditionally there: {@code If-None-Match:
   * *} and {@code If-Match} honoured on {@code PutObject}. By default as {@link #refusesOverwrites()}.
   */
  protected boolean honoursIfMatch() {
    return refusesOverwrites();
  }

  @BeforeAll
  void startServerAndClient() throws Exception {
    server = startServer();
    ExecutionInterceptor recorder = new ExecutionInterceptor() {
      @Override
      public void beforeTransmission(Context.BeforeTransmission context, ExecutionAttributes attributes) {
        var request = context.httpRequest();
        requests.add(request.method() + " " + request.encodedPath().replaceFirst("^/[^/]+", "")
            + request.firstMatchingHeader("If-Match").map(v -> " If-Match").orElse("")
            + request.firstMatchingHeader("If-None-Match").map(v -> " If-None-Match").orElse(""));
      }
    };
    client = server.clientTo(server.endpoint(), Duration.ofSeconds(30),
        Stream.concat(Stream.of(recorder), Stream.of(interceptors())).toArray(ExecutionInterceptor[]::new));
  }

  @AfterAll
  void stopServerAndClient() throws Exception {
    if (client != null) {
      client.close();
    }
    if (server != null) {
      server.close();
    }
  }

  @BeforeEach
  void freshBucket() {
    bucket = server.createBucket(client);
  }

  /** The client of the server under test, with the {@link #interceptors()}. */
  protected final S3Client client() {
    return client;
  }

  private S3ObjectSink sink(ConditionalWrites mode) {
    return S3ObjectSink.builder().client(client()).bucket(bucket).prefix("rec/").multipartThreshold(5 * MIB)
        .partSize(5 * MIB).conditionalWrites(mode).build();
  }

  @Test
  void autoDetectsWhatTheServerDoesAndLeavesNoProbeObject() {
    S3ObjectSink sink = sink(ConditionalWrites.AUTO);
    assertEquals(refusesOverwrites(), sink.sendsConditionalWrites());
    assertEquals(refusesOverwritingCompletions(), sink.sendsConditionalCompletions());
    assertEquals(0, client().listObjectsV2(b -> b.bucket(bucket)).keyCount());
    assertEquals(0, sink.listUnfinishedUploads("").size());
  }

  @Test
  void offNeverProbes() {
    assertFalse(sink(ConditionalWrites.OFF).sendsConditionalWrites());
    assertEquals(0, client().listObjectsV2(b -> b.bucket(bucket)).keyCount());
  }

  @Test
  void requiredFailsAsConfigurationWhereUnsupported() {
    S3ObjectSink sink = sink(ConditionalWrites.REQUIRED);
    if (refusesOverwrites() && refusesOverwritingCompletions()) {
      assertTrue(sink.sendsConditionalWrites());
    } else {
      SinkException e = assertThrows(SinkException.class, () -> sink.put(KEY, TestContent.of(new byte[10]), false));
      assertEquals(SinkException.Kind.CONFIGURATION, e.failureKind());
      assertEquals(Optional.empty(), sink.head(KEY));
    }
  }

  @Test
  void aPutOnAKeyHoldingADifferentObjectIsAConflictAndLeavesItUntouched() {
    S3ObjectSink sink = sink(ConditionalWrites.AUTO);
    StoredObjectInfo first = sink.put(KEY, TestContent.of(TestContent.randomBytes(1000, 1)), false);
    if (!refusesOverwrites()) {
      return; // the fallback overwrites, as before: proven by the contract's cases
    }
    for (boolean mayExist : new boolean[] {false, true}) {
      SinkException e = assertThrows(SinkException.class,
          () -> sink.put(KEY, TestContent.of(TestContent.randomBytes(1000, 2)), mayExist));
      assertEquals(SinkException.Kind.PERMANENT, e.failureKind());
      assertTrue(e.getMessage().startsWith(S3ObjectSink.CONFLICT), e.getMessage());
      assertEquals(Optional.of(first), sink.head(KEY));
    }
  }

  @Test
  void aMultipartCompletionOnAKeyHoldingADifferentObjectIsAConflict() {
    S3ObjectSink sink = sink(ConditionalWrites.AUTO);
    StoredObjectInfo first = sink.put(KEY, TestContent.of(TestContent.randomBytes(1000, 1)), false);
    if (!refusesOverwritingCompletions()) {
      return; // the fallback: as before
    }
    SinkException e = assertThrows(SinkException.class,
        () -> sink.put(KEY, TestContent.of(TestContent.randomBytes(6 * MIB, 2)), false));
    assertEquals(SinkException.Kind.PERMANENT, e.failureKind());
    assertTrue(e.getMessage().startsWith(S3ObjectSink.CONFLICT), e.getMessage());
    assertEquals(Optional.of(first), sink.head(KEY));
    assertEquals(0, sink.listUnfinishedUploads("").size());
  }

  @Test
  void anIdenticalObjectAtTheKeyIsConfirmedNotRewritten() {
    S3ObjectSink sink = sink(ConditionalWrites.AUTO);
    byte[] data = TestContent.randomBytes(1000, 1);
    StoredObjectInfo first = sink.put(KEY, TestContent.of(data), false);

    assertEquals(first, sink.put(KEY, TestContent.of(data), false));
    assertEquals(Optional.of(first), sink.head(KEY));
  }

  @Test
  void playlistsAreRewrittenWithoutTheCondition() {
    S3ObjectSink sink = sink(ConditionalWrites.AUTO);
    sink.put("b1/1080p/media.m3u8", TestContent.of(TestContent.randomBytes(100, 1)), true);
    StoredObjectInfo second = sink.put("b1/1080p/media.m3u8", TestContent.of(TestContent.randomBytes(120, 2)), true);

    assertEquals(Optional.of(second), sink.head("b1/1080p/media.m3u8"));
  }

  @Test
  void aPlaylistIsRewrittenOnlyOverTheVersionLastWritten() {
    S3ObjectSink sink = sink(ConditionalWrites.AUTO);
    String key = "b1/1080p/media.m3u8";
    byte[] v1 = TestContent.randomBytes(100, 1);
    byte[] v2 = TestContent.randomBytes(120, 2);
    byte[] v3 = TestContent.randomBytes(140, 3);
    assertEquals(honoursIfMatch(), sink.supportsConditionalPuts());
    ConditionalPut first = sink.putIfMatch(key, TestContent.of(v1), null);
    if (!honoursIfMatch()) { // the fallback: unconditional, as put(key, content, true)
      assertEquals(Outcome.UNCONDITIONAL, first.outcome());
      assertEquals(Outcome.UNCONDITIONAL, sink.putIfMatch(key, TestContent.of(v2), "\"stale\"").outcome());
      assertEquals(120, sink.head(key).orElseThrow().sizeBytes(), "overwritten");
      return;
    }
    assertEquals(Outcome.STORED, first.outcome(), "the first write, with If-None-Match: *");
    assertNotNull(first.etag());

    ConditionalPut again = sink.putIfMatch(key, TestContent.of(v2), null);
    assertEquals(Outcome.REFUSED, again.outcome(), "an object is there, none was expected");
    assertEquals(first.etag(), again.etag(), "the ETag found");
    assertEquals(first.stored(), sink.head(key).orElseThrow(), "untouched");

    ConditionalPut second = sink.putIfMatch(key, TestContent.of(v2), first.etag());
    assertEquals(Outcome.STORED, second.outcome(), "If-Match on the version there");
    assertNotEquals(first.etag(), second.etag());
    assertEquals(second.stored(), sink.head(key).orElseThrow());

    ConditionalPut stale = sink.putIfMatch(key, TestContent.of(v3), first.etag());
    assertEquals(Outcome.REFUSED, stale.outcome(), "If-Match on a version no longer there");
    assertEquals(second.etag(), stale.etag());
    assertNull(stale.stored());
    assertEquals(second.stored(), sink.head(key).orElseThrow(), "the newer object stays");

    ConditionalPut retried = sink.putIfMatch(key, TestContent.of(v2), first.etag());
    assertEquals(Outcome.STORED, retried.outcome(), "the identical object of a write whose answer was lost");
    assertEquals(second.etag(), retried.etag());

    client().deleteObject(b -> b.bucket(bucket).key("rec/" + key));
    ConditionalPut gone = sink.putIfMatch(key, TestContent.of(v3), second.etag());
    assertEquals(Outcome.REFUSED, gone.outcome(), "the expected version was deleted");
    assertNull(gone.etag(), "no object found");
    assertEquals(Optional.empty(), sink.head(key));
  }

  @Test
  void offWritesRewrittenObjectsExactlyAsPutDoes() {
    S3ObjectSink sink = sink(ConditionalWrites.OFF);
    String key = "b1/1080p/media.m3u8";
    sink.put(key, TestContent.of(TestContent.randomBytes(100, 1)), true);
    requests.clear();
    sink.put(key, TestContent.of(TestContent.randomBytes(110, 2)), true);
    List<String> byPut = List.copyOf(requests);
    requests.clear();

    assertFalse(sink.supportsConditionalPuts());
    ConditionalPut written = sink.putIfMatch(key, TestContent.of(TestContent.randomBytes(120, 3)), "\"stale\"");
    assertEquals(Outcome.UNCONDITIONAL, written.outcome());
    assertEquals(written.stored(), sink.head(key).orElseThrow());
    assertEquals(List.of("HEAD /rec/b1/1080p/media.m3u8", "PUT /rec/b1/1080p/media.m3u8"), byPut);
    assertEquals(byPut, requests.subList(0, byPut.size()), "the same requests as put(key, content, true), no probe");
  }
}
