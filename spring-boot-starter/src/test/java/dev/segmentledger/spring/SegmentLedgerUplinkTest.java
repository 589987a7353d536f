package dev.segmentledger.spring;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.segmentledger.core.Ledger;
import dev.segmentledger.testkit.PostgresExtension;
import java.nio.file.Path;
import java.util.Map;
import java.util.Set;
import javax.sql.DataSource;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;
import org.springframework.boot.actuate.endpoint.InvalidEndpointRequestException;
import org.springframework.boot.actuate.endpoint.InvocationContext;
import org.springframework.boot.actuate.endpoint.OperationType;
import org.springframework.boot.actuate.endpoint.SecurityContext;
import org.springframework.boot.actuate.endpoint.invoke.convert.ConversionServiceParameterValueMapper;
import org.springframework.boot.actuate.endpoint.invoke.reflect.OperationMethod;
import org.springframework.boot.actuate.endpoint.invoke.reflect.ReflectiveOperationInvoker;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.test.context.FilteredClassLoader;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.boot.test.util.TestPropertyValues;
import org.springframework.cloud.context.environment.EnvironmentChangeEvent;
import org.springframework.context.ConfigurableApplicationContext;

/**
 * A running node's uplink from Spring: the {@code segmentledgeruplink} endpoint shows the lanes and
 * the cap and turns the cap; a Spring Cloud refresh that changes {@code segment-ledger.uplink.*}
 * turns the ledger's uplink, and only such a refresh, and only to valid settings.
 */
class SegmentLedgerUplinkTest {
  private static final long MIB = 1024 * 1024;
  @RegisterExtension static final PostgresExtension POSTGRES = PostgresExtension.create();
  @RegisterExtension static final InProcessS3 s3 = new InProcessS3();
  @TempDir static Path temp;

  private static ApplicationContextRunner runner() {
    return new ApplicationContextRunner()
        .withConfiguration(AutoConfigurations.of(SegmentLedgerAutoConfiguration.class,
            SegmentLedgerRuntimeAutoConfiguration.class, SegmentLedgerActuatorAutoConfiguration.class))
        .withBean(DataSource.class, POSTGRES::dataSource)
        .withPropertyValues(s3.properties())
        .withPropertyValues("segment-ledger.allowed-root=" + temp, "segment-ledger.migrate=true",
            "segment-ledger.uplink.bytes-per-second=20MB",
            "management.endpoints.web.exposure.include=segmentledgeruplink");
  }

  @Test
  @SuppressWarnings("unchecked")
  void theEndpointShowsTheLanesAndTheCapAndTurnsTheCap() {
    runner().run(context -> {
      assertThat(context).hasNotFailed();
      Ledger ledger = context.getBean(Ledger.class);
      SegmentLedgerUplinkEndpoint endpoint = context.getBean(SegmentLedgerUplinkEndpoint.class);

      Map<String, Object> view = endpoint.uplink();
      assertThat((Map<String, Object>) view.get("settings")).containsEntry("bytesPerSecond", 20 * MIB)
          .containsEntry("requestsPerSecond", 0L).containsEntry("lanes", true);
      assertThat((Map<String, Object>) view.get("lanes")).containsOnlyKeys("LIVE", "ORIGINAL", "BACKFILL");
      assertThat(view).containsKeys("bodyBytes", "tokenWaitMillis");

      Map<String, Object> after = endpoint.changeCap(5 * MIB, null);
      assertThat(ledger.uplink().bytesPerSecond()).isEqualTo(5 * MIB);
      assertThat((Map<String, Object>) after.get("settings")).containsEntry("bytesPerSecond", 5 * MIB);
      endpoint.changeCap(null, 40L);
      assertThat(ledger.uplink().bytesPerSecond()).as("a value not given is kept").isEqualTo(5 * MIB);
      assertThat(ledger.uplink().requestsPerSecond()).isEqualTo(40);

      assertThatThrownBy(() -> endpoint.changeCap(-1L, null)).isInstanceOf(InvalidEndpointRequestException.class)
          .hasMessageContaining("must not be negative");
      assertThatThrownBy(() -> endpoint.changeCap(null, null)).isInstanceOf(InvalidEndpointRequestException.class)
          .hasMessageContaining("give bytesPerSecond");
      assertThat(ledger.uplink().bytesPerSecond()).isEqualTo(5 * MIB);
    });
  }

  @Test
  void aRefreshThatChangesTheUplinkPropertiesTurnsTheRunningLedger() {
    runner().run(context -> {
      assertThat(context).hasNotFailed().hasSingleBean(SegmentLedgerUplinkRefresh.class);
      Ledger ledger = context.getBean(Ledger.class);

      refresh(context, "segment-ledger.uplink.bytes-per-second=5MB", "segment-ledger.uplink.backfill-share=0.3");
      assertThat(ledger.uplink().bytesPerSecond()).isEqualTo(5 * MIB);
      assertThat(ledger.uplink().backfillShare()).isEqualTo(0.3);

      TestPropertyValues.of("segment-ledger.uplink.bytes-per-second=7MB").applyTo(context);
      context.publishEvent(new EnvironmentChangeEvent(context, Set.of("spring.application.name")));
      assertThat(ledger.uplink().bytesPerSecond()).as("a refresh of other keys leaves the uplink").isEqualTo(5 * MIB);

      refresh(context, "segment-ledger.uplink.backfill-share=0.9", "segment-ledger.uplink.original-share=0.5");
      assertThat(ledger.uplink().bytesPerSecond()).as("shares out of range: the settings in force are kept")
          .isEqualTo(5 * MIB);
      refresh(context, "segment-ledger.uplink.backfill-share=0.2", "segment-ledger.uplink.original-share=0.2",
          "segment-ledger.uplink.bytes-per-second=a lot");
      assertThat(ledger.uplink().bytesPerSecond()).as("a value that does not bind: kept").isEqualTo(5 * MIB);
      refresh(context, "segment-ledger.uplink.bytes-per-second=-1MB");
      assertThat(ledger.uplink().bytesPerSecond()).as("a negative cap: kept").isEqualTo(5 * MIB);
      refresh(context, "segment-ledger.uplink.bytes-per-second=6MB", "segment-ledger.uplink.requests-per-second=-3");
      assertThat(ledger.uplink().requestsPerSecond()).as("a negative request cap: kept").isZero();
      assertThat(ledger.uplink().bytesPerSecond()).as("and the rest with it").isEqualTo(5 * MIB);
    });
  }

  @Test
  void thePostTakesOneKeyByNameAsTheActuatorInvokesIt() {
    runner().run(context -> {
      Ledger ledger = context.getBean(Ledger.class);
      ReflectiveOperationInvoker post = new ReflectiveOperationInvoker(
          context.getBean(SegmentLedgerUplinkEndpoint.class),
          new OperationMethod(SegmentLedgerUplinkEndpoint.class.getMethod("changeCap", Long.class, Long.class),
              OperationType.WRITE),
          new ConversionServiceParameterValueMapper());

      post.invoke(new InvocationContext(SecurityContext.NONE, Map.of("requestsPerSecond", "25")));
      assertThat(ledger.uplink().requestsPerSecond()).isEqualTo(25);
      assertThat(ledger.uplink().bytesPerSecond()).as("the key not given is kept").isEqualTo(20 * MIB);

      assertThatThrownBy(() -> post.invoke(
          new InvocationContext(SecurityContext.NONE, Map.of("bytesPerSecond", "-5"))))
          .as("the web layer answers this exception with a 400 and its reason")
          .isInstanceOf(InvalidEndpointRequestException.class).hasMessageContaining("must not be negative");
      assertThat(ledger.uplink().bytesPerSecond()).isEqualTo(20 * MIB);
    });
  }

  @Test
  void withoutSpringCloudThereIsNoRefreshListenerAndTheLedgerStillRuns() {
    runner().withClassLoader(new FilteredClassLoader("org.springframework.cloud")).run(context -> {
      assertThat(context).hasNotFailed().hasSingleBean(Ledger.class).doesNotHaveBean(SegmentLedgerUplinkRefresh.class)
          .hasSingleBean(SegmentLedgerUplinkEndpoint.class);
    });
  }

  @Test
  void theEndpointIsNotRegisteredWhenItIsNotExposed() {
    runner().withPropertyValues("management.endpoints.web.exposure.include=health").run(context -> {
      assertThat(context).hasNotFailed().doesNotHaveBean(SegmentLedgerUplinkEndpoint.class);
    });
  }

  /** Changes properties and publishes the event Spring Cloud's refresh publishes for them. */
  private static void refresh(ConfigurableApplicationContext context, String... properties) {
    TestPropertyValues.of(properties).applyTo(context);
    Set<String> keys = new java.util.HashSet<>();
    for (String property : properties) {
      keys.add(property.substring(0, property.indexOf('=')));
    }
    context.publishEvent(new EnvironmentChangeEvent(context, keys));
  }
}
