package dev.segmentledger.it;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.segmentledger.core.ItemState;
import dev.segmentledger.core.Ledger;
import dev.segmentledger.core.LedgerItem;
import dev.segmentledger.core.ObjectKeys;
import dev.segmentledger.core.Reconciler;
import dev.segmentledger.core.ReconciliationReport;
import dev.segmentledger.jdbi.JdbiStateStore;
import dev.segmentledger.rig.FaultProxy.Request;
import dev.segmentledger.rig.FaultProxy;
import dev.segmentledger.s3.S3ObjectSink;
import dev.segmentledger.s3.ExternalS3;
import dev.segmentledger.s3.S3TestServer;
import dev.segmentledger.testkit.ConsistencyAssertions;
import dev.segmentledger.testkit.FakeRepackager;
import dev.segmentledger.testkit.LedgerEvents;
import dev.segmentledger.testkit.PostgresExtension;
import dev.segmentledger.testkit.crash.ChildJvm;
import java.io.InputStream;
import java.io.OutputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.DigestInputStream;
import java.security.MessageDigest;
import java.time.Clock;
import java.time.Duration;
import java.util.HexFormat;
import java.util.List;
import java.util.Random;
import java.util.stream.Collectors;
import java.util.stream.IntStream;
import org.jdbi.v3.core.Jdbi;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;
import software.amazon.awssdk.services.s3.S3Client;
import software.amazon.awssdk.services.s3.model.MultipartUpload;
import software.amazon.awssdk.services.s3.model.Part;
import software.amazon.awssdk.services.s3.model.S3Object;

/**
 * SIGKILL in the middle of a multipart upload: S3Proxy runs in this JVM, the uploader in a child
 * JVM ({@link MultipartUploader}) uploading a 20 MiB file in 5 MiB parts, one at a time, killed
 * while the upload crosses the middle of the file (in part 3); its requests go through a {@link
 * FaultProxy} that records them. The restarted uploader sends parts 4 at once (the default).
 *
 * <p>With {@code -Prgw} the server is the external endpoint instead ({@link S3TestServer}; .ci/run
 * uses Ceph RGW), which, like S3, lists no unfinished upload as objects.
 *
 * <p>S3Proxy runs on its {@code filesystem} blobstore ({@code jclouds.provider=filesystem}), the
 * store of the independent crash runs. It implements the protocol the fix
 * relies on: ListMultipartUploads with {@code prefix} lists the killed upload, and
 * AbortMultipartUpload removes it. (An earlier version of this test said the transient store
 * answers these with 400; S3Proxy 2.9.0 answers them on both stores, as {@code S3ProxyServer}
 * says.) On this store an unfinished upload is also visible as stray objects in the bucket listing,
 * so "nothing left behind" can be checked on the listing itself.
 *
 * <p>Checked after the kill: the row is not CONFIRMED, no object exists at its key, exactly one
 * unfinished upload exists for the key and it is the one whose parts the proxy saw (neither
 * completed nor aborted), and the bucket listing holds stray objects outside the ledger's keys.
 * After a restarted uploader registers the file again and confirms it (its upload is a retry, so
 * the sink continues the killed upload): the retry sent exactly the parts the killed upload did not
 * hold, into that upload, and completed it; no unfinished upload is left in the bucket, the listing
 * holds exactly the objects of the confirmed rows, the object has the registered bytes (SHA-256),
 * the ledger and the bucket agree, and the reconciler lists no unfinished upload.
 */
class MultipartCrashTest {
  @RegisterExtension static final PostgresExtension PG = PostgresExtension.create();
  private static final int SIZE = 20 * 1024 * 1024 + 4_321;

  @TempDir Path temp;

  @Test
  void killedDuringAMultipartUploadNoConfirmedRowAndTheRetryCompletes() throws Exception {
    JdbiStateStore store = JdbiStateStore.create(Jdbi.create(PG.dataSource())).migrate();
    Path root = Files.createDirectories(temp.resolve("root")).toRealPath();
    Path file = randomFile(root.resolve("big.ts"));
    String broadcast = "mp-" + Long.toString(System.nanoTime(), 36);
    try (S3TestServer server = S3TestServer.startOnFilesystem(temp.resolve("s3"));
        FaultProxy proxy = FaultProxy.start(server.endpoint());
        S3Client client = server.clientTo(server.endpoint(), Duration.ofSeconds(60));
        S3Client proxied = server.clientTo(proxy.uri(), Duration.ofSeconds(60))) {
      String bucket = server.createBucket(client);
      String key = ObjectKeys.keyOf(MultipartUploader.item(broadcast));

      try (ChildJvm uploader = ChildJvm.start(MultipartUploader.class, ChildDatabase.args(PG, root.toString(),
          proxy.uri().toString(), bucket, broadcast, file.toString(), ExternalS3.selected() ? "external" : "s3proxy"))) {
        uploader.awaitCrashPoint(Duration.ofSeconds(90));
        uploader.killHard();
      }

      LedgerItem killed = store.findByBroadcast(broadcast).stream()
          .filter(row -> row.id().equals(MultipartUploader.item(broadcast))).findFirst().orElseThrow();
      assertNotEquals(ItemState.CONFIRMED, killed.state(), "no confirmed row for the killed upload");
      assertFalse(exists(client, bucket, key), "no object at the key before the retry");
      // The killed process's requests, as the proxy saw them: parts sent, neither completed nor aborted.
      // Only the item's own: the uploader repackages the file, and its PLAYBACK segment (as large) may
      // have been uploaded, multipart too, and completed before the kill.
      List<Request> requests = proxy.requests().stream().filter(r -> r.target().contains(key)).toList();
      String uploadId = requests.stream().filter(r -> r.method().equals("PUT") && r.target().contains("uploadId="))
          .map(r -> r.target().replaceAll(".*uploadId=([^&]+).*", "$1")).findFirst()
          .orElseThrow(() -> new AssertionError("no part was sent: " + requests));
      assertTrue(requests.stream().noneMatch(r -> !r.method().equals("PUT") && r.target().contains("uploadId=")),
          "neither completed nor aborted: " + requests);
      long partsSent = requests.stream().filter(r -> r.method().equals("PUT") && r.target().contains(uploadId))
          .count();
      assertEquals(List.of(uploadId), unfinishedUploadIds(client, bucket, key),
          "the killed upload is listed on the server, unfinished");
      List<String> ledgerKeys = store.findByBroadcast(broadcast).stream().map(LedgerItem::objectKey).toList();
      List<String> strays = objectKeys(client, bucket).stream().filter(k -> !ledgerKeys.contains(k))
          .filter(k -> !k.endsWith(".m3u8")) // the broadcast's playlists, published by the ledger
          .toList();
      if (ExternalS3.selected()) {
        assertEquals(List.of(), strays, "a server that keeps unfinished uploads apart, as S3 and RGW do, lists no part");
      } else {
        assertFalse(strays.isEmpty(), "S3Proxy's filesystem store shows the unfinished upload as objects");
        assertTrue(strays.stream().noneMatch(k -> k.startsWith(broadcast + "/")),
            "outside the broadcast's prefix, so the reconciler's listing never saw them: " + strays);
      }

      List<Integer> stored = client.listPartsPaginator(b -> b.bucket(bucket).key(key).uploadId(uploadId)).parts()
          .stream().map(Part::partNumber).sorted().toList();
      proxy.clearRequests();
      assertEquals(List.of(1, 2), stored, "killed in part 3, after parts 1 and 2 were stored");
      S3ObjectSink sink = MultipartUploader.sink(proxied, bucket, 4);
      LedgerEvents events = new LedgerEvents();
      try (Ledger restarted = Wiring.ledger(store, sink, root, new FakeRepackager(), events).build()) {
        restarted.start();
        restarted.register(MultipartUploader.item(broadcast), file);
        events.awaitUntil(broadcast + " confirmed", () -> store.findByBroadcast(broadcast).stream()
            .allMatch(row -> row.state() == ItemState.CONFIRMED), Duration.ofSeconds(90));
      }

      int parts = (int) ((SIZE + MultipartUploader.PART - 1) / MultipartUploader.PART);
      List<Request> retried = proxy.requests().stream().filter(r -> r.target().contains("/" + key + "?")).toList();
      List<Integer> resent = retried.stream().filter(r -> r.method().equals("PUT") && r.target().contains("partNumber="))
          .map(r -> Integer.valueOf(r.target().replaceAll(".*partNumber=(\\d+).*", "$1"))).sorted().toList();
      assertEquals(IntStream.rangeClosed(1, parts).boxed().filter(n -> !stored.contains(n)).toList(), resent,
          "the retry sent only the parts the killed upload did not hold (it held " + stored + "): " + retried);
      assertTrue(retried.stream().filter(r -> r.target().contains("partNumber=") || r.method().equals("POST"))
          .allMatch(r -> r.target().contains("uploadId=" + uploadId)), "into the killed upload: " + retried);

      assertEquals(List.of(), unfinishedUploadIds(client, bucket, key), "no unfinished upload for the key");
      assertEquals(List.of(), client.listMultipartUploads(b -> b.bucket(bucket)).uploads(), "none in the bucket");
      List<String> confirmed = store.findByBroadcast(broadcast).stream().map(LedgerItem::objectKey).sorted().toList();
      assertEquals(confirmed, objectKeys(client, bucket).stream().filter(k -> !k.endsWith(".m3u8")).toList(),
          "the listing holds exactly the confirmed objects (and the broadcast's playlists)");
      String expected = sha256(Files.newInputStream(file));
      assertEquals(expected, sha256(client.getObject(b -> b.bucket(bucket).key(key))), "the object's bytes");
      ConsistencyAssertions.assertConsistent(store, sink, broadcast);
      ReconciliationReport report = Reconciler.create(store, sink, Clock.systemUTC()).reconcile(broadcast);
      assertTrue(report.unfinishedUploadsListed() && report.unfinishedUploads().isEmpty(), report::describe);
      System.out.printf("multipart crash: killed after %d of %d part uploads started (upload %s left unfinished"
          + " with parts %s, %d stray objects); the retry sent parts %s into it, completed it and confirmed, SHA-256"
          + " %s%n", partsSent, parts, uploadId, stored, strays.size(), resent, expected);
    }
  }

  /** The ids of the unfinished uploads of exactly {@code key}, as the server lists them. */
  private static List<String> unfinishedUploadIds(S3Client client, String bucket, String key) {
    return client.listMultipartUploads(b -> b.bucket(bucket).prefix(key)).uploads().stream()
        .filter(u -> u.key().equals(key)).map(MultipartUpload::uploadId).toList();
  }

  /**
   * Every object key in the bucket, sorted, without the directory markers (keys ending in {@code /})
   * S3Proxy's filesystem store lists for its directories.
   */
  private static List<String> objectKeys(S3Client client, String bucket) {
    return client.listObjectsV2Paginator(b -> b.bucket(bucket)).contents().stream().map(S3Object::key)
        .filter(k -> !k.endsWith("/")).sorted().collect(Collectors.toList());
  }

  private static boolean exists(S3Client client, String bucket, String key) {
    return client.listObjectsV2(b -> b.bucket(bucket).prefix(key)).keyCount() > 0;
  }

  private static Path randomFile(Path file) throws Exception {
    byte[] chunk = new byte[1024 * 1024];
    Random random = new Random(42);
    try (OutputStream out = Files.newOutputStream(file)) {
      for (int left = SIZE; left > 0; left -= chunk.length) {
        random.nextBytes(chunk);
        out.write(chunk, 0, Math.min(left, chunk.length));
      }
    }
    return file;
  }

  private static String sha256(InputStream in) throws Exception {
    MessageDigest digest = MessageDigest.getInstance("SHA-256");
    try (DigestInputStream digesting = new DigestInputStream(in, digest)) {
      digesting.transferTo(OutputStream.nullOutputStream());
    }
    return HexFormat.of().formatHex(digest.digest());
  }
}
