package dev.segmentledger.it;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.segmentledger.core.ItemId;
import dev.segmentledger.core.ItemState;
import dev.segmentledger.core.Ledger;
import dev.segmentledger.core.LedgerItem;
import dev.segmentledger.core.LedgerListener;
import dev.segmentledger.core.Reason;
import dev.segmentledger.jdbi.JdbiStateStore;
import dev.segmentledger.rig.FaultProxy;
import dev.segmentledger.s3.S3ObjectSink;
import dev.segmentledger.s3.S3ProxyServer;
import dev.segmentledger.testkit.LedgerEvents;
import dev.segmentledger.testkit.PostgresExtension;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.concurrent.atomic.AtomicInteger;
import org.jdbi.v3.core.Jdbi;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;
import software.amazon.awssdk.services.s3.S3Client;

/**
 * A stalled PUT on the real S3 protocol is cancelled by its own node and retried: the fault proxy
 * swallows the request and never answers (a server that stopped responding). The SDK waits for the
 * reply for up to its 60 s attempt timeout, but the ledger sees no progress for its 3 s stall
 * timeout, records {@code STALLED}, and retries the row at once on another worker; once the server
 * answers again the row is confirmed, long before the stuck request times out.
 */
@Tag("long") // an end-to-end scenario of 20 s or more: the long profile runs it (tests/README.md)
class StalledPutTest {
  @RegisterExtension static final PostgresExtension PG = PostgresExtension.create();

  @TempDir Path temp;

  @Test
  void aPutThatStallsIsCancelledByItsNodeAndRetriedBeforeTheClientTimesOut() throws Exception {
    JdbiStateStore store = JdbiStateStore.create(Jdbi.create(PG.dataSource())).migrate();
    Path root = Files.createDirectories(temp.resolve("root")).toRealPath();
    ItemId id = ItemId.original("stall-" + Long.toString(System.nanoTime(), 36), "720p", 0);
    Path file = Files.writeString(root.resolve("segment.ts"), "recorded bytes\n".repeat(10_000));
    AtomicInteger stalls = new AtomicInteger();
    LedgerEvents events = new LedgerEvents();
    try (S3ProxyServer server = S3ProxyServer.start();
        FaultProxy proxy = FaultProxy.start(server.endpoint());
        S3Client direct = S3ProxyServer.client(server.endpoint(), Duration.ofSeconds(60));
        S3Client client = S3ProxyServer.client(proxy.uri(), Duration.ofSeconds(60))) {
      String bucket = server.createBucket(direct);
      proxy.blackHole(true);
      long started = System.nanoTime();
      try (Ledger ledger = Ledger.builder().stateStore(store)
          .objectSink(S3ObjectSink.builder().client(client).bucket(bucket).build()).allowedRoot(root)
          .workers(2).leaseDuration(Duration.ofSeconds(2)).stallTimeout(Duration.ofSeconds(3))
          .shutdownTimeout(Duration.ofSeconds(1))
          .backoff(Wiring.SHORT_BACKOFF).sweepInterval(Duration.ofMillis(50)).listener(events)
          .listener(new LedgerListener() {
            @Override
            public void onFailed(LedgerItem item, Reason reason, String detail, boolean terminal) {
              if (reason == Reason.STALLED) {
                stalls.incrementAndGet();
              }
            }
          }).build()) {
        ledger.start();
        ledger.register(id, file);
        events.awaitUntil("the stalled PUT is cancelled", () -> stalls.get() > 0, Duration.ofSeconds(30));
        assertEquals(Reason.STALLED, store.find(id).orElseThrow().reason());
        proxy.blackHole(false);
        events.awaitUntil("the retried row is confirmed",
            () -> store.find(id).orElseThrow().state() == ItemState.CONFIRMED, Duration.ofSeconds(30));
      }
      Duration took = Duration.ofNanos(System.nanoTime() - started);
      assertTrue(took.compareTo(Duration.ofSeconds(45)) < 0, "cancelled and retried in " + took
          + ", not after the client's 60 s timeout");
      assertTrue(direct.headObject(b -> b.bucket(bucket).key(id.objectKey())).contentLength() > 0);
    }
  }
}
