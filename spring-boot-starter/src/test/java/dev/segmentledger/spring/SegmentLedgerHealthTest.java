package dev.segmentledger.spring;

import static org.assertj.core.api.Assertions.assertThat;

import dev.segmentledger.core.CircuitState;
import dev.segmentledger.core.ItemId;
import dev.segmentledger.core.Ledger;
import dev.segmentledger.micrometer.LedgerBacklogMetrics;
import dev.segmentledger.testkit.PostgresExtension;
import java.net.ServerSocket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import javax.sql.DataSource;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;
import org.springframework.boot.actuate.autoconfigure.endpoint.EndpointAutoConfiguration;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.autoconfigure.availability.ApplicationAvailabilityAutoConfiguration;
import org.springframework.boot.availability.AvailabilityChangeEvent;
import org.springframework.boot.availability.LivenessState;
import org.springframework.boot.availability.ReadinessState;
import org.springframework.boot.health.actuate.endpoint.HealthEndpoint;
import org.springframework.boot.health.actuate.endpoint.HealthEndpointGroups;
import org.springframework.boot.health.autoconfigure.actuate.endpoint.AvailabilityProbesAutoConfiguration;
import org.springframework.boot.health.autoconfigure.actuate.endpoint.HealthEndpointAutoConfiguration;
import org.springframework.boot.health.autoconfigure.application.AvailabilityHealthContributorAutoConfiguration;
import org.springframework.boot.health.autoconfigure.contributor.HealthContributorAutoConfiguration;
import org.springframework.boot.health.autoconfigure.registry.HealthContributorRegistryAutoConfiguration;
import org.springframework.boot.health.contributor.Health;
import org.springframework.boot.health.contributor.Status;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;

/** An open breaker takes the instance out of readiness, never out of liveness. */
class SegmentLedgerHealthTest {
  @RegisterExtension static final PostgresExtension POSTGRES = PostgresExtension.create();
  @RegisterExtension static final InProcessS3 s3 = new InProcessS3();
  @TempDir static Path temp;

  ApplicationContextRunner runner(String... properties) {
    return new ApplicationContextRunner()
        .withConfiguration(AutoConfigurations.of(SegmentLedgerAutoConfiguration.class,
            SegmentLedgerRuntimeAutoConfiguration.class, SegmentLedgerActuatorAutoConfiguration.class,
            ApplicationAvailabilityAutoConfiguration.class, EndpointAutoConfiguration.class,
            HealthContributorRegistryAutoConfiguration.class, HealthContributorAutoConfiguration.class,
            HealthEndpointAutoConfiguration.class, AvailabilityHealthContributorAutoConfiguration.class,
            AvailabilityProbesAutoConfiguration.class))
        .withBean(DataSource.class, POSTGRES::dataSource)
        .withPropertyValues(s3.properties())
        .withPropertyValues("segment-ledger.allowed-root=" + temp, "segment-ledger.migrate=true",
            "segment-ledger.metrics.backlog-refresh-interval=100ms",
            "management.endpoint.health.probes.enabled=true",
            "management.endpoint.health.group.readiness.include=readinessState,segmentLedger",
            "management.endpoint.health.show-details=always")
        .withPropertyValues(properties);
  }

  @Test
  void anOpenBreakerTakesReadinessOutOfServiceAndLeavesLivenessUp() throws Exception {
    int closedPort;
    try (ServerSocket socket = new ServerSocket(0)) {
      closedPort = socket.getLocalPort();
    }
    Path file = Files.writeString(temp.resolve("h-0.ts"), "segment");
    runner("segment-ledger.s3.endpoint=http://127.0.0.1:" + closedPort, "segment-ledger.breaker.failures=1",
            "segment-ledger.breaker.open-delay=10m")
        .run(context -> {
          assertThat(context).hasNotFailed();
          // What SpringApplication publishes once started and ready; a bare context runner does not.
          AvailabilityChangeEvent.publish(context, LivenessState.CORRECT);
          AvailabilityChangeEvent.publish(context, ReadinessState.ACCEPTING_TRAFFIC);
          HealthEndpoint health = context.getBean(HealthEndpoint.class);
          Ledger ledger = context.getBean(Ledger.class);
          awaitBacklogRead(context.getBean(LedgerBacklogMetrics.class));
          assertThat(health.healthForPath("readiness").getStatus()).isEqualTo(Status.UP);
          assertThat(health.healthForPath("liveness").getStatus()).isEqualTo(Status.UP);

          ledger.register(ItemId.original("health-b1", "720p", 0), file);
          long deadline = System.nanoTime() + Duration.ofSeconds(30).toNanos();
          while (ledger.stats().circuit() != CircuitState.OPEN && System.nanoTime() < deadline) {
            Thread.sleep(50);
          }
          assertThat(ledger.stats().circuit()).isEqualTo(CircuitState.OPEN);

          assertThat(health.healthForPath("liveness").getStatus()).as("liveness").isEqualTo(Status.UP);
          assertThat(health.healthForPath("readiness").getStatus()).as("readiness").isEqualTo(Status.OUT_OF_SERVICE);
          Health own = context.getBean(SegmentLedgerHealthIndicator.class).health();
          assertThat(own.getStatus()).isEqualTo(Status.OUT_OF_SERVICE);
          assertThat(own.getDetails()).containsEntry("circuit", "open").containsKey("backlog");
        });
  }

  @Test
  void aBacklogThatAgesWithoutShrinkingIsOutOfServiceForReadinessOnly() throws Exception {
    Path file = Files.writeString(temp.resolve("h-1.ts"), "segment");
    runner("segment-ledger.health.max-oldest-age=1ms", "segment-ledger.workers=1",
            "segment-ledger.s3.bucket=no-such-bucket", "segment-ledger.breaker.failures=1000")
        .run(context -> {
          assertThat(context).hasNotFailed();
          // What SpringApplication publishes once started and ready; a bare context runner does not.
          AvailabilityChangeEvent.publish(context, LivenessState.CORRECT);
          AvailabilityChangeEvent.publish(context, ReadinessState.ACCEPTING_TRAFFIC);
          Ledger ledger = context.getBean(Ledger.class);
          ledger.register(ItemId.original("health-b2", "720p", 0), file);
          HealthEndpoint health = context.getBean(HealthEndpoint.class);
          SegmentLedgerHealthIndicator indicator = context.getBean(SegmentLedgerHealthIndicator.class);
          long deadline = System.nanoTime() + Duration.ofSeconds(30).toNanos();
          while (indicator.health().getStatus() != Status.OUT_OF_SERVICE && System.nanoTime() < deadline) {
            Thread.sleep(50);
          }
          assertThat(indicator.health().getStatus()).isEqualTo(Status.OUT_OF_SERVICE);
          assertThat(indicator.health().getDetails().get("reason").toString()).contains("not shrinking");
          assertThat(health.healthForPath("liveness").getStatus()).isEqualTo(Status.UP);
          assertThat(health.healthForPath("readiness").getStatus()).isEqualTo(Status.OUT_OF_SERVICE);
        });
  }

  @Test
  void aLowDiskIsDegradedWithItsNamedCause() {
    runner("segment-ledger.low-disk-threshold=1000000TB").run(context -> {
      assertThat(context).hasNotFailed();
      Health own = context.getBean(SegmentLedgerHealthIndicator.class).health();
      assertThat(own.getStatus()).isEqualTo(SegmentLedgerHealthIndicator.DEGRADED);
      assertThat(own.getDetails().get("reason").toString()).startsWith("LOW_DISK");
      assertThat(own.getDetails()).containsKey("localDisk");
      // The aggregate keeps it: Spring's aggregator ranks only the statuses of its order, and drops others.
      AvailabilityChangeEvent.publish(context, ReadinessState.ACCEPTING_TRAFFIC);
      HealthEndpoint health = context.getBean(HealthEndpoint.class);
      assertThat(health.healthForPath("readiness").getStatus()).as("readiness")
          .isEqualTo(SegmentLedgerHealthIndicator.DEGRADED);
      HealthEndpointGroups groups = context.getBean(HealthEndpointGroups.class);
      assertThat(groups.get("readiness").getHttpCodeStatusMapper().getStatusCode(SegmentLedgerHealthIndicator.DEGRADED))
          .as("HTTP status of a degraded readiness: the instance stays in rotation").isEqualTo(200);
      assertThat(groups.get("readiness").getStatusAggregator().getAggregateStatus(Status.OUT_OF_SERVICE,
          SegmentLedgerHealthIndicator.DEGRADED, Status.UP)).isEqualTo(Status.OUT_OF_SERVICE);
    });
    runner().run(context -> assertThat(context.getBean(SegmentLedgerHealthIndicator.class).health().getStatus())
        .isEqualTo(Status.UP));
  }

  static void awaitBacklogRead(LedgerBacklogMetrics backlog) throws InterruptedException {
    long deadline = System.nanoTime() + Duration.ofSeconds(30).toNanos();
    while (backlog.latest().isEmpty() && System.nanoTime() < deadline) {
      Thread.sleep(20);
    }
    assertThat(backlog.latest()).isPresent();
  }
}
