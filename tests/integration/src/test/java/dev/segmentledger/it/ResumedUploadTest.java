package dev.segmentledger.it;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.segmentledger.core.ItemId;
import dev.segmentledger.core.ItemState;
import dev.segmentledger.core.Ledger;
import dev.segmentledger.core.LedgerItem;
import dev.segmentledger.core.ManualLedger;
import dev.segmentledger.core.Sha256Checksum;
import dev.segmentledger.core.StoredObjectInfo;
import dev.segmentledger.jdbi.JdbiStateStore;
import dev.segmentledger.rig.FaultProxy;
import dev.segmentledger.s3.S3ObjectSink;
import dev.segmentledger.s3.S3ProxyServer;
import dev.segmentledger.testkit.LedgerEvents;
import dev.segmentledger.testkit.PostgresExtension;
import dev.segmentledger.testkit.crash.ChildJvm;
import java.io.InputStream;
import java.io.OutputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.DigestInputStream;
import java.security.MessageDigest;
import java.time.Duration;
import java.util.List;
import java.util.SplittableRandom;
import java.util.concurrent.atomic.AtomicLong;
import org.jdbi.v3.core.Jdbi;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;
import software.amazon.awssdk.services.s3.S3Client;

/**
 * A killed multipart upload resumes instead of starting again from byte zero: one 1 GiB original is
 * uploaded by a recorder host ({@link UploadNode}, a JVM of its own) that is SIGKILLed three times,
 * at about a quarter, a half and three quarters of the bytes sent; each restart continues the
 * unfinished upload (the parts stored are verified and kept) and the last one completes it. The
 * bytes sent over the whole run, counted on the wire by a relay (each request's announced length,
 * so a part cut short by a kill counts whole), stay close to the file's size; the object is
 * complete and right, and nothing is left unfinished. {@code -Dsegmentledger.resume.mib=N} sets
 * the size (default 1024).
 */
@Tag("long") // an end-to-end scenario of 20 s or more: the long profile runs it (tests/README.md)
class ResumedUploadTest {
  @RegisterExtension static final PostgresExtension PG = PostgresExtension.create();
  private static final long MIB = 1024 * 1024;

  @TempDir Path temp;

  @Test
  void aOneGibOriginalKilledThreeTimesMidUploadCompletesSendingLittleMoreThanItsSize() throws Exception {
    long size = Long.getLong("segmentledger.resume.mib", 1024) * MIB;
    JdbiStateStore store = JdbiStateStore.create(Jdbi.create(PG.dataSource())).migrate();
    Path root = Files.createDirectories(temp.resolve("root")).toRealPath();
    Path file = root.resolve("original.ts");
    RandomFiles.write(file, size, new SplittableRandom(1));
    ItemId id = ItemId.original("resume-" + Long.toString(System.nanoTime(), 36), "2160p", 0);
    AtomicLong sent = new AtomicLong();
    try (S3ProxyServer server = S3ProxyServer.startOnFilesystem(temp.resolve("s3"));
        FaultProxy proxy = FaultProxy.start(server.endpoint());
        S3Client client = S3ProxyServer.client(server.endpoint(), Duration.ofSeconds(60))) {
      String bucket = server.createBucket(client);
      S3ObjectSink sink = S3ObjectSink.builder().client(client).bucket(bucket).build();
      try (ManualLedger registrar = Ledger.builder().stateStore(store).objectSink(sink).allowedRoot(root)
          .nodeId("registrar").leaseDuration(Duration.ofSeconds(1)).buildManual()) {
        registrar.register(id, file);
      }
      proxy.onRequest(request -> {
        if (request.isUpload()) {
          sent.addAndGet(request.contentLength());
        }
      }, false);
      List<String> args = ChildDatabase.args(PG, root.toString(), proxy.uri().toString(), bucket, "host-1", "3000",
          "2");
      LedgerEvents waits = new LedgerEvents();
      for (int kill = 1; kill <= 3; kill++) {
        long killAt = size * kill / 4;
        try (ChildJvm life = ChildJvm.start(UploadNode.class, args)) {
          waits.awaitUntil(killAt + " bytes sent", () -> sent.get() >= killAt, Duration.ofMinutes(3));
          life.killHard();
        }
        assertEquals(ItemState.PENDING, store.find(id).orElseThrow().state(), "killed before its confirm");
      }
      try (ChildJvm last = ChildJvm.start(UploadNode.class, args)) {
        waits.awaitUntil("the original is confirmed", () -> store.find(id).orElseThrow().state() == ItemState.CONFIRMED,
            Duration.ofMinutes(5));
      }

      LedgerItem row = store.find(id).orElseThrow();
      StoredObjectInfo stored = sink.head(id.objectKey()).orElseThrow();
      double ratio = (double) sent.get() / size;
      System.out.printf("RESUMED-UPLOAD size_mib=%d kills=3 bytes_sent_per_byte=%.3f attempts=%d%n", size / MIB, ratio,
          row.attempts());
      assertEquals(size, stored.sizeBytes());
      assertEquals(sha256(file), stored.checksum(), "the object is the file, byte for byte");
      assertEquals(row.checksum(), stored.checksum());
      assertEquals(0, client.listMultipartUploads(b -> b.bucket(bucket)).uploads().size(), "nothing left unfinished");
      assertTrue(ratio < 1.5, "resumed, not sent again from zero: " + ratio + " bytes sent per byte");
    }
  }

  private static String sha256(Path file) throws Exception {
    MessageDigest digest = MessageDigest.getInstance("SHA-256");
    try (InputStream in = new DigestInputStream(Files.newInputStream(file), digest)) {
      in.transferTo(OutputStream.nullOutputStream());
    }
    return Sha256Checksum.of(digest.digest());
  }
}
