package dev.segmentledger.it;

import dev.segmentledger.core.Axis;
import dev.segmentledger.core.Ledger;
import dev.segmentledger.core.LedgerBuilder;
import dev.segmentledger.core.LedgerListener;
import dev.segmentledger.core.spi.ObjectSink;
import dev.segmentledger.core.spi.Repackager;
import dev.segmentledger.core.spi.StateStore;
import dev.segmentledger.jdbi.JdbiStateStore;
import dev.segmentledger.s3.S3ObjectSink;
import dev.segmentledger.s3.S3ProxyServer;
import dev.segmentledger.testkit.FakeRepackager;
import dev.segmentledger.testkit.crash.CrashHooks;
import dev.segmentledger.testkit.crash.CrashMode;
import dev.segmentledger.testkit.crash.CrashPoint;
import java.net.URI;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.atomic.AtomicInteger;
import org.jdbi.v3.core.Jdbi;
import software.amazon.awssdk.services.s3.S3Client;

/**
 * One node of {@link PlaylistMonotonicityTest}, in a JVM of its own: a ledger with a (fake)
 * repackager, so that it uploads ORIGINAL, INIT and PLAYBACK rows and publishes playlists, on the
 * shared PostgreSQL ledger and the shared S3 bucket (S3Proxy's signed port), until it is killed.
 * Prints {@code STARTED <nodeId>}, and {@code PUBLISHED <n> <rendition|master> <entries> [final]}
 * at every 25th playlist publication of this process and at each final one.
 *
 * <p>Arguments: jdbcUrl user password allowedRoot s3Endpoint bucket nodeId leaseMillis crashPoint
 * crashOccurrence (the database's three: {@link ChildDatabase}; crashPoint {@code -} for none,
 * else a {@link CrashPoint} on the PLAYBACK axis at which the node halts itself at the given
 * occurrence).
 */
public final class PlaylistNode {
  static final int POOL = 6;
  static final int WORKERS = 3;
  static final Duration SEGMENT = Duration.ofSeconds(4);

  private PlaylistNode() {}

  public static void main(String[] args) throws Exception {
    Path root = Path.of(args[3]);
    String nodeId = args[6];
    Jdbi jdbi = Jdbi.create(ChildDatabase.pool(args, POOL));
    StateStore store = JdbiStateStore.create(jdbi);
    Duration lease = Duration.ofMillis(Long.parseLong(args[7]));
    // The publisher's fencing assumption (docs/design.md, "Playlists"): a playlist PUT, the sink's
    // HEAD and PUT attempts together (no retries here), completes within half the lease.
    S3Client s3 = S3ProxyServer.client(URI.create(args[4]), lease.dividedBy(2).minusMillis(100).dividedBy(2));
    ObjectSink sink = S3ObjectSink.builder().client(s3).bucket(args[5]).build();
    Repackager repackager = new FakeRepackager(SEGMENT);
    LedgerBuilder builder = Ledger.builder()
        .stateStore(store)
        .allowedRoot(root)
        .repackager(repackager, Files.createDirectories(root.resolve("playback").resolve(nodeId)))
        .nodeId(nodeId)
        .leaseDuration(lease)
        .workers(WORKERS)
        .queueCapacity(1_024)
        .sweepInterval(Duration.ofMillis(100))
        .backoff(Wiring.SHORT_BACKOFF)
        // The kill loop SIGKILLs a node every 1.5 to 3 s, often before a fresh JVM's first attempt
        // ends, and the oldest due row is every new node's first: in a 120 s soak on a slow machine
        // two rows reached the default limit of 5 abandoned attempts, one of them after its object
        // was stored (REPEATEDLY_ABANDONED, an orphan the reconciler reports, as designed). That
        // limit is AbandonedAttemptsTest's subject; here it would only end rows the test expects
        // to be confirmed.
        .maxAbandonedAttempts(Integer.MAX_VALUE)
        .listener(new LedgerListener() {
          private final AtomicInteger published = new AtomicInteger();

          @Override
          public void onPlaylistPublished(String broadcastId, String rendition, int entries, boolean complete) {
            int n = published.incrementAndGet();
            if (complete || n % 25 == 0) { // not every one: the parent echoes each line
              System.out.println("PUBLISHED " + n + " " + (rendition == null ? "master" : rendition) + " " + entries
                  + (complete ? " final" : ""));
            }
          }
        });
    if (!"-".equals(args[8])) {
      CrashHooks hooks = new CrashHooks(CrashPoint.valueOf(args[8]), Axis.PLAYBACK, Integer.parseInt(args[9]),
          CrashMode.HALT);
      sink = hooks.wrap(sink);
      builder.listener(hooks.listener());
    }
    Ledger ledger = builder.objectSink(sink).build();
    ledger.start();
    System.out.println("STARTED " + nodeId);
    new CountDownLatch(1).await(); // runs until killed
  }
}
