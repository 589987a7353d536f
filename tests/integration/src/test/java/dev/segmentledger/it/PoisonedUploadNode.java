package dev.segmentledger.it;

import dev.segmentledger.core.Ledger;
import dev.segmentledger.core.spi.ObjectSink;
import dev.segmentledger.jdbi.JdbiStateStore;
import dev.segmentledger.s3.S3ObjectSink;
import dev.segmentledger.s3.S3ProxyServer;
import dev.segmentledger.testkit.ForwardingObjectSink;
import java.net.URI;
import java.time.Duration;
import java.util.concurrent.CountDownLatch;
import org.jdbi.v3.core.Jdbi;
import software.amazon.awssdk.services.s3.S3Client;

/**
 * An {@link UploadNode} with one poisonous item: the process halts (exit 137, as if the kernel
 * killed it) as soon as it starts to upload the object {@code poisonKey}, every time. Run in a child
 * JVM by {@code ExternalCrashLoopTest}; prints {@code STARTED <nodeId>} once its ledger started.
 *
 * <p>Arguments: jdbcUrl user password allowedRoot s3Endpoint bucket nodeId leaseMillis workers
 * poisonKey (the database's three: {@link ChildDatabase}).
 */
public final class PoisonedUploadNode {
  static final int POISON_EXIT = 137;

  private PoisonedUploadNode() {}

  public static void main(String[] args) throws Exception {
    JdbiStateStore store = JdbiStateStore.create(Jdbi.create(ChildDatabase.pool(args, 8)));
    S3Client client = S3ProxyServer.client(URI.create(args[4]), Duration.ofSeconds(60));
    String poisonKey = args[9];
    ObjectSink sink = ForwardingObjectSink.beforeEachPut(S3ObjectSink.builder().client(client).bucket(args[5])
        .multipartThreshold(16 * 1024 * 1024).partSize(UploadNode.PART).build(), (key, content) -> {
          if (key.equals(poisonKey)) {
            System.out.println("POISON " + key);
            Runtime.getRuntime().halt(POISON_EXIT); // what processing this item does to its process
          }
        });
    Ledger ledger = UploadNode.ledger(args, store, sink);
    ledger.start();
    System.out.println("STARTED " + args[6]);
    new CountDownLatch(1).await(); // runs until killed, or poisoned
  }
}
