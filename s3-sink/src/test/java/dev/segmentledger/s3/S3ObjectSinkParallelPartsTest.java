package dev.segmentledger.s3;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.segmentledger.core.SinkException;
import dev.segmentledger.core.StoredObjectInfo;
import dev.segmentledger.rig.FaultProxy.Fault;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.stream.IntStream;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;
import software.amazon.awssdk.services.s3.model.Part;

/**
 * Parts of one upload sent in parallel: never more at once than {@code partConcurrency}, read from
 * a {@code FileChannel} as the ledger hands it over (which an interrupt of any reader would close),
 * a failing part stopping the rest without disturbing the parts already running.
 */
class S3ObjectSinkParallelPartsTest {
  private static final String KEY = "b1/1080p/original/0000000001.ts";
  private static final long MIB = 1024 * 1024;
  private static final long PART = 5 * MIB;
  private static final long SIZE = 5 * PART + 4_321;
  private static final int PARTS = 6;
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
    clients.close();
  }

  @Test
  void atMostPartConcurrencyPartsAreInFlightAndMoreThanOneIs() throws Exception {
    recorder.holdUntilInFlight(4);
    StoredObjectInfo stored;
    try (ChannelContent content = ChannelContent.of(file)) {
      stored = sink(4).put(KEY, content, false);

      assertTrue(content.isOpen(), "no reader was interrupted (an interrupt closes the channel)");
      assertIncreasingToTheSize(content.reported, PARTS);
    }

    assertEquals(4, recorder.maxInFlight(), "the first four were held until all four ran; never a fifth");
    assertEquals(IntStream.rangeClosed(1, PARTS).boxed().toList(), recorder.partNumbers().stream().sorted().toList());
    assertTrue(recorder.parts.stream().map(PartRecorder.SentPart::thread).distinct().count() > 1, "several threads");
    assertStored(stored);
  }

  @Test
  void partConcurrencyOneSendsThePartsInOrderOnTheCallingThread() throws Exception {
    StoredObjectInfo stored = sink(1).put(KEY, TestContent.of(file), false);

    assertEquals(IntStream.rangeClosed(1, PARTS).boxed().toList(), recorder.partNumbers());
    assertEquals(List.of(Thread.currentThread().getName()),
        recorder.parts.stream().map(PartRecorder.SentPart::thread).distinct().toList());
    assertEquals(1, recorder.maxInFlight());
    assertStored(stored);
  }

  @Test
  void aFailingPartStopsNewPartsAndLetsTheRunningOnesEndWithoutInterruptingAReader() throws Exception {
    recorder.holdUntilInFlight(4);
    rig.proxy().inject(Fault.INTERNAL_ERROR, r -> r.isUpload() && r.target().contains("partNumber=2&"));

    try (ChannelContent content = ChannelContent.of(file)) {
      S3ObjectSink throughProxy = S3ObjectSink.builder().client(clients.throughProxy()).bucket(bucket)
          .multipartThreshold(PART).partSize(PART).partConcurrency(4).build();
      SinkException e = assertThrows(SinkException.class, () -> throughProxy.put(KEY, content, false));

      assertTrue(e.isRetryable() && e.getMessage().contains("HTTP 500"), e.getMessage());
      assertTrue(content.isOpen(), "the parts still running were not interrupted");
    }
    List<Integer> started = recorder.partNumbers().stream().sorted().toList();
    assertTrue(started.containsAll(List.of(1, 2, 3, 4)) && started.size() < PARTS, "stopped early: " + started);
    String uploadId = recorder.parts.get(0).uploadId();
    List<Integer> stored = rig.direct().listPartsPaginator(b -> b.bucket(bucket).key(KEY).uploadId(uploadId)).parts()
        .stream().map(Part::partNumber).sorted().toList();
    assertEquals(started.stream().filter(n -> n != 2).toList(), stored,
        "every part started but the failing one ended and is stored");
    assertEquals(List.of(), recorder.aborted, "left for the next attempt");
  }

  @Test
  void theDigestPassOnSeveralLanesGivesTheChecksumOfOneLane() throws Exception {
    StoredObjectInfo parallel = sink(4).put(KEY, TestContent.of(file), false);
    StoredObjectInfo sequential = sink(1).put("b1/1080p/original/0000000002.ts", TestContent.of(file), false);

    assertEquals(TestContent.sha256(Files.newInputStream(file)), parallel.checksum());
    assertEquals(parallel.checksum(), sequential.checksum());
  }

  private S3ObjectSink sink(int partConcurrency) {
    return S3ObjectSink.builder().client(clients.direct()).bucket(bucket).multipartThreshold(PART).partSize(PART)
        .partConcurrency(partConcurrency).build();
  }

  private void assertStored(StoredObjectInfo stored) throws Exception {
    String expected = TestContent.sha256(Files.newInputStream(file));
    assertEquals(new StoredObjectInfo(KEY, SIZE, expected), stored);
    assertEquals(Optional.of(stored), S3ObjectSink.builder().client(rig.direct()).bucket(bucket).build().head(KEY));
    assertEquals(expected, TestContent.sha256(rig.direct().getObject(b -> b.bucket(bucket).key(KEY))));
  }

  private static void assertIncreasingToTheSize(List<Long> reported, int parts) {
    assertEquals(parts, reported.size(), "one report per part: " + reported);
    for (int i = 1; i < reported.size(); i++) {
      assertTrue(reported.get(i) > reported.get(i - 1), "strictly increasing: " + reported);
    }
    assertEquals(SIZE, reported.get(reported.size() - 1));
  }
}
