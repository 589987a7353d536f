package dev.segmentledger.spring;

import static org.assertj.core.api.Assertions.assertThat;

import dev.segmentledger.core.ItemId;
import dev.segmentledger.core.ItemState;
import dev.segmentledger.core.Ledger;
import dev.segmentledger.core.Uplink;
import dev.segmentledger.core.LedgerItem;
import dev.segmentledger.core.LedgerSettings;
import dev.segmentledger.jdbi.JdbiStateStore;
import dev.segmentledger.micrometer.LedgerBacklogMetrics;
import dev.segmentledger.micrometer.LedgerMetrics;
import dev.segmentledger.core.SinkException;
import dev.segmentledger.s3.ConditionalWrites;
import dev.segmentledger.s3.Integrity;
import dev.segmentledger.s3.S3ObjectSink;
import dev.segmentledger.testkit.contract.ObjectSinkContract;
import dev.segmentledger.testkit.PostgresExtension;
import io.micrometer.observation.Observation;
import io.micrometer.observation.ObservationHandler;
import io.micrometer.observation.ObservationRegistry;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CopyOnWriteArrayList;
import javax.sql.DataSource;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.diagnostics.FailureAnalysis;
import org.springframework.boot.diagnostics.FailureAnalyzer;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.core.io.support.SpringFactoriesLoader;
import software.amazon.awssdk.core.interceptor.Context;
import software.amazon.awssdk.core.interceptor.ExecutionAttributes;
import software.amazon.awssdk.core.interceptor.ExecutionInterceptor;
import software.amazon.awssdk.http.SdkHttpMethod;
import software.amazon.awssdk.http.SdkHttpRequest;
import software.amazon.awssdk.services.s3.S3Client;

class SegmentLedgerAutoConfigurationTest {
  @RegisterExtension static final PostgresExtension POSTGRES = PostgresExtension.create();
  @RegisterExtension static final InProcessS3 s3 = new InProcessS3();
  @TempDir static Path temp;

  static ApplicationContextRunner runner() {
    return new ApplicationContextRunner()
        .withConfiguration(AutoConfigurations.of(SegmentLedgerAutoConfiguration.class,
            SegmentLedgerRuntimeAutoConfiguration.class, SegmentLedgerActuatorAutoConfiguration.class))
        .withBean(DataSource.class, POSTGRES::dataSource)
        .withPropertyValues(s3.properties())
        .withPropertyValues("segment-ledger.allowed-root=" + temp, "segment-ledger.migrate=true",
            "management.endpoints.web.exposure.include=health,segmentledger");
  }

  @Test
  void everyPropertyBinds() {
    runner().withPropertyValues(
            "segment-ledger.workers=2",
            "segment-ledger.queue-capacity=17",
            "segment-ledger.sweep-batch-size=9",
            "segment-ledger.sweep-interval=250ms",
            "segment-ledger.shutdown-timeout=5s",
            "segment-ledger.cutoff=7d",
            "segment-ledger.node-id=node-a",
            "segment-ledger.lease-duration=90s",
            "segment-ledger.max-abandoned-attempts=3",
            "segment-ledger.live-window-segments=8",
            "segment-ledger.full-playlist-interval=1m",
            "segment-ledger.abort-unfinished-uploads-after=2d",
            "segment-ledger.backoff.initial=2s",
            "segment-ledger.backoff.max=1m",
            "segment-ledger.backoff.multiplier=3",
            "segment-ledger.backoff.jitter=0.5",
            "segment-ledger.breaker.failures=7",
            "segment-ledger.breaker.open-delay=20s",
            "segment-ledger.s3.prefix=rec/",
            "segment-ledger.s3.part-size=6291456",
            "segment-ledger.metrics.backlog-refresh-interval=5s",
            "segment-ledger.health.max-oldest-age=3m",
            "segment-ledger.shutdown-timeout=5s")
        .run(context -> {
          assertThat(context).hasNotFailed();
          SegmentLedgerProperties p = context.getBean(SegmentLedgerProperties.class);
          assertThat(p.getWorkers()).isEqualTo(2);
          assertThat(p.getQueueCapacity()).isEqualTo(17);
          assertThat(p.getSweepBatchSize()).isEqualTo(9);
          assertThat(p.getSweepInterval()).isEqualTo(Duration.ofMillis(250));
          assertThat(p.getShutdownTimeout()).isEqualTo(Duration.ofSeconds(5));
          assertThat(p.getCutoff()).isEqualTo(Duration.ofDays(7));
          assertThat(p.getNodeId()).isEqualTo("node-a");
          assertThat(p.getLeaseDuration()).isEqualTo(Duration.ofSeconds(90));
          assertThat(p.getMaxAbandonedAttempts()).isEqualTo(3);
          assertThat(p.getLiveWindowSegments()).isEqualTo(8);
          assertThat(p.getFullPlaylistInterval()).isEqualTo(Duration.ofMinutes(1));
          assertThat(p.getAbortUnfinishedUploadsAfter()).isEqualTo(Duration.ofDays(2));
          assertThat(p.toBackoff().initial()).isEqualTo(Duration.ofSeconds(2));
          assertThat(p.toBackoff().max()).isEqualTo(Duration.ofMinutes(1));
          assertThat(p.toBackoff().multiplier()).isEqualTo(3.0);
          assertThat(p.toBackoff().jitter()).isEqualTo(0.5);
          assertThat(p.getBreaker().getFailures()).isEqualTo(7);
          assertThat(p.getBreaker().getOpenDelay()).isEqualTo(Duration.ofSeconds(20));
          assertThat(p.getS3().getPrefix()).isEqualTo("rec/");
          assertThat(p.getS3().getPartSize()).isEqualTo(6L * 1024 * 1024);
          assertThat(p.getMetrics().getBacklogRefreshInterval()).isEqualTo(Duration.ofSeconds(5));
          assertThat(p.getHealth().getMaxOldestAge()).isEqualTo(Duration.ofMinutes(3));
          assertThat(context).hasSingleBean(Ledger.class).hasSingleBean(JdbiStateStore.class)
              .hasSingleBean(S3ObjectSink.class).hasSingleBean(LedgerMetrics.class)
              .hasSingleBean(LedgerBacklogMetrics.class).hasSingleBean(SegmentLedgerLifecycle.class)
              .hasSingleBean(SegmentLedgerEndpoint.class).doesNotHaveBean(SegmentLedgerReopenEndpoint.class);
          assertThat(context.getBean(SegmentLedgerLifecycle.class).isRunning()).isTrue();
          // The properties reached the ledger itself, not only their bean.
          LedgerSettings settings = context.getBean(Ledger.class).settings();
          assertThat(settings.workers()).isEqualTo(2);
          assertThat(settings.queueCapacity()).isEqualTo(17);
          assertThat(settings.sweepBatchSize()).isEqualTo(9);
          assertThat(settings.sweepInterval()).isEqualTo(Duration.ofMillis(250));
          assertThat(settings.shutdownTimeout()).isEqualTo(Duration.ofSeconds(5));
          assertThat(settings.cutoff()).contains(Duration.ofDays(7));
          assertThat(settings.nodeId()).isEqualTo("node-a");
          assertThat(settings.leaseDuration()).isEqualTo(Duration.ofSeconds(90));
          assertThat(settings.maxAbandonedAttempts()).isEqualTo(3);
          assertThat(settings.liveWindowSegments()).isEqualTo(8);
          assertThat(settings.fullPlaylistInterval()).isEqualTo(Duration.ofMinutes(1));
          assertThat(settings.abortUnfinishedUploadsAfter()).isEqualTo(Duration.ofDays(2));
          assertThat(settings.backoff()).isEqualTo(p.toBackoff());
          assertThat(settings.breakerFailures()).isEqualTo(7);
          assertThat(settings.breakerOpenDelay()).isEqualTo(Duration.ofSeconds(20));
        });
  }

  @Test
  void theLedgerRunsWithTheContextAndUploadsToTheBucket() throws Exception {
    Path file = Files.writeString(temp.resolve("up-0.ts"), "segment zero");
    runner().run(context -> {
      Ledger ledger = context.getBean(Ledger.class);
      ItemId id = ItemId.original("autoconf-upload", "720p", 0);
      ledger.register(id, file);
      LedgerItem row = awaitState(ledger, id, ItemState.CONFIRMED);
      assertThat(row.state()).isEqualTo(ItemState.CONFIRMED);
      try (var client = s3.client(); InputStream in = client.getObject(b -> b.bucket(InProcessS3.BUCKET).key(id.objectKey()))) {
        assertThat(new String(in.readAllBytes(), StandardCharsets.UTF_8)).isEqualTo("segment zero");
      }
      SegmentLedgerLifecycle lifecycle = context.getBean(SegmentLedgerLifecycle.class);
      context.close();
      assertThat(lifecycle.isRunning()).isFalse();
    });
  }

  @Test
  void anObservationRegistryReceivesTheLedgersSpans() throws Exception {
    Path file = Files.writeString(temp.resolve("traced-0.ts"), "a traced segment");
    List<String> observed = new CopyOnWriteArrayList<>();
    ObservationRegistry observations = ObservationRegistry.create();
    observations.observationConfig().observationHandler(new ObservationHandler<Observation.Context>() {
      @Override
      public void onStop(Observation.Context context) {
        observed.add(context.getName());
      }

      @Override
      public boolean supportsContext(Observation.Context context) {
        return true;
      }
    });
    runner().withBean(ObservationRegistry.class, () -> observations).run(context -> {
      Ledger ledger = context.getBean(Ledger.class);
      ItemId id = ItemId.original("autoconf-traced", "720p", 0);
      ledger.register(id, file);
      awaitState(ledger, id, ItemState.CONFIRMED);
      assertThat(ledger.find(id).orElseThrow().traceContext()).isNull(); // no tracer: nothing to propagate
    });
    assertThat(observed).contains("segment-ledger.register", "segment-ledger.upload", "segment-ledger.put",
        "segment-ledger.confirm");
  }

  @Test
  void theUplinkPropertiesSetTheLanesAndTheCap() {
    runner().withPropertyValues("segment-ledger.uplink.bytes-per-second=20MB", "segment-ledger.uplink.backfill-share=0.3",
        "segment-ledger.uplink.requests-per-second=50").run(context -> {
          Uplink uplink = context.getBean(Ledger.class).uplink();
          assertThat(uplink.bytesPerSecond()).isEqualTo(20L * 1024 * 1024);
          assertThat(uplink.requestsPerSecond()).isEqualTo(50);
          assertThat(uplink.backfillShare()).isEqualTo(0.3);
          assertThat(uplink.originalShare()).isEqualTo(0.2);
          assertThat(uplink.lanes()).isTrue();
          assertThat(uplink.timetable()).isNull();
        });
    runner().withPropertyValues("segment-ledger.uplink.timetable=00:00,3MiB", "segment-ledger.uplink.timetable-zone=UTC",
        "segment-ledger.uplink.bytes-per-second=20MB").run(context -> {
          Uplink uplink = context.getBean(Ledger.class).uplink();
          assertThat(uplink.timetable()).hasToString("00:00,3145728 (UTC)");
          assertThat(uplink.bytesPerSecond()).as("the timetable's entry, not bytes-per-second").isEqualTo(3L << 20);
        });
  }

  @Test
  void theStorageGroupPropertyGoesOnEveryRowThisInstanceRegisters() throws Exception {
    Path file = Files.writeString(temp.resolve("group-0.ts"), "segment of recorder-7");
    runner().withPropertyValues("segment-ledger.storage-group=recorder-7").run(context -> {
      Ledger ledger = context.getBean(Ledger.class);
      ItemId id = ItemId.original("autoconf-group", "720p", 0);
      ledger.register(id, file);
      LedgerItem row = awaitState(ledger, id, ItemState.CONFIRMED);
      assertThat(row.storageGroup()).isEqualTo("recorder-7");
    });
  }

  @Test
  void invalidValuesStopTheStartWithAMessageNamingTheProperty() {
    runner().withPropertyValues("segment-ledger.workers=0", "segment-ledger.backoff.jitter=1.5",
            "segment-ledger.sweep-interval=0s", "segment-ledger.storage-group=disk 7",
            "segment-ledger.live-window-segments=2", "segment-ledger.local-retention=0s",
            "segment-ledger.low-disk-threshold=-1B", "segment-ledger.uplink.timetable=08:00,fast")
        .run(context -> {
          assertThat(context).hasFailed();
          assertThat(rootMessage(context.getStartupFailure()))
              .contains("segment-ledger.workers: workers must be > 0, got 0")
              .contains("segment-ledger.backoff: jitter must be in [0, 1], got 1.5")
              .contains("segment-ledger.sweep-interval: sweepInterval must be > 0, got PT0S")
              .contains("segment-ledger.live-window-segments: liveWindowSegments must be >= 3, got 2")
              .contains("segment-ledger.local-retention: localRetention must be > 0, got PT0S")
              .contains("segment-ledger.low-disk-threshold: lowDiskThreshold must be >= 0 bytes, got -1")
              .contains("segment-ledger.uplink: the size in '08:00,fast' (B, KiB, MiB, GiB, or rclone's k, M, G) is not a"
                  + " number of bytes")
              .contains("segment-ledger.storage-group: storageGroup must be 1-64 characters of [A-Za-z0-9._-]"
                  + " starting with a letter or digit, got: \"disk 7\"");
        });
    new ApplicationContextRunner()
        .withConfiguration(AutoConfigurations.of(SegmentLedgerAutoConfiguration.class))
        .withBean(DataSource.class, POSTGRES::dataSource)
        .withPropertyValues(s3.properties())
        .run(context -> assertThat(rootMessage(context.getStartupFailure()))
            .contains("segment-ledger.allowed-root is required"));
  }

  @Test
  void theConditionalWritesAndIntegrityPropertiesReachTheSink() {
    List<SdkHttpRequest> sent = new CopyOnWriteArrayList<>();
    ExecutionInterceptor recorder = new ExecutionInterceptor() {
      @Override
      public void beforeTransmission(Context.BeforeTransmission context, ExecutionAttributes attributes) {
        sent.add(context.httpRequest());
      }
    };
    // Unset: OFF and MD5_ONLY, the sink's defaults: no probe, no condition, no CRC32C.
    runner().withBean(S3Client.class, () -> s3.client(recorder)).run(context -> {
      assertThat(context).hasNotFailed();
      SegmentLedgerProperties.S3 p = context.getBean(SegmentLedgerProperties.class).getS3();
      assertThat(p.getConditionalWrites()).isEqualTo(ConditionalWrites.OFF);
      assertThat(p.getIntegrity()).isEqualTo(Integrity.MD5_ONLY);
      String key = ItemId.original("sink-props-1", "720p", 0).objectKey();
      sent.clear();
      context.getBean(S3ObjectSink.class).put(key, ObjectSinkContract.bytes("segment zero"), false);
      assertThat(sent).noneMatch(SegmentLedgerAutoConfigurationTest::isProbe);
      SdkHttpRequest put = putOf(sent, key);
      assertThat(put.firstMatchingHeader("If-None-Match")).isEmpty();
      assertThat(put.firstMatchingHeader("x-amz-checksum-crc32c")).isEmpty();
    });
    // Set, in the relaxed forms Spring binds: AUTO probes the bucket at the sink's first write, then the
    // item's PUT carries If-None-Match: *; CHECKSUMS puts the CRC32C on the PUT.
    runner().withBean(S3Client.class, () -> s3.client(recorder))
        .withPropertyValues("segment-ledger.s3.conditional-writes=auto", "segment-ledger.s3.integrity=checksums")
        .run(context -> {
          assertThat(context).hasNotFailed();
          SegmentLedgerProperties.S3 p = context.getBean(SegmentLedgerProperties.class).getS3();
          assertThat(p.getConditionalWrites()).isEqualTo(ConditionalWrites.AUTO);
          assertThat(p.getIntegrity()).isEqualTo(Integrity.CHECKSUMS);
          S3ObjectSink sink = context.getBean(S3ObjectSink.class);
          String key = ItemId.original("sink-props-2", "720p", 0).objectKey();
          sent.clear();
          try {
            sink.put(key, ObjectSinkContract.bytes("segment zero"), false);
          } catch (SinkException e) {
            // A server without S3's additional checksums may refuse the header (S3Proxy 2.9: 501): what was sent counts.
            assertThat(e.failureKind()).isEqualTo(SinkException.Kind.CONFIGURATION);
          }
          assertThat(sent).anyMatch(SegmentLedgerAutoConfigurationTest::isProbe);
          SdkHttpRequest put = putOf(sent, key);
          assertThat(put.firstMatchingHeader("If-None-Match")).contains("*");
          assertThat(put.firstMatchingHeader("x-amz-checksum-crc32c")).isPresent();
          assertThat(sink.sendsConditionalWrites()).isTrue();
        });
    // REQUIRED reaches the sink too: S3Proxy ignores the header on CompleteMultipartUpload, so it refuses to go on.
    runner().withBean(S3Client.class, () -> s3.client(recorder))
        .withPropertyValues("segment-ledger.s3.conditional-writes=REQUIRED", "segment-ledger.s3.integrity=md5-only")
        .run(context -> {
          assertThat(context).hasNotFailed();
          assertThat(context.getBean(SegmentLedgerProperties.class).getS3().getIntegrity()).isEqualTo(Integrity.MD5_ONLY);
          SinkException e = org.junit.jupiter.api.Assertions.assertThrows(SinkException.class,
              () -> context.getBean(S3ObjectSink.class).sendsConditionalWrites());
          assertThat(e.failureKind()).isEqualTo(SinkException.Kind.CONFIGURATION);
          assertThat(e.getMessage()).contains("REQUIRED");
        });
  }

  @Test
  void anUnknownConditionalWritesOrIntegrityValueStopsTheStartNamingTheAllowedValues() {
    for (String[] bad : new String[][] {
        {"segment-ledger.s3.conditional-writes=sometimes", "AUTO", "OFF", "REQUIRED"},
        {"segment-ledger.s3.integrity=sha1", "CHECKSUMS", "MD5_ONLY"}}) {
      String property = bad[0].substring(0, bad[0].indexOf('='));
      runner().withPropertyValues(bad[0]).run(context -> {
        assertThat(context).hasFailed();
        assertThat(rootMessage(context.getStartupFailure())).contains(property);
        // What Spring Boot prints when such an application fails to start: its failure analysis.
        FailureAnalysis analysis = analyze(context.getStartupFailure());
        assertThat(analysis.getDescription()).contains(property);
        assertThat(analysis.getAction()).contains(java.util.Arrays.copyOfRange(bad, 1, bad.length));
      });
    }
    // An empty value binds as unset (the default); a null set in code is a problem that names the values.
    SegmentLedgerProperties properties = new SegmentLedgerProperties();
    properties.getS3().setConditionalWrites(null);
    properties.getS3().setIntegrity(null);
    assertThat(properties.problems()).contains("segment-ledger.s3.conditional-writes must be one of auto, required, off",
        "segment-ledger.s3.integrity must be one of md5-only, checksums");
  }

  /** The analysis of the failure analyzers Spring Boot registers (spring.factories), as SpringApplication reports it. */
  private static FailureAnalysis analyze(Throwable failure) {
    List<FailureAnalyzer> analyzers = SpringFactoriesLoader.forDefaultResourceLocation(
            SegmentLedgerAutoConfigurationTest.class.getClassLoader())
        .load(FailureAnalyzer.class, SpringFactoriesLoader.FailureHandler.handleMessage((message, e) -> { }));
    return analyzers.stream().map(a -> a.analyze(failure)).filter(java.util.Objects::nonNull).findFirst()
        .orElseThrow(() -> new AssertionError("no failure analysis for " + failure));
  }

  private static boolean isProbe(SdkHttpRequest request) {
    return request.encodedPath().contains("/.segment-ledger/probe/");
  }

  private static SdkHttpRequest putOf(List<SdkHttpRequest> sent, String key) {
    return sent.stream().filter(r -> r.method() == SdkHttpMethod.PUT && r.encodedPath().endsWith("/" + key))
        .findFirst().orElseThrow(() -> new AssertionError("no PUT of " + key + " in " + sent));
  }

  @Test
  void theBeansBackOffForTheApplicationsOwnLedger() {
    runner().withUserConfiguration(OwnLedger.class).run(context -> {
      assertThat(context).hasNotFailed().hasSingleBean(Ledger.class);
      assertThat(context.getBean(Ledger.class)).isSameAs(context.getBean(OwnLedger.class).ledger);
      assertThat(context.getBean(SegmentLedgerLifecycle.class).isRunning()).isTrue();
    });
  }

  @Test
  void disabledMeansNoLedger() {
    runner().withPropertyValues("segment-ledger.enabled=false").run(context -> {
      assertThat(context).hasNotFailed().doesNotHaveBean(Ledger.class).doesNotHaveBean(SegmentLedgerLifecycle.class);
    });
  }

  @Test
  void theReopenOperationIsOnlyThereWhenEnabled() {
    runner().withPropertyValues("segment-ledger.endpoint.reopen-enabled=true").run(context ->
        assertThat(context).hasSingleBean(SegmentLedgerReopenEndpoint.class).hasSingleBean(SegmentLedgerEndpoint.class));
  }

  @Test
  void configurationMetadataIsGeneratedForIdes() throws Exception {
    try (InputStream in = getClass().getResourceAsStream("/META-INF/spring-configuration-metadata.json")) {
      assertThat(in).as("spring-configuration-metadata.json on the class path").isNotNull();
      String json = new String(in.readAllBytes(), StandardCharsets.UTF_8);
      assertThat(json).contains("\"segment-ledger.workers\"", "\"segment-ledger.allowed-root\"",
          "\"segment-ledger.s3.path-style\"", "\"segment-ledger.endpoint.reopen-enabled\"",
          "\"segment-ledger.s3.conditional-writes\"", "\"segment-ledger.s3.integrity\"",
          "\"segment-ledger.breaker.open-delay\"", "Number of upload worker threads.");
    }
  }

  static LedgerItem awaitState(Ledger ledger, ItemId id, ItemState state) throws InterruptedException {
    long deadline = System.nanoTime() + Duration.ofSeconds(30).toNanos();
    Optional<LedgerItem> row = ledger.find(id);
    while ((row.isEmpty() || row.get().state() != state) && System.nanoTime() < deadline) {
      Thread.sleep(50);
      row = ledger.find(id);
    }
    return row.orElseThrow();
  }

  static String rootMessage(Throwable failure) {
    StringBuilder all = new StringBuilder();
    for (Throwable t = failure; t != null; t = t.getCause()) {
      all.append(t.getMessage()).append('\n');
    }
    return all.toString();
  }

  @Configuration(proxyBeanMethods = false)
  static class OwnLedger {
    final Ledger ledger;

    OwnLedger() {
      ledger = Ledger.builder()
          .stateStore(JdbiStateStore.create(org.jdbi.v3.core.Jdbi.create(POSTGRES.dataSource())).migrate())
          .objectSink(new dev.segmentledger.testkit.FakeObjectSink())
          .allowedRoot(temp)
          .build();
    }

    @Bean
    Ledger ownLedger() {
      return ledger;
    }
  }
}
