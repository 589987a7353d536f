package dev.segmentledger.s3;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.segmentledger.core.SinkException;
import dev.segmentledger.core.StoredObjectInfo;
import dev.segmentledger.rig.FaultProxy.Fault;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.stream.IntStream;
import java.util.zip.CRC32C;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;
import software.amazon.awssdk.core.SdkResponse;
import software.amazon.awssdk.core.interceptor.Context;
import software.amazon.awssdk.core.interceptor.ExecutionAttributes;
import software.amazon.awssdk.core.interceptor.ExecutionInterceptor;
import software.amazon.awssdk.core.sync.RequestBody;
import software.amazon.awssdk.services.s3.S3Client;
import software.amazon.awssdk.services.s3.model.ListPartsResponse;
import software.amazon.awssdk.services.s3.model.MultipartUpload;
import software.amazon.awssdk.services.s3.model.Part;
import software.amazon.awssdk.services.s3.model.S3Exception;

/**
 * A retry continues the unfinished upload an earlier attempt left at its key: only the parts that
 * are missing or cannot be verified are sent (counted as the SDK sends them, {@link PartRecorder}),
 * the object ends complete with this content's checksum, and no unfinished upload is left. Content
 * of 6 parts of 5 MiB (the last one short), on S3Proxy in-process on its {@code filesystem} store.
 */
class S3ObjectSinkResumeTest {
  private static final String KEY = "b1/1080p/original/0000000001.ts";
  private static final long MIB = 1024 * 1024;
  private static final long PART = 5 * MIB;
  private static final long SIZE = 5 * PART + 1_234_567;
  private static final int PARTS = 6;
  // The filesystem store: the first test cuts a part body on the client side (see S3ProxyServer).
  @RegisterExtension static final S3FaultRig rig = S3FaultRig.onFilesystem(Duration.ofSeconds(60));

  @TempDir Path dir;
  private final PartRecorder recorder = new PartRecorder();
  private RecordedClients clients;
  private String bucket;
  private Path file;

  @BeforeEach
  void setUp() throws Exception {
    bucket = rig.freshBucket();
    clients = new RecordedClients(rig, recorder);
    file = TestContent.randomFile(dir, SIZE);
  }

  @AfterEach
  void closeClients() {
    clients.close();
  }

  @Test
  void aRetryContinuesAnUploadCancelledAfterTwoPartsAndSendsOnlyTheMissingOnes() throws Exception {
    try (ChannelContent cancelled = ChannelContent.closingOnceStored(file, 2 * PART)) {
      SinkException e = assertThrows(SinkException.class, () -> sink(clients.direct(), 1).put(KEY, cancelled, false));
      assertTrue(e.isRetryable(), e::toString);
      assertEquals(List.of(PART, 2 * PART), cancelled.reported);
    }
    String left = onlyUploadOfKey();
    assertEquals(List.of(1, 2), storedParts(left), "the cancelled attempt left its upload with two parts");
    assertEquals(List.of(), recorder.aborted, "a transient failure aborts nothing");
    recorder.clear();

    try (ChannelContent retry = ChannelContent.of(file)) {
      StoredObjectInfo stored = sink(clients.direct(), 4).put(KEY, retry, true);

      assertEquals(List.of(3, 4, 5, 6), recorder.partNumbers().stream().sorted().toList(), "only the missing parts");
      assertEquals(SIZE - 2 * PART, recorder.bytesSent());
      assertTrue(recorder.parts.stream().allMatch(p -> p.uploadId().equals(left)), "all into the left upload");
      assertEquals(List.of(), recorder.created, "no new upload");
      assertEquals(List.of(left), recorder.completed);
      assertComplete(stored);
      assertEquals(2 * PART, retry.reported.get(0), "verified parts count at once: " + retry.reported);
      assertIncreasingToTheSize(retry.reported);
    }
  }

  @Test
  void aConnectionDroppedMidPartThroughTheFaultProxyIsContinuedByTheRetry() throws Exception {
    rig.proxy().inject(Fault.RESET_MID_BODY, r -> r.isUpload() && r.target().contains("partNumber=5&"));

    SinkException e = assertThrows(SinkException.class,
        () -> sink(clients.throughProxy(), 4).put(KEY, TestContent.of(file), false));
    assertTrue(e.isRetryable(), e::toString);
    assertTrue(rig.proxy().requests().stream().anyMatch(r -> r.target().contains("partNumber=5&")), "part 5 was cut");

    String left = onlyUploadOfKey();
    List<Integer> stored = storedParts(left);
    assertTrue(stored.containsAll(List.of(1, 2, 3, 4)) && !stored.contains(5),
        "the parts started with part 5 ended on their own: " + stored);
    recorder.clear();

    StoredObjectInfo info = sink(clients.throughProxy(), 4).put(KEY, TestContent.of(file), true);

    List<Integer> missing = IntStream.rangeClosed(1, PARTS).boxed().filter(n -> !stored.contains(n)).toList();
    assertEquals(missing, recorder.partNumbers().stream().sorted().toList(), "only the parts not stored");
    assertEquals(List.of(left), recorder.completed);
    assertComplete(info);
  }

  @Test
  void aPartWithOtherBytesOrAnotherSizeOnTheServerIsSentAgain() throws Exception {
    String upload = unfinished(S3ObjectSink.CHECKSUM_METADATA, checksum());
    sendPart(upload, 1, TestContent.range(file, 0, PART));
    sendPart(upload, 2, TestContent.randomBytes((int) PART, 99)); // same size, other bytes
    sendPart(upload, 3, TestContent.range(file, 2 * PART, PART - 1)); // right bytes, but not the part's size
    sendPart(upload, 4, TestContent.range(file, 3 * PART, PART));

    StoredObjectInfo stored = sink(clients.direct(), 4).put(KEY, TestContent.of(file), true);

    assertEquals(List.of(2, 3, 5, 6), recorder.partNumbers().stream().sorted().toList());
    assertEquals(List.of(upload), recorder.completed);
    assertComplete(stored);
  }

  @Test
  void aPartWhoseListedCrc32cDiffersIsSentAgainEvenIfItsEtagMatches() throws Exception {
    String upload = unfinished(S3ObjectSink.CHECKSUM_METADATA, checksum());
    for (int part = 1; part <= 3; part++) {
      sendPart(upload, part, TestContent.range(file, (part - 1) * PART, PART));
    }
    // S3Proxy 2.9 lists no part checksums: the interceptor gives parts 1 and 3 their CRC32C, part 2 another.
    ExecutionInterceptor checksums = new ExecutionInterceptor() {
      @Override
      public SdkResponse modifyResponse(Context.ModifyResponse context, ExecutionAttributes attributes) {
        if (!(context.response() instanceof ListPartsResponse listed)) {
          return context.response();
        }
        return listed.toBuilder().parts(listed.parts().stream().map(p -> p.toBuilder()
            .checksumCRC32C(p.partNumber() == 2 ? "AAAAAA==" : crc32c(p.partNumber())).build()).toList()).build();
      }
    };
    try (S3Client listing = rig.server().clientTo(rig.server().endpoint(), Duration.ofSeconds(60), recorder,
        checksums)) {
      StoredObjectInfo stored = sink(listing, 4).put(KEY, TestContent.of(file), true);

      assertEquals(List.of(2, 4, 5, 6), recorder.partNumbers().stream().sorted().toList());
      assertComplete(stored);
    }
  }

  private String crc32c(int partNumber) {
    try {
      CRC32C crc = new CRC32C();
      crc.update(TestContent.range(file, (partNumber - 1) * PART, Math.min(PART, SIZE - (partNumber - 1) * PART)));
      return ContentDigests.crc32c(crc);
    } catch (java.io.IOException e) {
      throw new java.io.UncheckedIOException(e);
    }
  }

  @Test
  void ofSeveralUnfinishedUploadsTheOneHoldingMostIsContinuedAndTheOthersAborted() throws Exception {
    String one = unfinished(S3ObjectSink.CHECKSUM_METADATA, checksum());
    sendPart(one, 1, TestContent.range(file, 0, PART));
    String three = unfinished(S3ObjectSink.CHECKSUM_METADATA, checksum());
    for (int n = 1; n <= 3; n++) {
      sendPart(three, n, TestContent.range(file, (n - 1) * PART, PART));
    }
    String wrong = unfinished(S3ObjectSink.CHECKSUM_METADATA, checksum());
    sendPart(wrong, 1, TestContent.randomBytes((int) PART, 7));
    String empty = unfinished(S3ObjectSink.CHECKSUM_METADATA, checksum());

    StoredObjectInfo stored = sink(clients.direct(), 4).put(KEY, TestContent.of(file), true);

    assertEquals(List.of(4, 5, 6), recorder.partNumbers().stream().sorted().toList());
    assertEquals(List.of(three), recorder.completed);
    assertEquals(List.of(empty, one, wrong).stream().sorted().toList(), recorder.aborted.stream().sorted().toList());
    assertComplete(stored);
  }

  @Test
  void aContinuedUploadCreatedForOtherContentIsUploadedAgainAfresh() throws Exception {
    String other = unfinished(S3ObjectSink.CHECKSUM_METADATA, "sha256:" + "A".repeat(43) + "=");
    sendPart(other, 1, TestContent.range(file, 0, PART));
    sendPart(other, 2, TestContent.range(file, PART, PART));
    ChannelContent content = ChannelContent.of(file);

    StoredObjectInfo stored;
    try (content) {
      stored = sink(clients.direct(), 4).put(KEY, content, true);
    }

    assertEquals(2, recorder.completed.size(), "the continued upload, then a fresh one: " + recorder.completed);
    assertEquals(other, recorder.completed.get(0));
    assertEquals(1, recorder.created.size());
    assertEquals(PARTS - 2 + PARTS, recorder.parts.size(), "the missing parts, then all of them");
    assertComplete(stored);
    assertIncreasingToTheSize(content.reported);
  }

  @Test
  void anIdenticalObjectStillSkipsTheUploadAndAbortsTheObsoleteUploads() throws Exception {
    sink(clients.direct(), 4).put(KEY, TestContent.of(file), false);
    String left = unfinished(S3ObjectSink.CHECKSUM_METADATA, checksum());
    sendPart(left, 1, TestContent.range(file, 0, PART));
    recorder.clear();

    StoredObjectInfo stored = sink(clients.direct(), 4).put(KEY, TestContent.of(file), true);

    assertEquals(List.of(), recorder.parts);
    assertEquals(List.of(left), recorder.aborted);
    assertComplete(stored);
  }

  @Test
  void aFirstAttemptNeverContinuesAnything() throws Exception {
    String left = unfinished(S3ObjectSink.CHECKSUM_METADATA, checksum());
    sendPart(left, 1, TestContent.range(file, 0, PART));

    StoredObjectInfo stored = sink(clients.direct(), 4).put(KEY, TestContent.of(file), false);

    assertEquals(PARTS, recorder.parts.size(), "mayExist false: a fresh upload of every part");
    assertFalse(recorder.completed.contains(left));
    assertEquals(List.of(left), recorder.aborted, "and the leftover aborted after the completion");
    assertComplete(stored);
  }

  private S3ObjectSink sink(S3Client client, int partConcurrency) {
    return S3ObjectSink.builder().client(client).bucket(bucket).multipartThreshold(PART).partSize(PART)
        .partConcurrency(partConcurrency).build();
  }

  private String checksum() throws Exception {
    return TestContent.sha256(Files.newInputStream(file));
  }

  /** An unfinished upload at the key with this metadata, as an earlier attempt creates it. */
  private String unfinished(String metadataName, String value) {
    return rig.direct().createMultipartUpload(b -> b.bucket(bucket).key(KEY).metadata(Map.of(metadataName, value)))
        .uploadId();
  }

  private void sendPart(String uploadId, int partNumber, byte[] bytes) {
    rig.direct().uploadPart(b -> b.bucket(bucket).key(KEY).uploadId(uploadId).partNumber(partNumber),
        RequestBody.fromBytes(bytes));
  }

  private String onlyUploadOfKey() {
    List<MultipartUpload> uploads = rig.direct().listMultipartUploads(b -> b.bucket(bucket).prefix(KEY)).uploads();
    assertEquals(1, uploads.size(), uploads::toString);
    return uploads.get(0).uploadId();
  }

  /**
   * The part numbers the server lists for {@code uploadId}. Right after an attempt was cancelled
   * in the middle of a part, the server may still be handling that cut-off request, and S3Proxy's
   * filesystem store then answered the listing with 400 (once in a CI run on JDK 25); the listing is
   * asked again until the server answers it, for at most 10 s.
   */
  private List<Integer> storedParts(String uploadId) throws InterruptedException {
    long deadline = System.nanoTime() + Duration.ofSeconds(10).toNanos();
    while (true) {
      try {
        return rig.direct().listPartsPaginator(b -> b.bucket(bucket).key(KEY).uploadId(uploadId)).parts().stream()
            .map(Part::partNumber).sorted().toList();
      } catch (S3Exception e) {
        if (e.statusCode() != 400 || System.nanoTime() > deadline) {
          throw e;
        }
        Thread.sleep(20); // the server's state has no event to wait on
      }
    }
  }

  /** The object is this file, with its checksum as metadata, and the key has no unfinished upload left. */
  private void assertComplete(StoredObjectInfo stored) throws Exception {
    String expected = checksum();
    assertEquals(new StoredObjectInfo(KEY, SIZE, expected), stored);
    S3ObjectSink observer = S3ObjectSink.builder().client(rig.direct()).bucket(bucket).build();
    assertEquals(Optional.of(stored), observer.head(KEY));
    assertEquals(expected, TestContent.sha256(rig.direct().getObject(b -> b.bucket(bucket).key(KEY))), "bytes read back");
    assertEquals(List.of(), rig.direct().listMultipartUploads(b -> b.bucket(bucket)).uploads(), "no unfinished upload");
  }

  private static void assertIncreasingToTheSize(List<Long> reported) {
    for (int i = 1; i < reported.size(); i++) {
      assertTrue(reported.get(i) > reported.get(i - 1), "strictly increasing: " + reported);
    }
    assertEquals(SIZE, reported.get(reported.size() - 1), "ends at the size: " + reported);
  }
}
