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
import dev.segmentledger.rig.FaultProxy.Fault;
import dev.segmentledger.rig.FaultProxy.Request;
import dev.segmentledger.rig.FaultProxy;
import dev.segmentledger.s3.S3FaultRig;
import dev.segmentledger.s3.S3ObjectSink;
import dev.segmentledger.testkit.ConsistencyAssertions;
import dev.segmentledger.testkit.FakeRepackager;
import dev.segmentledger.testkit.LedgerEvents;
import dev.segmentledger.testkit.PostgresExtension;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.stream.IntStream;
import java.util.stream.Stream;
import org.jdbi.v3.core.Jdbi;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Each wire fault of {@link FaultProxy} (500, 503 SlowDown, a stalled reply that the client's
 * timeout ends, a connection reset mid-body, a lost acknowledgement) end to end through the
 * ledger: real PostgreSQL, the S3 sink on S3Proxy behind the relay, a started three-axis ledger.
 * The fault hits the first upload of one original; the row stays unconfirmed (PENDING, the failure
 * recorded) until a later attempt confirms it; nothing is lost; the object at the key holds the
 * registered bytes; the consistency check holds. Five runs per fault.
 */
@Tag("long") // an end-to-end scenario of 20 s or more: the long profile runs it (tests/README.md)
class LedgerThroughS3FaultsTest {
  @RegisterExtension static final PostgresExtension PG = PostgresExtension.create();
  private static final Duration CONVERGE = Duration.ofSeconds(30);
  private static final int SEGMENTS = 3;
  private static JdbiStateStore store;
  @RegisterExtension static final S3FaultRig rig = S3FaultRig.inMemory(Duration.ofSeconds(1));

  @TempDir Path temp;
  private Path root;
  private String bucket;
  private final LedgerEvents events = new LedgerEvents();
  private final List<String> history = new CopyOnWriteArrayList<>();

  @BeforeAll
  static void start() throws Exception {
    store = JdbiStateStore.create(Jdbi.create(PG.dataSource())).migrate();
  }

  @BeforeEach
  void setUp() throws Exception {
    root = Files.createDirectories(temp.resolve("root")).toRealPath();
    bucket = rig.freshBucket();
  }

  static Stream<Arguments> faultsFiveRunsEach() {
    return Arrays.stream(Fault.values()).flatMap(f -> IntStream.rangeClosed(1, 5).mapToObj(run -> Arguments.of(f, run)));
  }

  @ParameterizedTest(name = "{0}, run {1}")
  @MethodSource("faultsFiveRunsEach")
  void aFaultedUploadStaysUnconfirmedUntilALaterAttemptConfirmsIt(Fault fault, int run) throws Exception {
    String b = fault.name().toLowerCase().replace('_', '-') + "-run" + run + "-" + Long.toString(System.nanoTime(), 36);
    ItemId faulted = ItemId.original(b, "720p", 1);
    String faultedKey = faulted.objectKey();
    rig.proxy().inject(fault, r -> r.isUpload() && r.target().contains(faultedKey));
    S3ObjectSink sink = S3ObjectSink.builder().client(rig.throughProxy()).bucket(bucket).build();

    // Items only: see ReconcileOnS3Test for why playlists are off here.
    try (Ledger ledger = Wiring.ledger(store, sink, root, new FakeRepackager(), events).publishPlaylists(false)
        .listener(historyOf(faulted)).build()) {
      ledger.start();
      for (int i = 0; i < SEGMENTS; i++) {
        ItemId id = ItemId.original(b, "720p", i);
        ledger.register(id, Wiring.record(root, id));
      }
      events.awaitUntil(b + " fully confirmed", () -> {
        List<LedgerItem> rows = store.findByBroadcast(b);
        return rows.size() == 2 * SEGMENTS + 1 && rows.stream().allMatch(r -> r.state() == ItemState.CONFIRMED);
      }, CONVERGE);
    }

    assertTrue(history.size() >= 2, history::toString);
    assertEquals("failed SINK_TRANSIENT, row PENDING", history.get(0), () -> "the faulted attempt: " + history);
    assertEquals("confirmed", history.get(history.size() - 1), history::toString);
    assertEquals(1, history.stream().filter("confirmed"::equals).count(), history::toString);
    LedgerItem row = store.find(faulted).orElseThrow();
    assertTrue(row.attempts() >= 1, "the failed attempt is recorded on the row: " + row);
    assertEquals(Reason.SINK_TRANSIENT, row.reason());

    for (LedgerItem each : store.findByBroadcast(b)) {
      RegisteredBytes.assertObjectHolds(each,
          rig.direct().getObjectAsBytes(r -> r.bucket(bucket).key(each.objectKey())).asByteArray());
    }
    List<Request> uploads = rig.proxy().requests().stream().filter(r -> r.isUpload() && r.target().contains(faultedKey))
        .toList();
    if (fault == Fault.LOST_ACKNOWLEDGEMENT) {
      assertEquals(1, uploads.size(), "the lost attempt stored the object; the retry's HEAD found it identical: "
          + uploads);
    } else {
      assertTrue(uploads.size() >= 2, "the retry uploaded again: " + uploads);
    }
    ConsistencyAssertions.assertConsistent(store, S3ObjectSink.builder().client(rig.direct()).bucket(bucket).build(), b);
  }

  /** Records, in order, the failures (with the row's state right after each) and confirms of one item. */
  private LedgerListener historyOf(ItemId id) {
    return new LedgerListener() {
      @Override
      public void onFailed(LedgerItem item, Reason reason, String detail, boolean terminal) {
        if (item.id().equals(id)) {
          ItemState now = store.find(id).map(LedgerItem::state).orElse(null);
          history.add("failed " + reason + (terminal ? " (terminal)" : "") + ", row " + now);
        }
      }

      @Override
      public void onConfirmed(LedgerItem item) {
        if (item.id().equals(id)) {
          history.add("confirmed");
        }
      }
    };
  }
}
