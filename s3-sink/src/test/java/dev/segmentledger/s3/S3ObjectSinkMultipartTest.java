package dev.segmentledger.s3;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.segmentledger.core.StoredObjectInfo;
import dev.segmentledger.core.spi.SinkException;
import dev.segmentledger.testkit.FaultProxy;
import dev.segmentledger.testkit.FaultProxy.Fault;
import dev.segmentledger.testkit.FaultProxy.Request;
import java.io.InputStream;
import java.io.OutputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.DigestInputStream;
import java.security.MessageDigest;
import java.time.Duration;
import java.util.Base64;
import java.util.Optional;
import java.util.Random;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Multipart uploads against S3Proxy: a 64 MiB object, the mayExist skip, and the abort path. */
class S3ObjectSinkMultipartTest {
  private static final String KEY = "b1/1080p/original/0000000001.ts";
  private static final long MIB = 1024 * 1024;
  private static S3FaultRig rig;

  @TempDir Path dir;
  private String bucket;

  @BeforeAll
  static void start() throws Exception {
    rig = S3FaultRig.start(Duration.ofSeconds(60));
  }

  @AfterAll
  static void stop() throws Exception {
    rig.close();
  }

  @BeforeEach
  void freshBucket() {
    bucket = rig.server().createBucket(rig.direct());
    rig.proxy().clearRequests();
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
  void failedPartAbortsTheUploadAndReportsTheFailure() throws Exception {
    Path file = randomFile(12 * MIB);
    S3ObjectSink sink = S3ObjectSink.builder().client(rig.throughProxy()).bucket(bucket)
        .multipartThreshold(5 * MIB).partSize(5 * MIB).build();
    rig.proxy().inject(Fault.INTERNAL_ERROR, r -> r.isUpload() && r.target().contains("partNumber=2"));

    SinkException e = assertThrows(SinkException.class, () -> sink.put(KEY, TestContent.of(file), false));

    assertTrue(e.isRetryable() && e.getMessage().contains("HTTP 500 InternalError"), e.getMessage());
    assertTrue(rig.proxy().requests().stream().anyMatch(r -> r.method().equals("DELETE") && r.target().contains("uploadId=")),
        "AbortMultipartUpload sent: " + rig.proxy().requests());
    assertEquals(0, rig.direct().listMultipartUploads(b -> b.bucket(bucket)).uploads().size());
    assertEquals(Optional.empty(), sink.head(KEY));
  }

  @Test
  void failedAbortIsAttachedToTheOriginalFailure() throws Exception {
    Path file = randomFile(11 * MIB);
    S3ObjectSink sink = S3ObjectSink.builder().client(rig.throughProxy()).bucket(bucket)
        .multipartThreshold(5 * MIB).partSize(5 * MIB).build();
    rig.proxy().inject(Fault.SLOW_DOWN, r -> r.isUpload() && r.target().contains("partNumber=3"));
    rig.proxy().inject(Fault.INTERNAL_ERROR, r -> r.method().equals("DELETE"));

    SinkException e = assertThrows(SinkException.class, () -> sink.put(KEY, TestContent.of(file), false));

    assertTrue(e.getMessage().contains("503 SlowDown"), e.getMessage());
    assertEquals(1, e.getCause().getSuppressed().length, "the abort failure travels with the cause");
    assertEquals(1, rig.direct().listMultipartUploads(b -> b.bucket(bucket)).uploads().size(),
        "the abort failed: the upload is left for the bucket lifecycle rule");
  }

  private Path randomFile(long size) throws Exception {
    Path file = dir.resolve("segment-" + size + ".ts");
    Random random = new Random(size);
    byte[] chunk = new byte[(int) MIB];
    try (OutputStream out = Files.newOutputStream(file)) {
      for (long written = 0; written < size; written += chunk.length) {
        random.nextBytes(chunk);
        out.write(chunk, 0, (int) Math.min(chunk.length, size - written));
      }
    }
    return file;
  }

  private static String sha256(InputStream stream) throws Exception {
    MessageDigest digest = MessageDigest.getInstance("SHA-256");
    try (InputStream in = new DigestInputStream(stream, digest)) {
      in.transferTo(OutputStream.nullOutputStream());
    }
    return "sha256:" + Base64.getEncoder().encodeToString(digest.digest());
  }
}
