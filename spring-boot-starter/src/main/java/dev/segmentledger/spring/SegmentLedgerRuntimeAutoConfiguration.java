package dev.segmentledger.spring;

import dev.segmentledger.core.Ledger;
import dev.segmentledger.micrometer.LedgerBacklogMetrics;
import dev.segmentledger.micrometer.UplinkMetrics;
import java.time.Clock;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnProperty;
import org.springframework.boot.context.properties.EnableConfigurationProperties;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.core.env.Environment;

/**
 * Runs the {@link Ledger} bean, the starter's or the application's: its {@link
 * SegmentLedgerLifecycle}, and the backlog read from the rows every {@code
 * segment-ledger.metrics.backlog-refresh-interval} (gauges when there is a MeterRegistry, and the
 * health indicator).
 */
@AutoConfiguration(after = SegmentLedgerAutoConfiguration.class)
@ConditionalOnProperty(prefix = SegmentLedgerProperties.PREFIX, name = "enabled", matchIfMissing = true)
@ConditionalOnBean(Ledger.class)
@EnableConfigurationProperties(SegmentLedgerProperties.class)
public class SegmentLedgerRuntimeAutoConfiguration {

  /** The backlog, cached; a {@code MeterBinder}. Refreshed once the lifecycle starts. */
  @Bean
  @ConditionalOnMissingBean
  public LedgerBacklogMetrics segmentLedgerBacklogMetrics(Ledger ledger, SegmentLedgerProperties properties) {
    return LedgerBacklogMetrics.create(ledger, Clock.systemUTC(), properties.getMetrics().getBacklogRefreshInterval());
  }

  /** The lanes' and the bandwidth cap's meters; a {@code MeterBinder}. */
  @Bean
  @ConditionalOnMissingBean
  public UplinkMetrics segmentLedgerUplinkMetrics(Ledger ledger) {
    return UplinkMetrics.of(ledger);
  }

  /** With Spring Cloud: a refresh that changes {@code segment-ledger.uplink.*} turns the running ledger's uplink. */
  @Configuration(proxyBeanMethods = false)
  @ConditionalOnClass(name = "org.springframework.cloud.context.environment.EnvironmentChangeEvent")
  static class UplinkRefresh {
    @Bean
    @ConditionalOnMissingBean
    SegmentLedgerUplinkRefresh segmentLedgerUplinkRefresh(Ledger ledger, Environment environment) {
      return new SegmentLedgerUplinkRefresh(ledger, environment);
    }
  }

  /** Starts and stops the ledger with the application. */
  @Bean
  @ConditionalOnMissingBean
  public SegmentLedgerLifecycle segmentLedgerLifecycle(Ledger ledger, LedgerBacklogMetrics backlog) {
    return new SegmentLedgerLifecycle(ledger, backlog);
  }
}
