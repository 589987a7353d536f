package dev.segmentledger.it;

import dev.segmentledger.core.Ledger;
import dev.segmentledger.core.LedgerItem;
import dev.segmentledger.core.LedgerListener;
import dev.segmentledger.core.spi.ObjectSink;
import dev.segmentledger.core.spi.StateStore;
import dev.segmentledger.jdbi.JdbiStateStore;
import dev.segmentledger.testkit.DirectoryObjectSink;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Set;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.atomic.AtomicInteger;
import org.jdbi.v3.core.Jdbi;

/**
 * One ledger instance of the cluster test, in a JVM of its own: sweeps the shared PostgreSQL
 * ledger and uploads to the shared directory bucket until it is killed. Prints
 * {@code STARTED <nodeId>}, then {@code CONFIRMED <n>} when it has confirmed {@code n} items, for
 * each of the two report counts.
 *
 * <p>Arguments: jdbcUrl user password allowedRoot bucket putLog nodeId leaseMillis workers
 * report1 report2 (the database's three: {@link ChildDatabase}).
 */
public final class ClusterNode {
  /** Connections per node: one per worker, the sweeper, and spare. */
  static final int POOL = 8;

  private ClusterNode() {}

  public static void main(String[] args) throws Exception {
    Jdbi jdbi = Jdbi.create(ChildDatabase.pool(args, POOL));
    StateStore store = JdbiStateStore.create(jdbi);
    ObjectSink sink = new PutLog(new DirectoryObjectSink(Path.of(args[4])), Path.of(args[5]));
    Set<Integer> reports = Set.of(Integer.parseInt(args[9]), Integer.parseInt(args[10]));
    AtomicInteger confirmed = new AtomicInteger();
    Ledger ledger = node(store, sink, Path.of(args[3]), args[6], Duration.ofMillis(Long.parseLong(args[7])),
        Integer.parseInt(args[8]), new LedgerListener() {
          @Override
          public void onConfirmed(LedgerItem item) {
            int n = confirmed.incrementAndGet();
            if (reports.contains(n)) {
              System.out.println("CONFIRMED " + n);
            }
          }
        });
    ledger.start();
    System.out.println("STARTED " + args[6]);
    new CountDownLatch(1).await(); // runs until killed
  }

  /** The wiring every node of the cluster test uses, in this JVM or a child. */
  static Ledger node(StateStore store, ObjectSink sink, Path root, String nodeId, Duration lease, int workers,
      LedgerListener listener) {
    return Ledger.builder()
        .stateStore(store)
        .objectSink(sink)
        .allowedRoot(root)
        .nodeId(nodeId)
        .leaseDuration(lease)
        .workers(workers)
        .queueCapacity(1_024)
        .sweepBatchSize(256)
        .sweepInterval(Duration.ofMillis(20))
        .backoff(Wiring.SHORT_BACKOFF)
        .listener(listener)
        .build();
  }
}
