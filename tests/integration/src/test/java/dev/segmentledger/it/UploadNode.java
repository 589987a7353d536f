package dev.segmentledger.it;

import dev.segmentledger.core.Ledger;
import dev.segmentledger.core.LedgerBuilder;
import dev.segmentledger.core.spi.ObjectSink;
import dev.segmentledger.core.spi.StateStore;
import dev.segmentledger.jdbi.JdbiStateStore;
import dev.segmentledger.s3.S3ObjectSink;
import dev.segmentledger.s3.S3ProxyServer;
import dev.segmentledger.testkit.FakeRepackager;
import dev.segmentledger.testkit.FaultyStateStore;
import java.net.URI;
import java.nio.file.Path;
import java.time.Duration;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.jdbi.v3.core.Jdbi;
import software.amazon.awssdk.services.s3.S3Client;

/**
 * An uploading ledger instance in a JVM of its own, as a recorder host runs it, for the tests that
 * kill it: it sweeps the shared PostgreSQL ledger and uploads to S3 (S3Proxy in the parent JVM,
 * usually behind a fault proxy that counts the bytes sent) in 5 MiB parts, four at once, until it
 * is killed. Its supervisor restarts it under the same node id. Prints {@code STARTED <nodeId>}.
 *
 * <p>Arguments: jdbcUrl user password allowedRoot s3Endpoint bucket nodeId leaseMillis workers
 * [storeFailureRate [storageGroup localRetentionMillis]] (the database's three: {@link ChildDatabase}).
 * With a failure rate above 0, every call of its store fails at that rate ({@link FaultyStateStore}),
 * and it prints {@code FAULTS calls=C not_written=N unknown=U} once a second, the injected faults of
 * this life so far. With a storage group ({@code -} for none) and a local retention, the node is a
 * recorder host with a disk of its own: it repackages originals with the testkit's
 * {@link FakeRepackager} into {@code allowedRoot/playback}, deletes its produced files once they are
 * confirmed, and deletes originals {@code localRetentionMillis} after they and their derived rows
 * were confirmed ({@link LedgerBuilder#localRetention}); its deletions and refusals are logged.
 */
public final class UploadNode {
  static final long PART = 5L * 1024 * 1024;
  /** Where a node with a local retention has its produced files, below its allowed root. */
  static final String PLAYBACK_DIRECTORY = "playback";

  private UploadNode() {}

  public static void main(String[] args) throws Exception {
    JdbiStateStore database = JdbiStateStore.create(Jdbi.create(ChildDatabase.pool(args, 8)));
    FaultyStateStore faults = FaultyStateStore.wrap(database, args.length > 9 ? Double.parseDouble(args[9]) : 0);
    S3Client client = S3ProxyServer.client(URI.create(args[4]), Duration.ofSeconds(60));
    S3ObjectSink sink = S3ObjectSink.builder().client(client).bucket(args[5]).multipartThreshold(16 * 1024 * 1024)
        .partSize(PART).build();
    LedgerBuilder builder = builder(args, faults.store(), sink);
    if (args.length > 11) {
      Path root = Path.of(args[3]);
      if (!"-".equals(args[10])) {
        builder.storageGroup(args[10]);
      }
      builder.repackager(new FakeRepackager(Duration.ofSeconds(2)), root.resolve(PLAYBACK_DIRECTORY))
          .localRetention(Duration.ofMillis(Long.parseLong(args[11])));
    }
    Ledger ledger = builder.build();
    ledger.start();
    System.out.println("STARTED " + args[6]);
    if (args.length > 9 && Double.parseDouble(args[9]) > 0) {
      while (true) { // until killed
        TimeUnit.SECONDS.sleep(1);
        System.out.println("FAULTS calls=" + faults.calls() + " not_written=" + faults.notWritten() + " unknown="
            + faults.unknown());
      }
    }
    new CountDownLatch(1).await(); // runs until killed
  }

  /**
   * The ledger of an upload node from its command line (allowedRoot, nodeId, leaseMillis and workers
   * at the places the class comment gives), with fast sweeps and a short backoff.
   */
  static Ledger ledger(String[] args, StateStore store, ObjectSink sink) {
    return builder(args, store, sink).build();
  }

  private static LedgerBuilder builder(String[] args, StateStore store, ObjectSink sink) {
    return Ledger.builder()
        .stateStore(store)
        .objectSink(sink)
        .allowedRoot(Path.of(args[3]))
        .nodeId(args[6])
        .leaseDuration(Duration.ofMillis(Long.parseLong(args[7])))
        .workers(Integer.parseInt(args[8]))
        .sweepInterval(Duration.ofMillis(100))
        .backoff(Wiring.SHORT_BACKOFF);
  }
}
