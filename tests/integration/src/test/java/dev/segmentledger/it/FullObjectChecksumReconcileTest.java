package dev.segmentledger.it;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.segmentledger.core.Axis;
import dev.segmentledger.core.Checksums;
import dev.segmentledger.core.ItemId;
import dev.segmentledger.core.ItemState;
import dev.segmentledger.core.Ledger;
import dev.segmentledger.core.LedgerItem;
import dev.segmentledger.core.Reason;
import dev.segmentledger.core.ReconciliationReport;
import dev.segmentledger.core.ReconciliationReport.Difference;
import dev.segmentledger.core.ReconciliationReport.Kind;
import dev.segmentledger.jdbi.JdbiStateStore;
import dev.segmentledger.s3.Integrity;
import dev.segmentledger.s3.KeptChecksums;
import dev.segmentledger.s3.S3ObjectSink;
import dev.segmentledger.s3.S3ProxyServer;
import dev.segmentledger.testkit.ConsistencyAssertions;
import dev.segmentledger.testkit.FakeRepackager;
import dev.segmentledger.testkit.LedgerEvents;
import dev.segmentledger.testkit.PostgresExtension;
import java.nio.ByteBuffer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Base64;
import java.util.List;
import java.util.Map;
import java.util.zip.CRC32C;
import org.jdbi.v3.core.Jdbi;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;
import software.amazon.awssdk.core.sync.RequestBody;
import software.amazon.awssdk.services.s3.S3Client;

/**
 * The full-object checksum end to end, on PostgreSQL and the S3 sink with {@link
 * Integrity#CHECKSUMS}: each confirmed row records the object's CRC32C beside its SHA-256, and the
 * reconciler reports an object whose CRC32C in the bucket differs from the recorded one although
 * its size and SHA-256 metadata are the row's (other bytes written under copied metadata), re-opens
 * its row, and the ledger uploads it again. The server is S3Proxy answering as AWS S3 does ({@link
 * KeptChecksums}): neither S3Proxy nor Ceph RGW 16.2 keeps a CRC32C to report.
 */
class FullObjectChecksumReconcileTest {
  @RegisterExtension static final PostgresExtension PG = PostgresExtension.create();
  private static final Duration CONVERGE = Duration.ofSeconds(30);
  private static JdbiStateStore store;
  private static S3ProxyServer server;
  private static S3Client s3;

  @TempDir Path temp;
  private final LedgerEvents events = new LedgerEvents();

  @BeforeAll
  static void start() throws Exception {
    store = JdbiStateStore.create(Jdbi.create(PG.dataSource())).migrate();
    server = S3ProxyServer.startIgnoringUnknownHeaders();
    s3 = server.clientTo(server.endpoint(), Duration.ofSeconds(30), new KeptChecksums());
  }

  @AfterAll
  static void stop() throws Exception {
    s3.close();
    server.close();
  }

  @Test
  void anObjectWhoseCrc32cDiffersUnderItsOwnSha256IsReportedAndUploadedAgain() throws Exception {
    Path root = Files.createDirectories(temp.resolve("root")).toRealPath();
    String bucket = server.createBucket(s3);
    S3ObjectSink sink = S3ObjectSink.builder().client(s3).bucket(bucket).integrity(Integrity.CHECKSUMS).build();
    String b = "crc-" + Long.toString(System.nanoTime(), 36);
    ItemId replaced = ItemId.original(b, "720p", 1);
    try (Ledger ledger = Wiring.ledger(store, sink, root, new FakeRepackager(), events).publishPlaylists(false)
        .build()) {
      ledger.start();
      for (int i = 0; i < 2; i++) {
        ItemId id = ItemId.original(b, "720p", i);
        ledger.register(id, Wiring.record(root, id));
      }
      awaitAllConfirmed(b, 5);
      for (LedgerItem row : store.findByBroadcast(b)) {
        assertTrue(Checksums.valueOf(row.checksum(), "crc32c").isPresent(), "recorded: " + row);
      }
      LedgerItem row = store.find(replaced).orElseThrow();
      byte[] other = s3.getObjectAsBytes(r -> r.bucket(bucket).key(replaced.objectKey())).asByteArray();
      other[0] ^= 1;
      String copiedSha256 = "sha256:" + Checksums.valueOf(row.checksum(), "sha256").orElseThrow();
      s3.putObject(r -> r.bucket(bucket).key(replaced.objectKey()).checksumCRC32C(crc32c(other))
          .metadata(Map.of(S3ObjectSink.CHECKSUM_METADATA, copiedSha256)), RequestBody.fromBytes(other));

      ReconciliationReport repair = ledger.reconcileAndRepair(b);

      List<Difference> mismatched = repair.axis(Axis.ORIGINAL).mismatched();
      assertEquals(List.of(Kind.CHECKSUM_MISMATCH), mismatched.stream().map(Difference::kind).toList(),
          repair::describe);
      assertEquals(replaced.objectKey(), mismatched.get(0).key());
      assertEquals(1, repair.reopened(), repair::describe);
      awaitAllConfirmed(b, 5);
      LedgerItem again = store.find(replaced).orElseThrow();
      assertEquals(Reason.OBJECT_MISMATCH, again.reason());
      assertEquals(row.checksum(), again.checksum());
    }
    RegisteredBytes.assertObjectHolds(store.find(replaced).orElseThrow(),
        s3.getObjectAsBytes(r -> r.bucket(bucket).key(replaced.objectKey())).asByteArray());
    ConsistencyAssertions.assertConsistent(store, sink, b);
  }

  private void awaitAllConfirmed(String b, int rows) throws InterruptedException {
    events.awaitUntil(b + ": " + rows + " rows confirmed", () -> {
      List<LedgerItem> all = store.findByBroadcast(b);
      return all.size() == rows && all.stream().allMatch(row -> row.state() == ItemState.CONFIRMED);
    }, CONVERGE);
  }

  private static String crc32c(byte[] data) {
    CRC32C crc = new CRC32C();
    crc.update(data, 0, data.length);
    return Base64.getEncoder().encodeToString(ByteBuffer.allocate(4).putInt((int) crc.getValue()).array());
  }
}
