package dev.segmentledger.s3;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import ch.qos.logback.classic.Level;
import ch.qos.logback.classic.Logger;
import ch.qos.logback.classic.spi.ILoggingEvent;
import ch.qos.logback.core.read.ListAppender;
import dev.segmentledger.core.SinkException;
import dev.segmentledger.core.StoredObjectInfo;
import dev.segmentledger.core.UnfinishedUpload;
import dev.segmentledger.core.spi.UploadContent;
import dev.segmentledger.rig.FaultProxy;
import dev.segmentledger.rig.FaultProxy.Fault;
import dev.segmentledger.rig.FaultProxy.Request;
import java.io.IOException;
import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;
import org.slf4j.LoggerFactory;
import software.amazon.awssdk.core.sync.RequestBody;
import software.amazon.awssdk.services.s3.model.MultipartUpload;

/**
 * Multipart uploads against S3Proxy: a 64 MiB object, the mayExist skip, what a failed attempt
 * leaves (its upload, unless the failure was permanent), and the unfinished uploads of a key that
 * a completion aborts. Continuing uploads is {@link S3ObjectSinkResumeTest}'s subject, parallel
 * parts {@link S3ObjectSinkParallelPartsTest}'s. S3Proxy's {@code transient-nio2} store answers
 * ListMultipartUploads (with {@code prefix}), ListParts and AbortMultipartUpload like S3, and
 * {@code 404 NoSuchUpload} for an upload already gone.
 */
class S3ObjectSinkMultipartTest {
  private static final String KEY = "b1/1080p/original/0000000001.ts";
  private static final long MIB = 1024 * 1024;
  @RegisterExtension static final S3FaultRig rig = S3FaultRig.inMemory(Duration.ofSeconds(60));

  @TempDir Path dir;
  private String bucket;

  @BeforeEach
  void freshBucket() {
    bucket = rig.freshBucket();
  }

  @Test
  void uploadsA64MiBFileInPartsAndSkipsTheIdenticalRetry() throws Exception {
    Path file = randomFile(64 * MIB + 12_345);
    S3ObjectSink sink = S3ObjectSink.builder().client(rig.throughProxy()).bucket(bucket).build();

    StoredObjectInfo stored = sink.put(KEY, TestContent.of(file), false);

    assertEquals(Files.size(file), stored.sizeBytes());
    assertEquals(sha256(Files.newInputStream(file)), stored.checksum());
    assertEquals(9, rig.proxy().requests().stream().filter(Request::isUpload).count(), "8 MiB parts: " + rig.proxy().requests());
    assertEquals(Optional.of(stored), sink.head(KEY));
    assertEquals(stored.checksum(), sha256(rig.direct().getObject(b -> b.bucket(bucket).key(KEY))), "bytes read back");

    rig.proxy().clearRequests();
    assertEquals(stored, sink.put(KEY, TestContent.of(file), true));
    assertEquals(0, rig.proxy().requests().stream().filter(Request::isUpload).count(), "identical: " + rig.proxy().requests());
  }

  @Test
  void aTransientPartFailureLeavesTheUploadForTheNextAttempt() throws Exception {
    Path file = randomFile(12 * MIB);
    S3ObjectSink sink = smallParts(rig.throughProxy());
    rig.proxy().inject(Fault.INTERNAL_ERROR, r -> r.isUpload() && r.target().contains("partNumber=2"));

    SinkException e = assertThrows(SinkException.class, () -> sink.put(KEY, TestContent.of(file), false));

    assertTrue(e.isRetryable() && e.getMessage().contains("HTTP 500 InternalError"), e.getMessage());
    assertTrue(rig.proxy().requests().stream().noneMatch(r -> r.method().equals("DELETE")),
        "no AbortMultipartUpload: " + rig.proxy().requests());
    assertEquals(1, uploadIds(KEY).size(), "left unfinished for the next attempt to continue");
    assertEquals(Optional.empty(), sink.head(KEY));
  }

  @Test
  void aPermanentPartFailureAbortsTheUploadAndReportsTheFailure() throws Exception {
    Path file = randomFile(12 * MIB);
    S3ObjectSink sink = smallParts(rig.throughProxy());
    rig.proxy().injectError(400, "InvalidArgument", r -> r.isUpload() && r.target().contains("partNumber=2"));

    SinkException e = assertThrows(SinkException.class, () -> sink.put(KEY, TestContent.of(file), false));

    assertEquals(SinkException.Kind.PERMANENT, e.failureKind(), e.getMessage());
    assertTrue(e.getMessage().contains("HTTP 400 InvalidArgument"), e.getMessage());
    assertTrue(rig.proxy().requests().stream().anyMatch(r -> r.method().equals("DELETE") && r.target().contains("uploadId=")),
        "AbortMultipartUpload sent: " + rig.proxy().requests());
    assertEquals(0, rig.direct().listMultipartUploads(b -> b.bucket(bucket)).uploads().size());
    assertEquals(Optional.empty(), sink.head(KEY));
  }

  @Test
  void failedAbortIsAttachedToTheOriginalFailure() throws Exception {
    Path file = randomFile(11 * MIB);
    S3ObjectSink sink = smallParts(rig.throughProxy());
    rig.proxy().injectError(400, "InvalidArgument", r -> r.isUpload() && r.target().contains("partNumber=3"));
    rig.proxy().inject(Fault.INTERNAL_ERROR, r -> r.method().equals("DELETE"));

    SinkException e = assertThrows(SinkException.class, () -> sink.put(KEY, TestContent.of(file), false));

    assertTrue(e.getMessage().contains("400 InvalidArgument"), e.getMessage());
    assertEquals(1, e.getCause().getSuppressed().length, "the abort failure travels with the cause");
    assertEquals(1, rig.direct().listMultipartUploads(b -> b.bucket(bucket)).uploads().size(),
        "the abort failed: the upload is left for the bucket lifecycle rule");
  }

  @Test
  void aCompletedUploadLeavesNoUnfinishedUploadAtItsKeyAndTouchesNoOtherKey() throws Exception {
    Path file = randomFile(11 * MIB);
    S3ObjectSink sink = smallParts(rig.direct());
    // As left by processes killed mid-upload: two at the key (one with a part), one at a longer key, one elsewhere.
    unfinished(KEY, true);
    unfinished(KEY, false);
    String longerKey = unfinished(KEY + ".bak", true);
    String otherKey = unfinished("b1/1080p/original/0000000002.ts", false);

    StoredObjectInfo stored = sink.put(KEY, TestContent.of(file), false);

    assertEquals(List.of(longerKey, otherKey).stream().sorted().toList(), uploadIds(null),
        "the completion aborted the other unfinished uploads of its own key only");
    assertEquals(Optional.of(stored), sink.head(KEY));
    assertEquals(stored, sink.put(KEY, TestContent.of(file), true));
    assertEquals(List.of(longerKey, otherKey).stream().sorted().toList(), uploadIds(null));
    assertEquals(List.of(KEY), rig.direct().listObjectsV2(b -> b.bucket(bucket).prefix("b1/")).contents().stream()
        .map(o -> o.key()).toList());
  }

  @Test
  void identicalObjectSkippedOnRetryStillAbortsTheLeftovers() throws Exception {
    Path file = randomFile(11 * MIB);
    S3ObjectSink sink = smallParts(rig.throughProxy());
    sink.put(KEY, TestContent.of(file), false);
    unfinished(KEY, true);
    rig.proxy().clearRequests();

    sink.put(KEY, TestContent.of(file), true);

    assertEquals(0, rig.proxy().requests().stream().filter(FaultProxy.Request::isUpload).count(),
        "identical: " + rig.proxy().requests());
    assertEquals(List.of(), uploadIds(KEY));
  }

  @Test
  void failedHousekeepingIsLoggedOnceAndDoesNotFailTheUpload() throws Exception {
    Path file = randomFile(11 * MIB);
    S3ObjectSink sink = smallParts(rig.throughProxy());
    String left = unfinished(KEY, true);
    // Both listings of the put fail: the one before (which would continue or abort it) and the one after.
    rig.proxy().inject(Fault.INTERNAL_ERROR, r -> r.method().equals("GET") && r.target().contains("uploads"));
    rig.proxy().inject(Fault.INTERNAL_ERROR, r -> r.method().equals("GET") && r.target().contains("uploads"));
    ListAppender<ILoggingEvent> logged = capture();
    try {
      StoredObjectInfo stored = sink.put(KEY, TestContent.of(file), true);

      assertEquals(Optional.of(stored), sink.head(KEY), "the upload went on");
      assertEquals(List.of(left), uploadIds(KEY), "the listings failed: nothing aborted, left for the next retry");
      List<ILoggingEvent> warnings = logged.list.stream().filter(e -> e.getLevel() == Level.WARN).toList();
      assertEquals(1, warnings.size(), "one WARN for two failures: " + logged.list);
      assertTrue(warnings.get(0).getFormattedMessage().contains("HTTP 500"), warnings.get(0).getFormattedMessage());
    } finally {
      release(logged);
    }

    sink.put(KEY, TestContent.of(file), true);
    assertEquals(List.of(), uploadIds(KEY), "the next retry that can list aborts it");
  }

  @Test
  void missingBucketFailsTheRetryAsAConfigurationFailure() throws Exception {
    S3ObjectSink sink = S3ObjectSink.builder().client(rig.direct()).bucket("no-such-bucket-" + System.nanoTime())
        .multipartThreshold(5 * MIB).partSize(5 * MIB).build();

    SinkException e = assertThrows(SinkException.class, () -> sink.put(KEY, TestContent.of(randomFile(6 * MIB)), true));

    assertEquals(SinkException.Kind.CONFIGURATION, e.failureKind(), e.getMessage());
    assertTrue(e.getMessage().contains("NoSuchBucket"), e.getMessage());
  }

  @Test
  void uploadAbortedUnderItsUploaderFailsRetryably() throws Exception {
    Path file = randomFile(11 * MIB);
    S3ObjectSink sink = smallParts(rig.direct(), 1);
    UploadContent content = TestContent.of(file);
    AtomicInteger opened = new AtomicInteger();
    UploadContent abortingAtFirstPart = new UploadContent() {
      @Override
      public long size() {
        return content.size();
      }

      @Override
      public InputStream openStream() throws IOException {
        if (opened.incrementAndGet() == 2) { // 1: the digest pass (one lane: one pass); 2: the first part
          for (UnfinishedUpload upload : sink.listUnfinishedUploads(KEY)) {
            assertTrue(sink.abortUnfinishedUpload(upload));
          }
        }
        return content.openStream();
      }
    };

    SinkException e = assertThrows(SinkException.class, () -> sink.put(KEY, abortingAtFirstPart, false));

    // S3 answers 404 NoSuchUpload, S3Proxy 404 NoSuchKey: either way a new attempt starts a new upload.
    assertTrue(e.isRetryable(), e.getMessage());
    assertTrue(e.getMessage().contains("vanished"), e.getMessage());
    assertEquals(List.of(), uploadIds(KEY));
    assertEquals(Optional.empty(), sink.head(KEY));
  }

  private S3ObjectSink smallParts(software.amazon.awssdk.services.s3.S3Client client) {
    return smallParts(client, 4);
  }

  private S3ObjectSink smallParts(software.amazon.awssdk.services.s3.S3Client client, int partConcurrency) {
    return S3ObjectSink.builder().client(client).bucket(bucket).multipartThreshold(5 * MIB).partSize(5 * MIB)
        .partConcurrency(partConcurrency).build();
  }

  /** Starts a multipart upload at {@code key} and leaves it unfinished, as a killed process does. */
  private String unfinished(String key, boolean withPart) {
    String uploadId = rig.direct().createMultipartUpload(b -> b.bucket(bucket).key(key)).uploadId();
    if (withPart) {
      rig.direct().uploadPart(b -> b.bucket(bucket).key(key).uploadId(uploadId).partNumber(1),
          RequestBody.fromBytes(new byte[(int) (5 * MIB)]));
    }
    return uploadId;
  }

  /** The ids of the unfinished uploads of exactly {@code key} (all of the bucket if null), sorted. */
  private List<String> uploadIds(String key) {
    return rig.direct().listMultipartUploads(b -> b.bucket(bucket)).uploads().stream()
        .filter(u -> key == null || u.key().equals(key)).map(MultipartUpload::uploadId).sorted().toList();
  }

  private static ListAppender<ILoggingEvent> capture() {
    // The tests run on the module path; this module does not require logback, S3Proxy brings it.
    Module self = S3ObjectSinkMultipartTest.class.getModule();
    Module classic = LoggerFactory.getILoggerFactory().getClass().getModule();
    self.addReads(classic);
    if (classic.getLayer() != null) {
      classic.getLayer().findModule("ch.qos.logback.core").ifPresent(self::addReads);
    }
    ListAppender<ILoggingEvent> appender = new ListAppender<>();
    appender.start();
    ((Logger) LoggerFactory.getLogger(S3ObjectSink.class)).addAppender(appender);
    return appender;
  }

  private static void release(ListAppender<ILoggingEvent> appender) {
    ((Logger) LoggerFactory.getLogger(S3ObjectSink.class)).detachAppender(appender);
  }

  private Path randomFile(long size) throws Exception {
    return TestContent.randomFile(dir, size);
  }

  private static String sha256(InputStream stream) throws Exception {
    return TestContent.sha256(stream);
  }
}
