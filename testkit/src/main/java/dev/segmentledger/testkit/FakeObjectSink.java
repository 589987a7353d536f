package dev.segmentledger.testkit;

import dev.segmentledger.core.ConditionalPut;
import dev.segmentledger.core.SinkException;
import dev.segmentledger.core.StoredObjectInfo;
import dev.segmentledger.core.UnfinishedUpload;
import dev.segmentledger.core.spi.ObjectSink;
import dev.segmentledger.core.spi.UploadContent;
import dev.segmentledger.testkit.PutAttempt.Outcome;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayDeque;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.NavigableMap;
import java.util.Objects;
import java.util.Optional;
import java.util.Queue;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.ConcurrentSkipListMap;
import java.util.concurrent.atomic.AtomicLong;
import java.util.stream.Collectors;

/**
 * An in-memory {@link ObjectSink} that records every PUT attempt and fails on command.
 *
 * <p>Objects are kept as byte arrays with a {@code sha256:<base64>} checksum computed from the
 * bytes. Every {@link #put} reads exactly {@code content.size()} bytes and is recorded as a
 * {@link PutAttempt}, so a test can assert "zero PUTs for this key". With {@code mayExist} set, an
 * object already present with the same size <em>and</em> checksum is not stored again (recorded as
 * {@link Outcome#SKIPPED_IDENTICAL}); {@link #findIdentical} applies the same rule.
 *
 * <p>Faults are scheduled per key ({@link #failNext(String, SinkFault)}, {@link #failTimes}) or for
 * whatever call comes next ({@link #failNext(SinkFault)}); a key's own faults are used first. Each
 * scheduled fault is consumed by exactly one call. {@link #setLatency} delays every call.
 *
 * <p><b>Unfinished uploads</b>, as S3 multipart uploads of a killed process: {@link
 * #leaveUnfinishedUpload} records one (it holds no object), {@link #listUnfinishedUploads} and
 * {@link #abortUnfinishedUpload} behave as {@code S3ObjectSink}'s, and a {@code mayExist} put aborts
 * the unfinished uploads of its key before storing: its uploads are all-or-nothing, so it has no
 * parts to continue, and it ends as {@code S3ObjectSink}'s successful puts end, with no unfinished
 * upload at the key. Faults and latency do not apply to listing or aborting them.
 *
 * <p><b>Conditional writes</b> are off unless {@link #conditionalPuts(boolean)} turns them on:
 * {@link #putIfMatch} then stores only over the expected version, as S3 does with {@code If-Match}
 * and {@code If-None-Match: *}. Each stored object has an ETag of its own ({@code "v1"}, {@code
 * "v2"}, ... in the order of writes, whatever the content), so that two writes of the same text are
 * two versions. Faults and latency apply to {@code putIfMatch} as to {@code put}.
 *
 * <p>Thread-safe: any number of threads may put, inspect and schedule faults concurrently.
 */
public final class FakeObjectSink implements ObjectSink {
  private record Blob(byte[] bytes, String checksum, String etag) {}

  private final NavigableMap<String, Blob> objects = new ConcurrentSkipListMap<>();
  // Appended on every PUT: a copy-on-write list would make n PUTs cost O(n^2).
  private final Queue<PutAttempt> attempts = new ConcurrentLinkedQueue<>();
  private final Queue<SinkFault> nextFaults = new ArrayDeque<>();
  private final Map<String, Queue<SinkFault>> keyFaults = new HashMap<>();
  private volatile Duration latency = Duration.ZERO;
  private volatile SinkFault outage;
  private final Map<String, UnfinishedUpload> unfinished = new ConcurrentHashMap<>();
  private final Queue<UnfinishedUpload> aborted = new ConcurrentLinkedQueue<>();
  private final AtomicLong uploadIds = new AtomicLong();
  private final AtomicLong versions = new AtomicLong();
  private final Object conditionalWrites = new Object();
  private volatile boolean conditional;

  /** An empty sink without faults or latency. */
  public FakeObjectSink() {}

  @Override
  public StoredObjectInfo put(String key, UploadContent content, boolean mayExist) {
    Objects.requireNonNull(key, "key");
    Objects.requireNonNull(content, "content");
    long size = content.size();
    SinkFault fault = applyFault(key, size, mayExist);
    if (mayExist) {
      for (UnfinishedUpload upload : listUnfinishedUploads(key)) {
        if (upload.key().equals(key)) {
          abortUnfinishedUpload(upload);
        }
      }
    }
    byte[] bytes = read(key, content, size, mayExist);
    Blob blob = blob(bytes);
    if (mayExist && (fault == null || fault.kind != SinkFault.Kind.STORE_THEN_FAIL)) {
      Blob existing = objects.get(key);
      if (existing != null && existing.bytes.length == bytes.length && existing.checksum.equals(blob.checksum)) {
        attempts.add(new PutAttempt(key, size, true, Outcome.SKIPPED_IDENTICAL));
        return info(key, existing);
      }
    }
    objects.put(key, blob);
    if (fault != null && fault.kind == SinkFault.Kind.STORE_THEN_FAIL) {
      attempts.add(new PutAttempt(key, size, mayExist, Outcome.STORED_THEN_FAILED));
      throw SinkException.retryable("injected lost acknowledgement: " + key + " was stored, the reply was lost", null);
    }
    attempts.add(new PutAttempt(key, size, mayExist, Outcome.STORED));
    return info(key, blob);
  }

  /** Takes the call's fault, if any, and applies latency and any failure before storing; returns the fault. */
  private SinkFault applyFault(String key, long size, boolean mayExist) {
    SinkFault fault = takeFault(key);
    try {
      pause(latency);
      if (fault != null) {
        switch (fault.kind) {
          case FAIL_RETRYABLE -> throw failBeforeStore(key, size, mayExist, true, "injected retryable failure");
          case FAIL_PERMANENT -> throw failBeforeStore(key, size, mayExist, false, "injected permanent failure");
          case FAIL_CONFIGURATION -> {
            attempts.add(new PutAttempt(key, size, mayExist, Outcome.FAILED_BEFORE_STORE));
            throw SinkException.configuration("injected configuration failure (AccessDenied) putting " + key, null);
          }
          case DELAY -> pause(fault.delay);
          case BLOCK -> fault.gate.await();
          case STORE_THEN_FAIL -> { }
        }
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw failBeforeStore(key, size, mayExist, true, "interrupted");
    }
    return fault;
  }

  /**
   * Turns conditional writes on or off (off by default): whether {@link #supportsConditionalPuts()}
   * says so and {@link #putIfMatch} compares versions.
   */
  public FakeObjectSink conditionalPuts(boolean on) {
    this.conditional = on;
    return this;
  }

  /** {@inheritDoc} As set by {@link #conditionalPuts(boolean)}; {@code false} by default. */
  @Override
  public boolean supportsConditionalPuts() {
    return conditional;
  }

  /**
   * {@inheritDoc} With conditional writes off, the default ({@code put(key, content, true)},
   * unconditional). With them on: stores only if the object at {@code key} has the ETag {@code
   * expectedEtag} (no object, for {@code null}); an identical object (size and checksum) found
   * instead is reported stored ({@link Outcome#SKIPPED_IDENTICAL}); anything else is refused
   * ({@link Outcome#REFUSED}) with the ETag found. A {@link SinkFault#lostAcknowledgement()} stores,
   * then fails.
   */
  @Override
  public ConditionalPut putIfMatch(String key, UploadContent content, String expectedEtag) {
    if (!conditional) {
      return ObjectSink.super.putIfMatch(key, content, expectedEtag);
    }
    Objects.requireNonNull(key, "key");
    long size = content.size();
    SinkFault fault = applyFault(key, size, true);
    byte[] bytes = read(key, content, size, true);
    Blob blob = blob(bytes);
    synchronized (conditionalWrites) {
      Blob existing = objects.get(key);
      boolean expected = expectedEtag == null ? existing == null : existing != null && existing.etag.equals(expectedEtag);
      if (!expected) {
        if (existing != null && existing.checksum.equals(blob.checksum)) {
          attempts.add(new PutAttempt(key, size, true, Outcome.SKIPPED_IDENTICAL));
          return ConditionalPut.stored(info(key, existing), existing.etag);
        }
        attempts.add(new PutAttempt(key, size, true, Outcome.REFUSED));
        return ConditionalPut.refused(existing == null ? null : existing.etag);
      }
      objects.put(key, blob);
    }
    if (fault != null && fault.kind == SinkFault.Kind.STORE_THEN_FAIL) {
      attempts.add(new PutAttempt(key, size, true, Outcome.STORED_THEN_FAILED));
      throw SinkException.retryable("injected lost acknowledgement: " + key + " was stored, the reply was lost", null);
    }
    attempts.add(new PutAttempt(key, size, true, Outcome.STORED));
    return ConditionalPut.stored(info(key, blob), blob.etag);
  }

  /** The ETag of the object at {@code key} (as {@link #putIfMatch} compares it), or empty. */
  public Optional<String> etag(String key) {
    Blob blob = objects.get(key);
    return blob == null ? Optional.empty() : Optional.of(blob.etag);
  }

  private Blob blob(byte[] bytes) {
    return new Blob(bytes, ContentDigest.of(bytes), "v" + versions.incrementAndGet());
  }

  /**
   * {@inheritDoc} The stored object if it has the content's size and checksum (the content is read
   * only when the sizes agree). Not a PUT: not recorded in {@link #attempts()}, and faults and
   * latency do not apply.
   */
  @Override
  public Optional<StoredObjectInfo> findIdentical(String key, UploadContent content) {
    Objects.requireNonNull(key, "key");
    Blob blob = objects.get(key);
    if (blob == null || blob.bytes.length != content.size()) {
      return Optional.empty();
    }
    String checksum = ContentDigest.of(ContentDigest.readExactly(key, content));
    return checksum.equals(blob.checksum) ? Optional.of(info(key, blob)) : Optional.empty();
  }

  /** Reads the whole content; a content that cannot be read is recorded as an attempt that stored nothing. */
  private byte[] read(String key, UploadContent content, long size, boolean mayExist) {
    try {
      return ContentDigest.readExactly(key, content);
    } catch (SinkException e) {
      attempts.add(new PutAttempt(key, size, mayExist, Outcome.FAILED_BEFORE_STORE));
      throw e;
    }
  }

  @Override
  public Optional<StoredObjectInfo> head(String key) {
    Blob blob = objects.get(key);
    return blob == null ? Optional.empty() : Optional.of(info(key, blob));
  }

  @Override
  public List<StoredObjectInfo> list(String prefix) {
    return objects.tailMap(prefix, true).entrySet().stream()
        .takeWhile(e -> e.getKey().startsWith(prefix))
        .map(e -> info(e.getKey(), e.getValue()))
        .collect(Collectors.toUnmodifiableList());
  }

  /** {@inheritDoc} {@code true}: see {@link #leaveUnfinishedUpload}. */
  @Override
  public boolean supportsUnfinishedUploads() {
    return true;
  }

  @Override
  public List<UnfinishedUpload> listUnfinishedUploads(String prefix) {
    Objects.requireNonNull(prefix, "prefix");
    return unfinished.values().stream().filter(u -> u.key().startsWith(prefix))
        .sorted(Comparator.comparing(UnfinishedUpload::key)
            .thenComparing(UnfinishedUpload::initiated, Comparator.nullsFirst(Comparator.naturalOrder()))
            .thenComparing(UnfinishedUpload::uploadId))
        .toList();
  }

  @Override
  public boolean abortUnfinishedUpload(UnfinishedUpload upload) {
    Objects.requireNonNull(upload, "upload");
    UnfinishedUpload current = unfinished.get(upload.uploadId());
    if (current != null && current.key().equals(upload.key()) && unfinished.remove(upload.uploadId(), current)) {
      aborted.add(current);
      return true;
    }
    return false;
  }

  /**
   * Records an unfinished upload at {@code key} started at {@code initiated}, as a process killed
   * in the middle of an S3 multipart upload leaves one. It stores no object.
   *
   * @return the upload, with an identifier unique in this sink
   */
  public UnfinishedUpload leaveUnfinishedUpload(String key, Instant initiated) {
    UnfinishedUpload upload = new UnfinishedUpload(Objects.requireNonNull(key, "key"),
        "fake-upload-" + uploadIds.incrementAndGet(), Objects.requireNonNull(initiated, "initiated"));
    unfinished.put(upload.uploadId(), upload);
    return upload;
  }

  /** The unfinished uploads aborted so far (by {@link #abortUnfinishedUpload} or a retry), in order. */
  public List<UnfinishedUpload> abortedUploads() {
    return List.copyOf(aborted);
  }

  /** The stored bytes at {@code key} (a copy), or empty. */
  public Optional<byte[]> bytes(String key) {
    Blob blob = objects.get(key);
    return blob == null ? Optional.empty() : Optional.of(blob.bytes.clone());
  }

  /** Stores {@code bytes} at {@code key} directly, without recording a PUT (seeds a bucket). */
  public void seed(String key, byte[] bytes) {
    byte[] copy = bytes.clone();
    objects.put(Objects.requireNonNull(key, "key"), blob(copy));
  }

  /** Removes the object at {@code key} without recording anything (simulates an object lost). */
  public void delete(String key) {
    objects.remove(key);
  }

  /** Every PUT attempt so far, in call order. */
  public List<PutAttempt> attempts() {
    return List.copyOf(attempts);
  }

  /** The PUT attempts for {@code key} so far, in call order. */
  public List<PutAttempt> attempts(String key) {
    return attempts.stream().filter(a -> a.key().equals(key)).toList();
  }

  /** The number of PUT attempts (of any outcome) so far. */
  public int putCount() {
    return attempts.size();
  }

  /** The number of attempts that wrote an object ({@link Outcome#wroteObject()}). */
  public long writeCount() {
    return attempts.stream().filter(a -> a.outcome().wroteObject()).count();
  }

  /** Applies {@code fault} to the next call for any key that has no fault of its own scheduled. */
  public synchronized FakeObjectSink failNext(SinkFault fault) {
    nextFaults.add(Objects.requireNonNull(fault, "fault"));
    return this;
  }

  /** Applies {@code fault} to the next call for {@code key}. */
  public FakeObjectSink failNext(String key, SinkFault fault) {
    return failTimes(key, 1, fault);
  }

  /** Applies {@code fault} to the next {@code times} calls for {@code key}; later calls succeed. */
  public synchronized FakeObjectSink failTimes(String key, int times, SinkFault fault) {
    Objects.requireNonNull(key, "key");
    Objects.requireNonNull(fault, "fault");
    if (times < 0) {
      throw new IllegalArgumentException("times must be >= 0, got " + times);
    }
    Queue<SinkFault> queue = keyFaults.computeIfAbsent(key, k -> new ArrayDeque<>());
    for (int i = 0; i < times; i++) {
      queue.add(fault);
    }
    return this;
  }

  /**
   * Applies {@code fault} to every call until {@link #endOutage()}, ahead of any scheduled fault:
   * a sink that is down.
   */
  public FakeObjectSink startOutage(SinkFault fault) {
    this.outage = Objects.requireNonNull(fault, "fault");
    return this;
  }

  /** Ends an outage started by {@link #startOutage}. */
  public FakeObjectSink endOutage() {
    this.outage = null;
    return this;
  }

  /** Drops every scheduled fault that no call has consumed yet. */
  public synchronized FakeObjectSink clearFaults() {
    nextFaults.clear();
    keyFaults.clear();
    return this;
  }

  /** Delays every call by {@code latency} (zero for none). */
  public FakeObjectSink setLatency(Duration latency) {
    this.latency = SinkFault.delay(latency).delay;
    return this;
  }

  private synchronized SinkFault takeFault(String key) {
    SinkFault down = outage;
    if (down != null) {
      return down;
    }
    Queue<SinkFault> queue = keyFaults.get(key);
    SinkFault fault = queue == null ? null : queue.poll();
    return fault != null ? fault : nextFaults.poll();
  }

  private SinkException failBeforeStore(String key, long size, boolean mayExist, boolean retryable, String why) {
    attempts.add(new PutAttempt(key, size, mayExist, Outcome.FAILED_BEFORE_STORE));
    String message = why + " putting " + key;
    return retryable ? SinkException.retryable(message, null) : SinkException.permanent(message, null);
  }

  private static void pause(Duration delay) throws InterruptedException {
    if (!delay.isZero()) {
      Thread.sleep(delay.toMillis(), delay.toNanosPart() % 1_000_000);
    }
  }

  private static StoredObjectInfo info(String key, Blob blob) {
    return new StoredObjectInfo(key, blob.bytes.length, blob.checksum);
  }
}
