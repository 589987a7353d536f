package dev.segmentledger.it;

import dev.segmentledger.core.ItemId;
import dev.segmentledger.core.Ledger;
import dev.segmentledger.core.LedgerBuilder;
import dev.segmentledger.core.spi.ObjectSink;
import dev.segmentledger.jdbi.JdbiStateStore;
import dev.segmentledger.testkit.DirectoryObjectSink;
import dev.segmentledger.testkit.ForwardingObjectSink;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.concurrent.CountDownLatch;
import org.jdbi.v3.core.Jdbi;

/**
 * One recorder host of {@link HostsWithLocalDisksTest}, in a JVM of its own: a ledger whose allowed
 * root is this host's "local disk" (a directory no other host's ledger may read) and whose storage
 * group is this host's, and a recorder that writes one small file into that root every
 * {@code intervalMillis} and registers it, {@code count} files from sequence {@code firstSequence}.
 * Each PUT takes {@code putMillis} more, and waits while the file {@code holdFile} exists (the test
 * holds a host's uploads so that a kill surely leaves it rows to upload, some of them leased).
 * Prints {@code STARTED <nodeId>}, {@code REGISTERED <n>} every 25 files and
 * {@code REGISTERED ALL} at the end, then keeps uploading until it is killed.
 *
 * <p>Arguments: jdbcUrl user password root bucket putLog nodeId group leaseMillis broadcast
 * firstSequence count intervalMillis putMillis holdFile (the database's three:
 * {@link ChildDatabase}; group {@code -} for none).
 */
public final class HostNode {
  static final String CONTENT = "host segment %010d\n";

  private HostNode() {}

  public static void main(String[] args) throws Exception {
    Path root = Path.of(args[3]);
    String group = "-".equals(args[7]) ? null : args[7];
    String broadcast = args[9];
    long first = Long.parseLong(args[10]);
    int count = Integer.parseInt(args[11]);
    long interval = Long.parseLong(args[12]);
    long putMillis = Long.parseLong(args[13]);
    Path hold = Path.of(args[14]);
    Jdbi jdbi = Jdbi.create(ChildDatabase.pool(args, ClusterNode.POOL));
    ObjectSink sink = new PutLog(slow(new DirectoryObjectSink(Path.of(args[4])), putMillis, hold), Path.of(args[5]));
    LedgerBuilder builder = Ledger.builder()
        .stateStore(JdbiStateStore.create(jdbi))
        .objectSink(sink)
        .allowedRoot(root)
        .nodeId(args[6])
        .leaseDuration(Duration.ofMillis(Long.parseLong(args[8])))
        .workers(2)
        .sweepInterval(Duration.ofMillis(50))
        .backoff(Wiring.SHORT_BACKOFF);
    if (group != null) {
      builder.storageGroup(group);
    }
    Ledger ledger = builder.build();
    ledger.start();
    System.out.println("STARTED " + args[6]);
    long t0 = System.nanoTime();
    Path dir = Files.createDirectories(root.resolve("rec"));
    for (int i = 1; i <= count; i++) {
      long sequence = first + i - 1;
      Path file = dir.resolve(sequence + ".ts");
      Files.writeString(file, String.format(CONTENT, sequence));
      ledger.register(ItemId.original(broadcast, "720p", sequence), file);
      if (i % 25 == 0) {
        System.out.printf("REGISTERED %d%n", i);
        System.err.printf("%s registered %d in %d ms%n", args[6], i, (System.nanoTime() - t0) / 1_000_000);
      }
      Thread.sleep(interval);
    }
    System.out.println("REGISTERED ALL");
    new CountDownLatch(1).await(); // uploads until killed
  }

  /** {@code sink} with every PUT {@code millis} slower, and waiting while {@code hold} exists. */
  private static ObjectSink slow(ObjectSink sink, long millis, Path hold) {
    return ForwardingObjectSink.beforeEachPut(sink, (key, content) -> {
      try {
        Thread.sleep(millis);
        while (Files.exists(hold)) {
          Thread.sleep(20);
        }
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
      }
    });
  }
}
