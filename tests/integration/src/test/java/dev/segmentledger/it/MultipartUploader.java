package dev.segmentledger.it;

import dev.segmentledger.core.Axis;
import dev.segmentledger.core.ItemId;
import dev.segmentledger.core.Ledger;
import dev.segmentledger.jdbi.JdbiStateStore;
import dev.segmentledger.s3.ExternalS3;
import dev.segmentledger.s3.S3ObjectSink;
import dev.segmentledger.s3.S3ProxyServer;
import dev.segmentledger.testkit.FakeRepackager;
import dev.segmentledger.testkit.LedgerEvents;
import dev.segmentledger.testkit.crash.CrashHooks;
import dev.segmentledger.testkit.crash.CrashMode;
import dev.segmentledger.testkit.crash.CrashPoint;
import java.net.URI;
import java.nio.file.Path;
import java.time.Duration;
import java.util.concurrent.CountDownLatch;
import org.jdbi.v3.core.Jdbi;
import software.amazon.awssdk.services.s3.S3Client;

/**
 * An uploader process for the multipart crash test: registers one large recorded file and uploads
 * it to S3 (S3Proxy in the parent JVM) in 5 MiB parts, one at a time, with {@link
 * CrashPoint#DURING_PUT_BODY} armed on the second pass over the middle of its bytes, which is the
 * upload of the part that crosses it (the first pass is the sink's digest read): it dies with the
 * parts before that one stored. (With parts sent in parallel the part that crosses the middle
 * starts together with the first ones and the kill would come before any part is stored.) Run in a
 * child JVM; it prints the crash marker and parks until the parent kills it with SIGKILL.
 *
 * <p>Arguments: jdbcUrl user password root s3Endpoint bucket broadcast file [server] (the database's
 * three: {@link ChildDatabase}); server {@code external} signs with the keys of the external endpoint
 * the environment names ({@link ExternalS3}, inherited from the parent under {@code -Prgw}), anything
 * else or nothing with S3Proxy's.
 */
public final class MultipartUploader {
  static final long PART = 5L * 1024 * 1024;

  private MultipartUploader() {}

  public static void main(String[] args) throws Exception {
    Jdbi jdbi = ChildDatabase.unpooled(args);
    Path root = Path.of(args[3]);
    URI endpoint = URI.create(args[4]);
    S3Client client = args.length > 8 && args[8].equals("external")
        ? ExternalS3.fromEnvironment().clientTo(endpoint, Duration.ofSeconds(60))
        : S3ProxyServer.client(endpoint, Duration.ofSeconds(60));
    CrashHooks hooks = new CrashHooks(CrashPoint.DURING_PUT_BODY, Axis.ORIGINAL, 2, CrashMode.SIGKILL_FROM_PARENT);
    JdbiStateStore store = JdbiStateStore.create(jdbi);
    try (Ledger ledger = Wiring.ledger(store, hooks.wrap(sink(client, args[5], 1)), root, new FakeRepackager(),
        new LedgerEvents()).build()) {
      ledger.start();
      ledger.register(item(args[6]), Path.of(args[7]));
      new CountDownLatch(1).await(); // until killed
    }
  }

  /** The S3 sink of both uploaders: multipart from 5 MiB, in 5 MiB parts, that many at once. */
  static S3ObjectSink sink(S3Client client, String bucket, int partConcurrency) {
    return S3ObjectSink.builder().client(client).bucket(bucket).multipartThreshold(PART).partSize(PART)
        .partConcurrency(partConcurrency).build();
  }

  /** The one large item of the test. */
  static ItemId item(String broadcast) {
    return ItemId.original(broadcast, "1080p", 1);
  }
}
