package dev.segmentledger.spring;

import dev.segmentledger.core.Ledger;
import dev.segmentledger.core.spi.StateStore;
import dev.segmentledger.micrometer.LedgerBacklogMetrics;
import java.time.Clock;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.boot.actuate.autoconfigure.endpoint.condition.ConditionalOnAvailableEndpoint;
import org.springframework.boot.actuate.endpoint.annotation.Endpoint;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBooleanProperty;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.health.autoconfigure.contributor.ConditionalOnEnabledHealthIndicator;
import org.springframework.boot.health.actuate.endpoint.HealthEndpointGroupsPostProcessor;
import org.springframework.boot.health.contributor.HealthIndicator;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

/**
 * The {@code segmentLedger} health indicator (with spring-boot-health) and the {@code
 * segmentledger} and {@code segmentledgeruplink} endpoints (with spring-boot-actuator), for the
 * {@link Ledger} bean.
 */
// After the availability probes: their groups post-processor makes the liveness and readiness
// groups, and SegmentLedgerHealthGroups (ordered like it) must see them, so it is registered after it.
@AutoConfiguration(after = SegmentLedgerRuntimeAutoConfiguration.class,
    afterName = "org.springframework.boot.health.autoconfigure.actuate.endpoint.AvailabilityProbesAutoConfiguration")
@ConditionalOnBean({Ledger.class, LedgerBacklogMetrics.class})
public class SegmentLedgerActuatorAutoConfiguration {

  /** The health indicator, named {@code segmentLedger}. */
  @Configuration(proxyBeanMethods = false)
  @ConditionalOnClass(HealthIndicator.class)
  @ConditionalOnEnabledHealthIndicator("segmentledger")
  static class Health {
    @Bean
    @ConditionalOnMissingBean(name = "segmentLedgerHealthIndicator")
    SegmentLedgerHealthIndicator segmentLedgerHealthIndicator(Ledger ledger, LedgerBacklogMetrics backlog,
        SegmentLedgerProperties properties) {
      return new SegmentLedgerHealthIndicator(ledger, backlog, properties.getHealth().getMaxOldestAge(),
          Clock.systemUTC());
    }

    /** The indicator in readiness only, never in the overall health or liveness. */
    @Bean
    @ConditionalOnClass(name = "org.springframework.boot.health.actuate.endpoint.HealthEndpointGroupsPostProcessor")
    static HealthEndpointGroupsPostProcessor segmentLedgerHealthGroups() {
      return new SegmentLedgerHealthGroups();
    }
  }

  /** The endpoint: read-only unless {@code segment-ledger.endpoint.reopen-enabled=true}. */
  @Configuration(proxyBeanMethods = false)
  @ConditionalOnClass({Endpoint.class, ConditionalOnAvailableEndpoint.class})
  @ConditionalOnAvailableEndpoint(SegmentLedgerEndpoint.class)
  static class Endpoints {
    @Bean
    @ConditionalOnMissingBean(SegmentLedgerEndpoint.class)
    @ConditionalOnBooleanProperty(name = SegmentLedgerProperties.PREFIX + ".endpoint.reopen-enabled",
        havingValue = false, matchIfMissing = true)
    SegmentLedgerEndpoint segmentLedgerEndpoint(Ledger ledger, ObjectProvider<StateStore> store) {
      return new SegmentLedgerEndpoint(ledger, store.getIfUnique());
    }

    @Bean
    @ConditionalOnMissingBean(SegmentLedgerEndpoint.class)
    @ConditionalOnBooleanProperty(name = SegmentLedgerProperties.PREFIX + ".endpoint.reopen-enabled")
    SegmentLedgerReopenEndpoint segmentLedgerReopenEndpoint(Ledger ledger, ObjectProvider<StateStore> store) {
      return new SegmentLedgerReopenEndpoint(ledger, store.getIfUnique());
    }
  }

  /** The uplink endpoint: the lanes and the cap, and the cap turned at run time. */
  @Configuration(proxyBeanMethods = false)
  @ConditionalOnClass({Endpoint.class, ConditionalOnAvailableEndpoint.class})
  @ConditionalOnAvailableEndpoint(SegmentLedgerUplinkEndpoint.class)
  static class UplinkEndpoint {
    @Bean
    @ConditionalOnMissingBean
    SegmentLedgerUplinkEndpoint segmentLedgerUplinkEndpoint(Ledger ledger) {
      return new SegmentLedgerUplinkEndpoint(ledger);
    }
  }
}
