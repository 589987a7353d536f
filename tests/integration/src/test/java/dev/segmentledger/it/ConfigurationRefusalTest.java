package dev.segmentledger.it;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import ch.qos.logback.classic.Level;
import ch.qos.logback.classic.Logger;
import ch.qos.logback.classic.spi.ILoggingEvent;
import ch.qos.logback.core.read.ListAppender;
import dev.segmentledger.core.CircuitState;
import dev.segmentledger.core.ItemId;
import dev.segmentledger.core.ItemState;
import dev.segmentledger.core.Ledger;
import dev.segmentledger.core.LedgerItem;
import dev.segmentledger.core.LedgerListener;
import dev.segmentledger.core.Reason;
import dev.segmentledger.core.spi.ObjectSink;
import dev.segmentledger.jdbi.JdbiStateStore;
import dev.segmentledger.s3.S3FaultRig;
import dev.segmentledger.s3.S3ObjectSink;
import dev.segmentledger.s3.S3ProxyServer;
import dev.segmentledger.testkit.ConsistencyAssertions;
import dev.segmentledger.testkit.FakeRepackager;
import dev.segmentledger.testkit.ForwardingObjectSink;
import dev.segmentledger.testkit.LedgerEvents;
import dev.segmentledger.testkit.PostgresExtension;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicReference;
import org.jdbi.v3.core.Jdbi;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;
import org.slf4j.LoggerFactory;
import software.amazon.awssdk.auth.credentials.AwsBasicCredentials;
import software.amazon.awssdk.auth.credentials.StaticCredentialsProvider;
import software.amazon.awssdk.awscore.retry.AwsRetryStrategy;
import software.amazon.awssdk.core.checksums.RequestChecksumCalculation;
import software.amazon.awssdk.core.checksums.ResponseChecksumValidation;
import software.amazon.awssdk.regions.Region;
import software.amazon.awssdk.services.s3.S3Client;

/**
 * Refusals of the sink's configuration, not of the items, end to
 * end: real PostgreSQL, S3Proxy with SigV4, a started three-axis ledger. A wrong secret
 * ({@code SignatureDoesNotMatch}), an unknown access key ({@code InvalidAccessKeyId}), a missing
 * bucket ({@code NoSuchBucket}) and a policy refusal ({@code AccessDenied}; S3Proxy has no bucket
 * policies, so the test rig's {@code FaultProxy} answers every request 403 AccessDenied, as a policy
 * would). Each time: no row is rejected, the breaker opens with the cause, the rows wait, the cause
 * is logged once per opening (not per row); once the configuration is fixed (the sink's client
 * swapped, the bucket created, the policy lifted) every row is confirmed.
 *
 * <p>S3Proxy answers a bad signature or an unknown key before reading the request body and closes
 * the connection, so a client still sending a body now and then sees a broken pipe instead of the
 * refusal: a transient failure (outcome unknown), which leaves the row pending too and counts
 * against the breaker. The assertions allow such failures beside the configuration ones; what they
 * never allow is a terminal one.
 */
class ConfigurationRefusalTest {
  @RegisterExtension static final PostgresExtension PG = PostgresExtension.create();
  private static final int ORIGINALS = 10;
  private static final int ROWS = 2 * ORIGINALS + 1; // originals, playback, one init
  private static JdbiStateStore store;
  @RegisterExtension static final S3FaultRig rig = S3FaultRig.inMemory(Duration.ofSeconds(5));

  @TempDir Path temp;
  private Path root;
  private final LedgerEvents events = new LedgerEvents();
  private final List<String> openings = new CopyOnWriteArrayList<>();
  private final List<String> rowFailures = new CopyOnWriteArrayList<>();
  private final ListAppender<ILoggingEvent> logs = new ListAppender<>();
  private final List<S3Client> clients = new ArrayList<>();

  enum Refusal {
    WRONG_SECRET("SignatureDoesNotMatch"),
    UNKNOWN_ACCESS_KEY("InvalidAccessKeyId"),
    NO_SUCH_BUCKET("NoSuchBucket"),
    POLICY_DENIES("AccessDenied");

    final String code;

    Refusal(String code) {
      this.code = code;
    }
  }

  @BeforeAll
  static void start() throws Exception {
    store = JdbiStateStore.create(Jdbi.create(PG.dataSource())).migrate();
  }

  @BeforeEach
  void setUp() throws Exception {
    root = Files.createDirectories(temp.resolve("root")).toRealPath();
    logs.start();
    rootLogger().addAppender(logs);
  }

  @AfterEach
  void tearDown() {
    rootLogger().detachAppender(logs);
    rig.proxy().allowAccess();
    clients.forEach(S3Client::close);
  }

  @ParameterizedTest
  @EnumSource(Refusal.class)
  void aRefusedConfigurationRejectsNoRowAndEveryRowConfirmsOnceItIsFixed(Refusal refusal) throws Exception {
    String b = refusal.name().toLowerCase().replace('_', '-') + "-" + Long.toString(System.nanoTime(), 36);
    S3Client direct = client(S3ProxyServer.ACCESS_KEY, S3ProxyServer.SECRET_KEY);
    String bucket = refusal == Refusal.NO_SUCH_BUCKET ? "missing-" + b : rig.server().createBucket(direct);
    S3ObjectSink good = S3ObjectSink.builder().client(direct).bucket(bucket).build();
    SwappableSink sink = new SwappableSink(switch (refusal) {
      case WRONG_SECRET -> S3ObjectSink.builder()
          .client(client(S3ProxyServer.ACCESS_KEY, "not-the-secret")).bucket(bucket).build();
      case UNKNOWN_ACCESS_KEY -> S3ObjectSink.builder()
          .client(client("no-such-key-id", S3ProxyServer.SECRET_KEY)).bucket(bucket).build();
      case NO_SUCH_BUCKET -> good;
      case POLICY_DENIES -> {
        rig.proxy().denyAccess(r -> true);
        yield S3ObjectSink.builder().client(rig.throughProxy()).bucket(bucket).build();
      }
    });

    try (Ledger ledger = Wiring.ledger(store, sink, root, new FakeRepackager(), events)
        .circuitBreaker(3, Duration.ofMillis(500))
        .listener(recorder(b))
        .build()) {
      ledger.start();
      for (int i = 0; i < ORIGINALS; i++) {
        ItemId id = ItemId.original(b, "720p", i);
        ledger.register(id, Wiring.record(root, id));
      }
      events.awaitUntil("the breaker opened twice (a failed probe re-opens it), once for " + refusal.code,
          () -> openings.size() >= 2 && openings.stream().anyMatch(o -> o.startsWith("SINK_CONFIGURATION ")),
          Duration.ofSeconds(30));

      List<LedgerItem> rows = store.findByBroadcast(b);
      assertEquals(ROWS, rows.size());
      assertEquals(List.of(), rows.stream().filter(r -> r.state() == ItemState.REJECTED).toList(), "none rejected");
      assertTrue(rows.stream().allMatch(r -> r.state() == ItemState.PENDING || r.state() == ItemState.WAITING),
          rows::toString);
      assertNotEquals(CircuitState.CLOSED, ledger.stats().circuit());
      assertTrue(openings.stream().allMatch(o -> o.startsWith("SINK_CONFIGURATION ") ? o.contains(refusal.code)
          : o.startsWith("SINK_TRANSIENT ") && o.contains("outcome unknown")), openings::toString);
      assertTrue(rowFailures.stream().allMatch(f -> f.equals("SINK_CONFIGURATION") || f.equals("SINK_TRANSIENT")),
          rowFailures::toString);
      assertTrue(rowFailures.contains("SINK_CONFIGURATION"), rowFailures::toString);
      assertTrue(rowFailures.size() < ORIGINALS + openings.size() + 2,
          "rows wait while the breaker is open, they are not all attempted: " + rowFailures.size());

      switch (refusal) { // fix the configuration
        case WRONG_SECRET, UNKNOWN_ACCESS_KEY -> sink.swap(good);
        case NO_SUCH_BUCKET -> direct.createBucket(r -> r.bucket(bucket));
        case POLICY_DENIES -> rig.proxy().allowAccess();
      }
      events.awaitUntil("every row confirmed", () -> store.findByBroadcast(b).stream()
          .filter(r -> r.state() == ItemState.CONFIRMED).count() == ROWS, Duration.ofSeconds(30));
    }
    assertEquals(0, store.findByBroadcast(b).stream().filter(r -> r.state() != ItemState.CONFIRMED).count());
    ConsistencyAssertions.assertConsistent(store, good, b);

    long opened = openings.stream().filter(o -> o.startsWith("SINK_CONFIGURATION ")).count();
    List<ILoggingEvent> causeLines = logs.list.stream()
        .filter(e -> e.getLevel().isGreaterOrEqual(Level.INFO) && e.getFormattedMessage().contains(refusal.code))
        .toList();
    assertEquals(opened, causeLines.size(), () -> "one line per opening for it, none per row: " + causeLines);
    assertTrue(causeLines.stream().allMatch(e -> e.getLevel() == Level.WARN
        && e.getFormattedMessage().startsWith("circuit breaker OPEN after SINK_CONFIGURATION")), causeLines::toString);
    assertTrue(logs.list.stream().noneMatch(e -> e.getFormattedMessage().contains("not-the-secret")), "no secret logged");
  }

  private LedgerListener recorder(String broadcast) {
    return new LedgerListener() {
      @Override
      public void onCircuitOpened(Reason reason, String detail) {
        openings.add(reason + " " + detail);
      }

      @Override
      public void onFailed(LedgerItem item, Reason reason, String detail, boolean terminal) {
        if (!item.id().broadcastId().equals(broadcast)) {
          return; // a row left by another test of this class, swept by this ledger
        }
        rowFailures.add(reason + (terminal ? " (terminal)" : ""));
      }
    };
  }

  /**
   * A client of the rig's server as {@link S3ProxyServer#client} makes it, but with the given
   * credentials and the SDK's standard retries: S3Proxy answers some refusals (an unknown access
   * key, a missing bucket) without reading the request body and closes the connection, and a client
   * that does not retry then fails its next request on that pooled connection with a broken pipe.
   */
  private S3Client client(String accessKey, String secret) {
    S3Client client = S3Client.builder()
        .endpointOverride(rig.server().endpoint())
        .region(Region.US_EAST_1)
        .forcePathStyle(true)
        .credentialsProvider(StaticCredentialsProvider.create(AwsBasicCredentials.create(accessKey, secret)))
        .requestChecksumCalculation(RequestChecksumCalculation.WHEN_REQUIRED)
        .responseChecksumValidation(ResponseChecksumValidation.WHEN_REQUIRED)
        .overrideConfiguration(o -> o.retryStrategy(AwsRetryStrategy.standardRetryStrategy())
            .apiCallAttemptTimeout(Duration.ofSeconds(5)))
        .build();
    clients.add(client);
    return client;
  }

  private static Logger rootLogger() {
    return (Logger) LoggerFactory.getLogger(org.slf4j.Logger.ROOT_LOGGER_NAME);
  }

  /** A sink whose delegate can be replaced while the ledger runs: "fixing the configuration". */
  private static final class SwappableSink extends ForwardingObjectSink {
    private final AtomicReference<ObjectSink> delegate;

    SwappableSink(ObjectSink initial) {
      this.delegate = new AtomicReference<>(initial);
    }

    void swap(ObjectSink next) {
      delegate.set(next);
    }

    @Override
    protected ObjectSink delegate() {
      return delegate.get();
    }
  }
}
