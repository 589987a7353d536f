package dev.segmentledger.s3;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.segmentledger.core.SinkException;
import dev.segmentledger.core.StoredObjectInfo;
import dev.segmentledger.rig.FaultProxy.Request;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.function.Predicate;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import software.amazon.awssdk.core.sync.RequestBody;
import software.amazon.awssdk.services.s3.model.MultipartUpload;
import software.amazon.awssdk.services.s3.model.Part;

/**
 * A failed listing of an unfinished upload's parts means "not continued this time", never "holds
 * nothing": the upload an earlier attempt left (three of six parts stored) is not aborted, and the
 * attempt fails retryably without starting another upload, so that its retry continues it (and a
 * node still sending it, whose lease was taken over, is not raced by a second full upload). A
 * refusal by the role's permissions ({@code 403 AccessDenied}), by a store that does not implement
 * the listing ({@code 501}), or a {@code 400} that is not a passing condition is not a passing
 * failure, nor are listings of one upload that fail three times running: the put goes on with a
 * fresh upload, still without aborting the one it could not list before its own upload completed.
 */
class S3ObjectSinkUnlistedPartsTest {
  private static final String KEY = "b1/1080p/original/0000000002.ts";
  private static final long MIB = 1024 * 1024;
  private static final long PART = 5 * MIB;
  private static final long SIZE = 5 * PART + 1_234_567;
  private static final Predicate<Request> LIST_PARTS =
      r -> r.method().equals("GET") && r.target().contains("uploadId=");
  @RegisterExtension static final S3FaultRig rig = S3FaultRig.inMemory(Duration.ofSeconds(60));

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
    rig.proxy().onRequest(r -> {}, true);
    clients.close();
  }

  @ParameterizedTest(name = "ListParts answered {0} {1}")
  @CsvSource({"503, ServiceUnavailable", "503, SlowDown", "500, InternalError", "400, RequestTimeout"})
  void aFailedListingOfPartsAbortsNothingAndFailsTheAttemptRetryably(int status, String code) throws Exception {
    String left = uploadWithThreeParts();
    rig.proxy().injectError(status, code, LIST_PARTS);

    SinkException e = assertThrows(SinkException.class,
        () -> sink().put(KEY, TestContent.of(file), true), "the put must not go on as if the upload held nothing");

    assertTrue(e.isRetryable(), e::toString);
    assertEquals(List.of(), recorder.aborted, "no AbortMultipartUpload for an upload whose parts were not listed");
    assertEquals(List.of(), recorder.created, "no second upload of the same content");
    assertEquals(List.of(left), uploadsOfKey(), "the earlier upload remains");
    assertEquals(List.of(1, 2, 3), storedParts(left), "with its parts");

    StoredObjectInfo stored = sink().put(KEY, TestContent.of(file), true);

    assertEquals(List.of(left), recorder.completed, "the retry continues it");
    assertEquals(List.of(4, 5, 6), recorder.partNumbers().stream().sorted().toList(), "sending only the missing parts");
    assertEquals(SIZE, stored.sizeBytes());
    assertEquals(List.of(), uploadsOfKey());
  }

  @ParameterizedTest(name = "ListParts answered {0} {1}")
  @CsvSource({"403, AccessDenied", "501, NotImplemented", "400, InvalidRequest"})
  void aListingEveryRetryWouldMeetGoesOnAfreshAndAbortsOnlyAfterItsOwnCompletion(int status, String code)
      throws Exception {
    String left = uploadWithThreeParts();
    rig.proxy().injectError(status, code, LIST_PARTS);
    List<String> abortedWhenCreated = new CopyOnWriteArrayList<>();
    rig.proxy().onRequest(r -> {
      if (r.method().equals("POST") && r.target().contains("uploads")) {
        abortedWhenCreated.addAll(recorder.aborted);
      }
    }, true);

    StoredObjectInfo stored = sink().put(KEY, TestContent.of(file), true);

    assertEquals(SIZE, stored.sizeBytes());
    assertEquals(1, recorder.created.size(), "a fresh upload");
    assertEquals(List.of(), abortedWhenCreated, "nothing aborted before the fresh upload");
    assertEquals(List.of(left), recorder.aborted, "the unlisted upload is aborted once the object is stored");
  }

  @Test
  void anUploadWhosePartsFailToListThreeTimesRunningIsLeftAloneAndThePutGoesOnAfresh() throws Exception {
    String left = uploadWithThreeParts();
    S3ObjectSink sink = sink(); // the failures are counted by the sink instance
    for (int failed = 1; failed < 3; failed++) {
      rig.proxy().injectError(500, "InternalError", LIST_PARTS);
      assertTrue(assertThrows(SinkException.class, () -> sink.put(KEY, TestContent.of(file), true)).isRetryable());
      assertEquals(List.of(), recorder.created, "no fresh upload after " + failed + " failed listings");
    }
    rig.proxy().injectError(500, "InternalError", LIST_PARTS);

    StoredObjectInfo stored = sink.put(KEY, TestContent.of(file), true);

    assertEquals(SIZE, stored.sizeBytes(), "a listing failing every time must not keep the row from its upload");
    assertEquals(1, recorder.created.size(), "a fresh upload");
    assertEquals(List.of(left), recorder.aborted, "the unlisted upload is aborted once the object is stored");
  }

  private S3ObjectSink sink() {
    return S3ObjectSink.builder().client(clients.throughProxy()).bucket(bucket).multipartThreshold(PART)
        .partSize(PART).partConcurrency(2).build();
  }

  private String uploadWithThreeParts() throws Exception {
    String checksum = TestContent.sha256(Files.newInputStream(file));
    String upload = rig.direct().createMultipartUpload(b -> b.bucket(bucket).key(KEY)
        .metadata(Map.of(S3ObjectSink.CHECKSUM_METADATA, checksum))).uploadId();
    for (int n = 1; n <= 3; n++) {
      byte[] bytes = TestContent.range(file, (n - 1) * PART, PART);
      int partNumber = n;
      rig.direct().uploadPart(b -> b.bucket(bucket).key(KEY).uploadId(upload).partNumber(partNumber),
          RequestBody.fromBytes(bytes));
    }
    return upload;
  }

  private List<String> uploadsOfKey() {
    return rig.direct().listMultipartUploads(b -> b.bucket(bucket).prefix(KEY)).uploads().stream()
        .map(MultipartUpload::uploadId).toList();
  }

  private List<Integer> storedParts(String uploadId) {
    return rig.direct().listPartsPaginator(b -> b.bucket(bucket).key(KEY).uploadId(uploadId)).parts().stream()
        .map(Part::partNumber).sorted().toList();
  }
}
